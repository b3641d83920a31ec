"""Two editors curating overlapping records at the same time: nothing is lost, no cycle.

Each editor is a thread with its own database connection. The first holds its transaction
open (row locks taken) while the second starts, so the second really waits on the locks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from curation.errors import CurationConflict
from curation.merge import researcher_merge
from curation.models import CurationRecord
from papers import harvest as paper_harvest
from provenance.services import signer_current
from researchers.models import Authorship, Researcher
from researchers.selectors import researcher_resolve
from researchers.services import researchers_match_local

from .conftest import researcher_of

RAW_PAGE1 = "tests/fixtures/arxiv/oai/edited_arXivRaw_ListRecords_page1.xml"
HOLD_SECONDS = 0.5


def setup_three(django_user_model):
    """Three real records from arXivRaw page 1 (0801.3673-0801.3675), an editor, a published key."""
    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    researchers_match_local()
    signer_current()
    editor = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw-boss-123")
    a, b, c = (researcher_of("0801.3673", 1), researcher_of("0801.3674", 1), researcher_of("0801.3675", 1))
    assert len({a.pk, b.pk, c.pk}) == 3
    return editor, a.pk, b.pk, c.pk


def race(first: Callable[[], object], second: Callable[[], object]) -> tuple[list, list, list[float]]:
    """Run ``first`` (holding its transaction open ``HOLD_SECONDS`` after the work), then
    ``second`` as soon as ``first`` holds its locks. Returns (results, errors, times): for
    ``first`` the moment just before its commit, for ``second`` when it finished."""
    locked = threading.Event()
    results: list = [None, None]
    errors: list = [None, None]
    finished = [0.0, 0.0]

    def one() -> None:
        try:
            with transaction.atomic():
                results[0] = first()
                locked.set()
                time.sleep(HOLD_SECONDS)
                finished[0] = time.monotonic()  # just before COMMIT releases the locks
        except Exception as exc:
            errors[0] = exc
        finally:
            locked.set()
            connection.close()

    def two() -> None:
        try:
            locked.wait(30)
            results[1] = second()
            finished[1] = time.monotonic()
        except Exception as exc:
            errors[1] = exc
            finished[1] = time.monotonic()
        finally:
            connection.close()

    threads = [threading.Thread(target=one), threading.Thread(target=two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results, errors, finished


def assert_nothing_lost(authorships_before: set[int]) -> None:
    """Every authorship still exists, sits on an active record, and every record resolves."""
    rows = dict(Authorship.objects.values_list("pk", "researcher__merged_into_id"))
    assert set(rows) == authorships_before
    assert all(merged is None for merged in rows.values())
    for pk in Researcher.objects.values_list("pk", flat=True):
        survivor, _moved = researcher_resolve(pk)
        assert survivor is not None and survivor.merged_into_id is None  # no cycle


@pytest.mark.django_db(transaction=True)
def test_opposite_merges_at_once_one_wins_no_cycle(django_user_model):
    editor, a, b, _c = setup_three(django_user_model)
    before = set(Authorship.objects.values_list("pk", flat=True))
    results, errors, finished = race(
        lambda: researcher_merge(survivor_id=a, merged_ids=[b], editor=editor, reason="B is A"),
        lambda: researcher_merge(survivor_id=b, merged_ids=[a], editor=editor, reason="A is B"),
    )
    assert errors[0] is None and isinstance(results[0], CurationRecord)
    assert isinstance(errors[1], CurationConflict) and f"{b} (into {a})" in str(errors[1])
    assert finished[1] >= finished[0]  # the second editor waited for the first one's locks
    assert Researcher.objects.get(pk=b).merged_into_id == a
    assert Researcher.objects.get(pk=a).merged_into_id is None
    assert CurationRecord.objects.count() == 1
    assert_nothing_lost(before)


@pytest.mark.django_db(transaction=True)
def test_two_merges_into_one_survivor_both_land(django_user_model):
    editor, a, b, c = setup_three(django_user_model)
    before = set(Authorship.objects.values_list("pk", flat=True))
    papers = set(Authorship.objects.filter(researcher_id__in=[a, b, c]).values_list("paper_id", flat=True))
    results, errors, _finished = race(
        lambda: researcher_merge(survivor_id=a, merged_ids=[b], editor=editor, reason="B is A"),
        lambda: researcher_merge(survivor_id=a, merged_ids=[c], editor=editor, reason="C is A"),
    )
    assert errors == [None, None]
    survivor = Researcher.objects.get(pk=a)
    assert survivor.paper_count == len(papers) == 3
    assert set(Authorship.objects.filter(researcher_id=a).values_list("paper_id", flat=True)) == papers
    assert CurationRecord.objects.count() == 2
    assert_nothing_lost(before)


@pytest.mark.django_db(transaction=True)
def test_merge_into_a_record_being_merged_away_flattens_the_chain(django_user_model):
    # Editor 1 merges B into A while editor 2 merges A into C: after both, B and A point
    # straight at C (editor 2 found B pointing at A once it held A's lock, and locked it too).
    editor, a, b, c = setup_three(django_user_model)
    before = set(Authorship.objects.values_list("pk", flat=True))
    results, errors, _finished = race(
        lambda: researcher_merge(survivor_id=a, merged_ids=[b], editor=editor, reason="B is A"),
        lambda: researcher_merge(survivor_id=c, merged_ids=[a], editor=editor, reason="A is C"),
    )
    assert errors == [None, None]
    assert Researcher.objects.get(pk=a).merged_into_id == c
    assert Researcher.objects.get(pk=b).merged_into_id == c
    assert results[1].changes["flattened"] == [{"id": b, "from": a, "to": c}]
    assert Researcher.objects.get(pk=c).paper_count == 3
    assert_nothing_lost(before)
