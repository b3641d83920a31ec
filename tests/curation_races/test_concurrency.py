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
from curation.stories import record_story
from curation.undo import curation_undo
from papers import harvest as paper_harvest
from provenance.models import Event
from provenance.services import signer_current
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship, Researcher
from researchers.selectors import researcher_resolve
from tests.curation.conftest import researcher_of

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


def _assert_followed(record: CurationRecord, *, requested: int, survivor: int, merged: int) -> None:
    """The record says the merge followed ``requested`` to ``survivor``: in its changes, its
    signed event's payload and the story the admin shows."""
    assert record.changes["followed"] == {"requested_target": requested, "followed_to": survivor}
    assert record.changes["survivor"] == survivor and record.changes["merged"] == [merged]
    payload = Event.objects.get(content_sha256=record.provenance_event.removeprefix("sha256:")).content[
        "payload"
    ]
    assert payload["followed"] == {"requested_target": requested, "followed_to": survivor}
    story = " ".join(record_story(record))
    assert (
        f"The editor chose researcher {requested} to keep, which another editor had merged into "
        f"{survivor} meanwhile: the merge followed it there (one step)." in story
    )


@pytest.mark.django_db(transaction=True)
def test_merge_into_a_record_merged_away_meanwhile_follows_it_one_hop(django_user_model):
    # Editor 1 merges B into A while editor 2 merges C into B: editor 2 waits for B's lock,
    # finds B merged into A, and merges C into A instead, saying so.
    editor, a, b, c = setup_three(django_user_model)
    before = set(Authorship.objects.values_list("pk", flat=True))
    results, errors, finished = race(
        lambda: researcher_merge(survivor_id=a, merged_ids=[b], editor=editor, reason="B is A"),
        lambda: researcher_merge(survivor_id=b, merged_ids=[c], editor=editor, reason="C is B"),
    )
    assert errors == [None, None]
    assert finished[1] >= finished[0]  # the second editor waited for the first one's locks
    assert Researcher.objects.get(pk=b).merged_into_id == a
    assert Researcher.objects.get(pk=c).merged_into_id == a
    assert Researcher.objects.get(pk=a).paper_count == 3
    assert results[0].changes["followed"] is None
    _assert_followed(results[1], requested=b, survivor=a, merged=c)
    assert_nothing_lost(before)


@pytest.mark.django_db(transaction=True)
def test_merge_into_a_merged_record_sequentially_follows_it_and_refuses_two_hops(django_user_model):
    editor, a, b, c = setup_three(django_user_model)
    researcher_merge(survivor_id=a, merged_ids=[b], editor=editor, reason="B is A")
    record = researcher_merge(survivor_id=b, merged_ids=[c], editor=editor, reason="C is B")
    _assert_followed(record, requested=b, survivor=a, merged=c)
    # A chain of two (B -> A -> C) can only be written outside curation, which flattens
    # chains: a merge into B would have to follow two hops, and is refused.
    curation_undo(record_id=record.pk, editor=editor, reason="undo the follow")
    Researcher.objects.filter(pk=a).update(merged_into_id=c)
    with pytest.raises(CurationConflict) as refused:
        researcher_merge(survivor_id=b, merged_ids=[c], editor=editor, reason="C is B")
    assert str(refused.value) == (
        f"researcher {b} was merged into {a} meanwhile, and {a} into {c}: a merge follows its "
        "survivor one step only; reload the comparison"
    )
