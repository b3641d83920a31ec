"""What the researcher who claimed a record does with its papers (issue 31): "mine" and "not mine".

Each decision binds the matcher like an editor's: "mine" must-links the slot to the
record (as :mod:`curation.confirm` does), "not mine" moves the slot to a new researcher
with cannot-links between the two (as :mod:`curation.reassign` does), so a
``match_authors`` re-run keeps it. Each is a :class:`~curation.models.CurationRecord`
(``mine``, ``not_mine``) an editor can undo, with the user as its ``editor``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from researchers.models import Authorship

from .claims import claim_of_owner
from .confirm import confirm_constraints
from .errors import CurationConflict
from .marks import CONFIDENCE_OWNER, marks_confirm, marks_snapshot, owner_signal
from .models import CurationRecord, ResearcherClaim
from .records import append_event, attest, lock_researchers, next_record_id, researcher_states, write_record
from .split import split_check, split_do

MINE_REASON = "Confirmed by the researcher"
NOT_MINE_REASON = "Not theirs, said the researcher"


@dataclass
class OwnerPlan:
    """An owner's decision :func:`owner_check` accepted: the user's approved ``claim``, the
    locked ``authorship`` (slot and paper loaded) of the claimed researcher."""

    claim: ResearcherClaim
    authorship: Authorship


def owner_check(*, user, researcher_id: int, authorship_id: int) -> OwnerPlan:
    """Check that ``user`` owns researcher ``researcher_id`` (an approved claim) and lock the
    researcher and its authorship ``authorship_id``. Must run inside a transaction; writes
    nothing. Raises :class:`CurationError` when the user has not claimed the record,
    :class:`CurationConflict` when the authorship is not (any more) the researcher's."""
    rows = lock_researchers([int(researcher_id)])
    claim = claim_of_owner(user, researcher_id, may="mark its papers")
    if rows[int(researcher_id)].merged_into_id:
        raise CurationConflict(f"researcher {researcher_id} was merged away")
    authorship = (
        Authorship.objects.select_for_update(of=("self",))
        .select_related("slot", "paper")
        .filter(pk=authorship_id, researcher_id=researcher_id)
        .first()
    )
    if authorship is None:
        raise CurationConflict(f"authorship {authorship_id} is not researcher {researcher_id}'s (any more)")
    return OwnerPlan(claim, authorship)


def owner_attest(plan: OwnerPlan, *, action: str, record_id: int) -> list[str]:
    """Sign the owner's word into the paper: an ``author_attestation`` event with payload
    ``{"attestation": "mine"|"not_mine", "curation_id", "researcher_id" (the claimed
    record), "arxiv_id", "positions": [the slot's position], "strong", "orcid"}``
    (:func:`curation.records.attest`)."""
    claim, authorship = plan.claim, plan.authorship
    payload = {
        "attestation": action,
        "curation_id": record_id,
        "researcher_id": claim.researcher_id,
        "arxiv_id": authorship.paper.arxiv_id,
        "positions": [authorship.slot.position],
        "strong": claim.strong,
        "orcid": claim.orcid if claim.strong else "",
    }
    return attest([(authorship.paper_id, payload)])


def authorship_mine(*, user, researcher_id: int, authorship_id: int) -> CurationRecord:
    """The researcher confirms one of their record's papers.

    The link is confirmed (``unconfirmed`` cleared, confidence raised to
    :data:`curation.marks.CONFIDENCE_OWNER`, an ``owner`` signal appended to its evidence:
    the paper page then says "confirmed by the researcher"), the slot is must-linked to the
    record (:func:`curation.confirm.confirm_constraints`) and a signed ``authorship_matched``
    event (method ``owner``) is appended to the paper. Returns the ``kind=mine``
    :class:`CurationRecord` (undoable: the old marks and constraints come back). Errors:
    :func:`owner_check`.
    """
    with transaction.atomic():
        plan = owner_check(user=user, researcher_id=researcher_id, authorship_id=authorship_id)
        authorship, claim = plan.authorship, plan.claim
        record_id = next_record_id()
        marks = marks_snapshot([authorship.pk])
        signal = owner_signal(user=user, action="confirmed", record_id=record_id, strong=claim.strong)
        marks_confirm([authorship.pk], signal=signal, confidence=CONFIDENCE_OWNER)
        constraints = confirm_constraints(
            slot_id=authorship.slot_id, researcher_id=authorship.researcher_id, block=authorship.block
        )
        payload = {
            "curation_id": record_id,
            "action": "mine",
            "arxiv_id": authorship.paper.arxiv_id,
            "position": authorship.slot.position,
            "researcher": authorship.researcher_id,
            "method": "owner",
            "reason": MINE_REASON,
            "evidence": [signal],
        }
        event = append_event(
            event_type="authorship_matched", payload=payload, paper_ids=[authorship.paper_id]
        )
        owner_attest(plan, action="mine", record_id=record_id)
        states = researcher_states([authorship.researcher_id])
        return write_record(
            record_id=record_id,
            kind=CurationRecord.Kind.MINE,
            editor=user,
            reason=MINE_REASON,
            researcher_id=authorship.researcher_id,
            researcher_ids=[authorship.researcher_id],
            changes={
                "researcher": authorship.researcher_id,
                "authorship": authorship.pk,
                "arxiv_id": authorship.paper.arxiv_id,
                "claim": claim.pk,
                "strong": claim.strong,
                "before": states,
                "after": states,
                "authorships": [],
                "identities": [],
                "marks": [{**mark, "researcher": authorship.researcher_id} for mark in marks],
                "constraints": constraints,
                "event_papers": [authorship.paper_id],
            },
            event=event,
        )


def authorship_not_mine(*, user, researcher_id: int, authorship_id: int) -> CurationRecord:
    """The researcher says one of their record's papers is not theirs.

    The slot moves to a new researcher (named as the slot is written), recorded like an
    editor's reassignment (:func:`curation.split.split_do`): must-links hold each side
    together and cannot-links keep them apart, so ``match_authors`` never brings it back;
    the moved link's evidence is an ``owner`` signal (``rejected``) and a signed
    ``researcher_split`` event (action ``not_mine``) is appended. Returns the
    ``kind=not_mine`` :class:`CurationRecord`, undoable by an editor. Errors:
    :func:`owner_check`, :func:`curation.split.split_check`.
    """
    with transaction.atomic():
        plan = owner_check(user=user, researcher_id=researcher_id, authorship_id=authorship_id)
        split = split_check(
            researcher_id=researcher_id, authorship_ids=[authorship_id], reason=NOT_MINE_REASON
        )
        record = split_do(split, editor=user, reassign=True, owner_strong=plan.claim.strong)
        owner_attest(plan, action="not_mine", record_id=record.pk)
        return record
