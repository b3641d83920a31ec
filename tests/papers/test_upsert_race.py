"""Two upserts of one new paper at once (an API fetch racing a harvest) do not interleave
(issue 18): the second waits for the first, then merges into what it wrote, so the older
message loses whichever transaction commits last."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from papers.models import Paper
from papers.upsert import CategoryMap, papers_upsert
from tests.order_messages import MESSAGES


def _backend_waiting_on_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return bool(row) and row[0] == "Lock"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("stored", "older"),
    [(None, "raw v2"), ("arXiv v2", "raw v3")],
    ids=["new paper (advisory lock)", "stored paper (row lock)"],
)
def test_an_older_message_racing_a_newer_one_loses_although_it_commits_last(stored, older):
    # Categories first (committed): a racing upsert must block on the paper, not on them.
    CategoryMap().ensure(MESSAGES["raw v4"].categories)
    if stored:
        papers_upsert(records=[MESSAGES[stored]])
    # 0801.3674 as of 2008-11-26 against the same paper as of 2008-02-05 or 2008-03-20.
    newer, older = MESSAGES["raw v4"], MESSAGES[older]
    written = threading.Event()
    release = threading.Event()
    pids: list[int] = []
    errors: list[BaseException] = []

    def first() -> None:  # writes the newer record and holds its transaction open
        try:
            with transaction.atomic():
                papers_upsert(records=[newer])
                written.set()
                release.wait(60)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            written.set()
            connection.close()

    def second() -> None:  # the older record, sent while the first is uncommitted
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pids.append(cursor.fetchone()[0])
            papers_upsert(records=[older])
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    one = threading.Thread(target=first)
    one.start()
    written.wait(60)
    two = threading.Thread(target=second)
    two.start()
    # Commit the first only once the second is blocked behind it (on the new paper's lock).
    for _ in range(6000):
        if pids and _backend_waiting_on_a_lock(pids[0]):
            break
        threading.Event().wait(0.01)
    release.set()
    one.join(60)
    two.join(60)
    assert errors == []
    paper = Paper.objects.get(arxiv_id="0801.3674")
    assert paper.latest_version == 4
    assert list(paper.versions.values_list("version", flat=True)) == [1, 2, 3, 4]
    assert paper.doi == "10.1103/PhysRevD.78.083502"  # the newer record's; the older has none
    assert paper.comments.startswith("Some sections expanded")
