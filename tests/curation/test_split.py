"""Splits on the real sample: to a new or an existing record, what the record holds, and undo
restoring every row exactly."""

from __future__ import annotations

import pytest

from curation.errors import CurationConflict, CurationError
from curation.split import researcher_split
from curation.undo import curation_undo
from provenance.models import Event
from researchers.models import Authorship, MatchConstraint, Researcher

from .conftest import researcher_of, snapshot

pytestmark = pytest.mark.django_db

# Damien Chablat: 8 cs.RO papers, one researcher (see tests/researchers/test_matching.py).
CHABLAT = ("0705.0856", 3)
MOVED_PAPERS = ["0705.0738", "0705.0956", "0705.0982"]


def chablat_authorships(researcher: Researcher, papers: list[str]) -> list[int]:
    return list(
        Authorship.objects.filter(researcher=researcher, paper__arxiv_id__in=papers)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def test_split_to_a_new_researcher_and_undo(curation_sample, editor_user):
    chablat = researcher_of(*CHABLAT)
    assert chablat.paper_count == 8
    moving = chablat_authorships(chablat, MOVED_PAPERS)
    assert len(moving) == 3
    before = snapshot()

    record = researcher_split(
        researcher_id=chablat.pk, authorship_ids=moving, editor=editor_user, reason="Another D. Chablat"
    )

    target = Researcher.objects.get(pk=record.changes["target"])
    assert record.changes["created_researcher"] == target.pk
    assert target.display_name == "Damien Chablat" and target.paper_count == 3
    assert sorted(Authorship.objects.filter(researcher=target).values_list("paper__arxiv_id", flat=True)) == (
        MOVED_PAPERS
    )
    chablat.refresh_from_db()
    assert chablat.paper_count == 5
    assert record.kind == "split" and record.researcher_id == chablat.pk
    assert record.researcher_ids == sorted([chablat.pk, target.pk])
    assert [m["id"] for m in record.changes["authorships"]] == moving
    # Each side held together by must-links (4 + 2 pairs), kept apart by one cannot-link
    # between the anchors of their shared block "d chablat".
    assert MatchConstraint.objects.filter(kind="must").count() == 4 + 2
    (cannot,) = MatchConstraint.objects.filter(kind="cannot")
    left = set(Authorship.objects.filter(researcher=chablat).values_list("slot_id", flat=True))
    right = set(Authorship.objects.filter(researcher=target).values_list("slot_id", flat=True))
    assert {cannot.slot_a_id, cannot.slot_b_id} == {min(left), min(right)}
    event = Event.objects.get(content_sha256=record.provenance_event.removeprefix("sha256:"))
    assert event.event_type == "researcher_split"
    assert [a["arxiv_id"] for a in event.content["payload"]["authorships"]] == [
        Authorship.objects.get(pk=pk).paper.arxiv_id for pk in moving
    ]

    curation_undo(record_id=record.pk, editor=editor_user, reason="One person after all")
    assert snapshot() == before
    assert not Researcher.objects.filter(pk=target.pk).exists()


def test_split_to_an_existing_researcher_and_undo(curation_sample, editor_user):
    # Move "Lucas Cieza" on 0704.0253 (8th author) to the "Lucas A. Cieza" record.
    source, target = researcher_of("0704.0253", 8), researcher_of("0801.4572", 1)
    assert source.pk != target.pk
    before = snapshot()
    (authorship,) = chablat_authorships(source, ["0704.0253"])
    stamp = Authorship.objects.get(pk=authorship).modified_at
    record = researcher_split(
        researcher_id=source.pk,
        authorship_ids=[authorship],
        target_id=target.pk,
        editor=editor_user,
        reason="Same slot spelling as Lucas A. Cieza",
    )
    assert record.changes["created_researcher"] is None
    assert researcher_of("0704.0253", 8) == target
    # The moved link has a new change time (the paper API's Last-Modified).
    assert Authorship.objects.get(pk=authorship).modified_at > stamp
    assert Researcher.objects.get(pk=target.pk).paper_count == 2
    assert Researcher.objects.get(pk=source.pk).paper_count == 1
    curation_undo(record_id=record.pk, editor=editor_user, reason="undo")
    assert snapshot() == before


def test_split_refuses_foreign_authorships_and_missing_reason(curation_sample, editor_user):
    chablat = researcher_of(*CHABLAT)
    other = Authorship.objects.get(slot__paper__arxiv_id="0801.4572", slot__position=1)
    with pytest.raises(CurationConflict, match=str(other.pk)):
        researcher_split(researcher_id=chablat.pk, authorship_ids=[other.pk], editor=editor_user, reason="x")
    with pytest.raises(CurationError, match="reason"):
        researcher_split(
            researcher_id=chablat.pk,
            authorship_ids=chablat_authorships(chablat, MOVED_PAPERS),
            editor=editor_user,
            reason="",
        )
    with pytest.raises(CurationError, match="at least one"):
        researcher_split(researcher_id=chablat.pk, authorship_ids=[], editor=editor_user, reason="x")


def test_undo_of_split_refused_when_the_new_record_gained_papers(curation_sample, editor_user):
    chablat = researcher_of(*CHABLAT)
    record = researcher_split(
        researcher_id=chablat.pk,
        authorship_ids=chablat_authorships(chablat, MOVED_PAPERS),
        editor=editor_user,
        reason="Another D. Chablat",
    )
    target = record.changes["target"]
    # A later split moves one more of Chablat's papers onto the new record.
    later = researcher_split(
        researcher_id=chablat.pk,
        authorship_ids=chablat_authorships(chablat, ["0705.0959"]),
        target_id=target,
        editor=editor_user,
        reason="This one too",
    )
    with pytest.raises(CurationConflict, match=f"#{later.pk}"):
        curation_undo(record_id=record.pk, editor=editor_user, reason="undo")
    curation_undo(record_id=later.pk, editor=editor_user, reason="undo the later one")
    curation_undo(record_id=record.pk, editor=editor_user, reason="now the first")
    assert Researcher.objects.get(pk=chablat.pk).paper_count == 8
