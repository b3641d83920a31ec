"""The owner of a claimed record takes a paper (issue 31): from another record's unconfirmed
link, or from the review queue.

Matching leaves two kinds of guesses a researcher can settle better than anyone: a link the
name alone decided while other researchers share the name (``Authorship.unconfirmed``), and a
slot it could not give to any of several candidates (:class:`researchers.models.SlotReview`).
:func:`take_candidates` lists those that may be the owner's (their name blocks, or the owner
among the candidates); :func:`authorship_take` and :func:`review_take` attach one to the
owner's record. Each is a ``take`` :class:`~curation.models.CurationRecord` with the user as
its ``editor``, binds the matcher (a must-link to the owner's slots; a taken link also
cannot-links the record it left, as an editor's reassignment does), appends a signed
``author_attestation`` and can be undone by an editor (:func:`curation.undo.curation_undo`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from papers.models import PaperAuthor
from researchers.matching_common import researchers_refresh, slot_block
from researchers.models import Authorship, MatchMethod, Researcher, SlotReview

from .claims import claim_of_owner, claim_owner
from .confirm import confirm_constraints
from .errors import CurationConflict, CurationError
from .marks import CONFIDENCE_OWNER, marks_recompute, owner_signal
from .models import CurationRecord, ResearcherClaim
from .records import append_event, attest, lock_researchers, next_record_id, researcher_states, write_record
from .split import split_check, split_do

TAKE_REASON = "Taken by the researcher"
# Candidates listed on the owner's page, newest papers first; the rest follow once these
# are decided (a record whose name blocks hold more is a common name, best left to editors).
TAKE_SHOWN = 100


@dataclass
class TakeCandidates:
    """What the owner of researcher ``researcher_id`` may take: ``links`` (unconfirmed
    authorships of other records in the owner's name blocks; slot, paper and researcher
    loaded) and ``reviews`` (slots left for review with the owner among their candidates;
    slot and paper loaded), each newest paper first and at most :data:`TAKE_SHOWN`."""

    links: list[Authorship]
    reviews: list[SlotReview]


def _owner_ids(researcher_id: int) -> list[int]:
    """The record and those merged into it (a review row may name a merged-away id)."""
    merged = Researcher.objects.filter(merged_into_id=researcher_id).values_list("pk", flat=True)
    return [int(researcher_id), *merged]


def _takeable_links(researcher_id: int) -> QuerySet[Authorship]:
    """Unconfirmed links in the record's name blocks, on papers it does not hold, of records
    no other user owns: another owner's guess is theirs to settle (or an editor's), and a
    take would confirm it away from their profile, past their own take back."""
    held = Authorship.objects.filter(researcher_id=researcher_id)
    owner = claim_owner(int(researcher_id))
    others = ResearcherClaim.objects.filter(status=ResearcherClaim.Status.APPROVED)
    if owner is not None:
        others = others.exclude(user_id=owner.user_id)
    return (
        Authorship.objects.filter(unconfirmed=True, block__in=held.values("block"), paper__deleted=False)
        .exclude(researcher_id=researcher_id)
        .exclude(paper_id__in=held.values("paper_id"))
        .exclude(researcher_id__in=others.values("researcher_id"))
        .exclude(
            researcher_id__in=others.filter(researcher__merged_into__isnull=False).values(
                "researcher__merged_into_id"
            )
        )
    )


def _takeable_reviews(researcher_id: int) -> QuerySet[SlotReview]:
    held = Authorship.objects.filter(researcher_id=researcher_id)
    return SlotReview.objects.filter(
        candidates__overlap=_owner_ids(researcher_id),
        slot__authorship__isnull=True,
        slot__paper__deleted=False,
    ).exclude(slot__paper_id__in=held.values("paper_id"))


def take_candidates(researcher_id: int, *, limit: int = TAKE_SHOWN) -> TakeCandidates:
    """:class:`TakeCandidates` of researcher ``researcher_id``: links on papers the record
    does not hold already (a paper has one slot per person). Four queries."""
    links = list(
        _takeable_links(researcher_id)
        .select_related("slot", "paper", "researcher")
        .order_by("-paper__submitted_at", "paper__arxiv_id", "slot__position")[:limit]
    )
    reviews = list(
        _takeable_reviews(researcher_id)
        .select_related("slot", "slot__paper")
        .order_by("-slot__paper__submitted_at", "slot_id")[:limit]
    )
    return TakeCandidates(links, reviews)


def _require_owner(user, researcher_id: int) -> ResearcherClaim:
    return claim_of_owner(user, researcher_id, may="take papers for it")


def _take_attest(
    *, record_id: int, claim: ResearcherClaim, paper_id: int, arxiv_id: str, position: int
) -> None:
    """Sign the take into the paper: an ``author_attestation`` with ``attestation: "take"``
    (the payload of :func:`curation.owner.owner_attest`)."""
    attest(
        [
            (
                paper_id,
                {
                    "attestation": "take",
                    "curation_id": record_id,
                    "researcher_id": claim.researcher_id,
                    "arxiv_id": arxiv_id,
                    "positions": [position],
                    "strong": claim.strong,
                    "orcid": claim.orcid if claim.strong else "",
                },
            )
        ]
    )


def authorship_take(*, user, researcher_id: int, authorship_id: int) -> CurationRecord:
    """The owner of researcher ``researcher_id`` takes the unconfirmed link
    ``authorship_id`` from the record holding it.

    The link moves as an editor's reassignment does (:func:`curation.split.split_do` with
    ``owner_take``): must-links hold each record's slots together, cannot-links keep the
    two apart (a later merge drops them), the link's evidence becomes an ``owner`` signal
    ``taken`` at :data:`curation.marks.CONFIDENCE_OWNER`, a signed ``researcher_split`` event
    (action ``take``) and an ``author_attestation`` are appended. Returns the ``kind=take``
    record, shown on the owner's page. Raises :class:`CurationError` for anyone but the
    owner, a link that is confirmed, outside the owner's name blocks, or on a paper the
    record holds, or on a record another user owns; :class:`CurationConflict` when the link
    moved or a record was merged away.
    """
    with transaction.atomic():
        claim = _require_owner(user, researcher_id)
        link = Authorship.objects.filter(pk=authorship_id).values("researcher_id").first()
        if link is None:
            raise CurationConflict(f"no authorship {authorship_id} (any more)")
        if link["researcher_id"] == int(researcher_id):
            raise CurationError("this paper is on your profile already")
        # Locks both records (in id order) and the link; checked again under the locks.
        plan = split_check(
            researcher_id=link["researcher_id"],
            authorship_ids=[authorship_id],
            reason=TAKE_REASON,
            target_id=researcher_id,
        )
        claim = _require_owner(user, researcher_id)
        if not _takeable_links(researcher_id).filter(pk=authorship_id).exists():
            raise CurationError(
                "only a link the name alone decided, in a name of yours, on a paper not on your "
                "profile yet, can be taken; ask an editor for any other"
            )
        taken = Authorship.objects.select_related("slot", "paper").get(pk=authorship_id)
        record = split_do(
            plan,
            editor=user,
            reassign=True,
            owner_strong=claim.strong,
            owner_take=True,
            changes_extra={"arxiv_id": taken.paper.arxiv_id, "claim": claim.pk, "strong": claim.strong},
        )
        _take_attest(
            record_id=record.pk,
            claim=claim,
            paper_id=taken.paper_id,
            arxiv_id=taken.paper.arxiv_id,
            position=taken.slot.position,
        )
        return record


def _review_check(*, user, researcher_id: int, slot_id: int) -> tuple[ResearcherClaim, PaperAuthor]:
    """Lock the owner's record and the slot; the owner's claim and the slot (paper loaded).
    Errors: :func:`review_take`'s."""
    rows = lock_researchers([int(researcher_id)])
    if int(researcher_id) not in rows or rows[int(researcher_id)].merged_into_id:
        raise CurationConflict(f"researcher {researcher_id} was merged away")
    claim = _require_owner(user, researcher_id)
    slot = (
        PaperAuthor.objects.select_for_update(of=("self",)).select_related("paper").filter(pk=slot_id).first()
    )
    if slot is None or Authorship.objects.filter(slot_id=slot_id).exists():
        raise CurationConflict(f"author slot {slot_id} is not waiting for review (any more)")
    if not _takeable_reviews(researcher_id).filter(slot_id=slot_id).exists():
        raise CurationError(
            "only a slot the matcher left with you among its candidates, on a paper not on "
            "your profile yet, can be taken; ask an editor for any other"
        )
    return claim, slot


