"""Editors' decisions bind the real matcher: a re-match never re-splits a merge, never
re-merges a split, and a "not the same person" pair leaves the queue for good.

Re-matching is forced the hard way: the block's authorships are deleted, then
``manage.py match_authors --local-only`` runs, so every slot of the block is clustered
again from scratch (only the constraints remember the editor)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from curation.errors import CurationConflict
from curation.merge import researcher_merge
from curation.models import PairDecision
from curation.pairs import pair_mark_distinct
from curation.queue import same_name_queue
from curation.split import researcher_split
from researchers.models import Authorship, MatchConstraint

from .conftest import researcher_of

pytestmark = pytest.mark.django_db

CIEZA_SLOTS = [("0801.4572", 1), ("0801.4403", 1), ("0704.0253", 8)]
CHABLAT_PAPERS = [
    "0705.0738",
    "0705.0856",
    "0705.0956",
    "0705.0959",
    "0705.0960",
    "0705.0961",
    "0705.0962",
    "0705.0982",
]
CHABLAT_MOVED = {"0705.0738", "0705.0956", "0705.0982"}


def rematch(block: str) -> None:
    Authorship.objects.filter(block=block).delete()
    out = io.StringIO()
    call_command("match_authors", "--local-only", "--no-progress", stdout=out)
    assert "researchers created" in out.getvalue()


def holders(block: str) -> dict[str, int]:
    """``{arxiv id: researcher id}`` of the block's authorships after a re-match."""
    return dict(Authorship.objects.filter(block=block).values_list("paper__arxiv_id", "researcher_id"))


def test_control_the_matcher_alone_keeps_the_cieza_records_apart(curation_sample):
    rematch("l cieza")
    found = holders("l cieza")
    assert found["0801.4403"] == found["0704.0253"] != found["0801.4572"]


def test_rematch_never_resplits_a_merge(curation_sample, editor_user):
    a, b = researcher_of(*CIEZA_SLOTS[0]), researcher_of(*CIEZA_SLOTS[1])
    researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same astronomer")
    rematch("l cieza")
    found = holders("l cieza")
    assert set(found) == {"0801.4572", "0801.4403", "0704.0253"}
    assert len(set(found.values())) == 1


def test_control_the_matcher_alone_keeps_chablat_together(curation_sample):
    rematch("d chablat")
    found = holders("d chablat")
    assert sorted(found) == CHABLAT_PAPERS and len(set(found.values())) == 1


def test_rematch_never_remerges_a_split(curation_sample, editor_user):
    chablat = researcher_of("0705.0856", 3)
    moving = Authorship.objects.filter(researcher=chablat, paper__arxiv_id__in=CHABLAT_MOVED)
    researcher_split(
        researcher_id=chablat.pk,
        authorship_ids=list(moving.values_list("pk", flat=True)),
        editor=editor_user,
        reason="Two people",
    )
    rematch("d chablat")
    found = holders("d chablat")
    assert sorted(found) == CHABLAT_PAPERS
    moved = {found[p] for p in CHABLAT_MOVED}
    stayed = {found[p] for p in set(CHABLAT_PAPERS) - CHABLAT_MOVED}
    assert len(moved) == 1 and len(stayed) == 1 and moved != stayed


def test_not_the_same_person_leaves_the_queue_for_good(curation_sample, editor_user):
    a, b = researcher_of(*CIEZA_SLOTS[0]), researcher_of(*CIEZA_SLOTS[1])
    pair = (min(a.pk, b.pk), max(a.pk, b.pk))
    queued = {(c.a.pk, c.b.pk): c for c in same_name_queue()}
    assert pair in queued
    assert queued[pair].shared_categories == ["astro-ph"] and queued[pair].name_similarity == 0.9

    record = pair_mark_distinct(researcher_ids=[b.pk, a.pk], editor=editor_user, reason="Different people")
    assert record.kind == "distinct"
    assert PairDecision.objects.filter(researcher_low=pair[0], researcher_high=pair[1]).exists()
    assert pair not in {(c.a.pk, c.b.pk) for c in same_name_queue()}
    # The cannot-link joins the two records' anchor slots in their shared block.
    (cannot,) = MatchConstraint.objects.filter(kind="cannot")
    assert {cannot.slot_a_id, cannot.slot_b_id} == {
        Authorship.objects.filter(researcher=a).order_by("slot_id").first().slot_id,
        Authorship.objects.filter(researcher=b).order_by("slot_id").first().slot_id,
    }
    with pytest.raises(CurationConflict, match="already"):
        pair_mark_distinct(researcher_ids=[a.pk, b.pk], editor=editor_user, reason="again")
    # A re-match keeps them apart, and the pair never comes back.
    rematch("l cieza")
    found = holders("l cieza")
    assert found["0801.4572"] != found["0801.4403"]
    assert pair not in {(c.a.pk, c.b.pk) for c in same_name_queue()}