def _review_attach(slot: PaperAuthor, *, researcher_id: int, signal: dict) -> tuple[Authorship, dict]:
    """Attach ``slot`` to the record as the owner's (must-linked), the record recomputed;
    returns the authorship and the constraints written."""
    block = slot_block(slot.name, slot.keyname, slot.forenames)
    try:
        with transaction.atomic():
            authorship = Authorship.objects.create(
                slot=slot,
                paper_id=slot.paper_id,
                researcher_id=researcher_id,
                method=MatchMethod.EDITOR,
                confidence=CONFIDENCE_OWNER,
                block=block,
                evidence=[signal],
                unconfirmed=False,
            )
    except IntegrityError as exc:  # the matcher attached it between the check and here
        raise CurationConflict(f"author slot {slot.pk} was attached meanwhile") from exc
    constraints = confirm_constraints(slot_id=slot.pk, researcher_id=researcher_id, block=block)
    researchers_refresh(researcher_ids=[researcher_id])
    marks_recompute([researcher_id])
    return authorship, constraints


def review_take(*, user, researcher_id: int, slot_id: int) -> CurationRecord:
    """The owner of researcher ``researcher_id`` takes slot ``slot_id`` from the review queue.

    A new authorship attaches the slot to the record (method ``editor``, confidence
    :data:`curation.marks.CONFIDENCE_OWNER`, confirmed, an ``owner`` signal ``taken`` with
    ``from_review`` as its evidence), must-linked to the record's slots
    (:func:`curation.confirm.confirm_constraints`); the record is recomputed, a signed
    ``authorship_matched`` event (method ``owner``) and an ``author_attestation`` are
    appended; the slot's review row is deleted (matching skips a slot that has one). Returns
    the ``kind=take`` record (``changes["created_authorships"]`` and ``["slot_review"]``:
    the undo deletes the one and writes the other back, so the slot is in the queue again).
    Raises :class:`CurationError` for anyone but the owner, a slot whose candidates do not
    include the record, or a paper the record holds; :class:`CurationConflict` when the slot
    was attached meanwhile or the record merged away.
    """
    researcher_id = int(researcher_id)
    with transaction.atomic():
        claim, slot = _review_check(user=user, researcher_id=researcher_id, slot_id=slot_id)
        # The review row goes (local matching skips a slot that has one, and a re-run must
        # find this slot with its must-link); the undo writes it back.
        review = SlotReview.objects.get(slot_id=slot_id)
        review_row = {"slot": review.slot_id, "candidates": list(review.candidates)}
        review.delete()
        record_id = next_record_id()
        before = researcher_states([researcher_id])
        signal = owner_signal(
            user=user, action="taken", record_id=record_id, strong=claim.strong, from_review=True
        )
        authorship, constraints = _review_attach(slot, researcher_id=researcher_id, signal=signal)
        arxiv_id = slot.paper.arxiv_id
        payload = {
            "curation_id": record_id,
            "action": "take",
            "arxiv_id": arxiv_id,
            "position": slot.position,
            "researcher": researcher_id,
            "method": "owner",
            "reason": TAKE_REASON,
            "evidence": [signal],
        }
        event = append_event(event_type="authorship_matched", payload=payload, paper_ids=[slot.paper_id])
        _take_attest(
            record_id=record_id,
            claim=claim,
            paper_id=slot.paper_id,
            arxiv_id=arxiv_id,
            position=slot.position,
        )
        return write_record(
            record_id=record_id,
            kind=CurationRecord.Kind.TAKE,
            editor=user,
            reason=TAKE_REASON,
            researcher_id=researcher_id,
            researcher_ids=[researcher_id],
            changes={
                "researcher": researcher_id,
                "slot": slot.pk,
                "arxiv_id": arxiv_id,
                "claim": claim.pk,
                "strong": claim.strong,
                "before": before,
                "after": researcher_states([researcher_id]),
                "authorships": [],
                "identities": [],
                "created_authorships": [{"id": authorship.pk, "researcher": researcher_id}],
                "slot_review": review_row,
                "constraints": constraints,
                "event_papers": [slot.paper_id],
            },
            event=event,
        )
