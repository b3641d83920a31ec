"""Confirming an unconfirmed authorship: :func:`confirm_check` checks and locks, :func:`confirm_do` acts."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from researchers.constraints import constraints_apply, slots_by_block
from researchers.models import Authorship, MatchConstraint

from .errors import CurationConflict, CurationError
from .marks import editor_signal, marks_confirm, marks_snapshot
from .models import CurationRecord
from .records import (
    append_event,
    lock_researchers,
    next_record_id,
    require_reason,
    researcher_states,
    write_record,
)

# The reason a one-click confirmation from the review queue is recorded with.
CONFIRM_REASON = "Confirmed in the review queue"


@dataclass
class ConfirmPlan:
    """A confirmation :func:`confirm_check` accepted: the locked ``authorship`` (slot and
    paper loaded) of researcher ``researcher_id``, and the ``reason``."""

    authorship: Authorship
    researcher_id: int
    reason: str


def confirm_check(*, authorship_id: int, researcher_id: int | None = None, reason: str) -> ConfirmPlan:
    """Validate a confirmation and lock the researcher, then the authorship.

    ``researcher_id`` is the researcher the editor saw the link to (``None``: whoever holds
    it now). Must run inside a transaction; writes nothing. Raises :class:`CurationError`
    without a reason or for a link that is not unconfirmed (confirmed already);
    :class:`CurationConflict` when the authorship is gone, holds another researcher now or
    its researcher was merged away.
    """
    reason = require_reason(reason)
    current = Authorship.objects.filter(pk=authorship_id).values_list("researcher_id", flat=True).first()
    if current is None:
        raise CurationConflict(f"no authorship {authorship_id}")
    if researcher_id is not None and int(researcher_id) != current:
        raise CurationConflict(
            f"authorship {authorship_id} is now researcher {current}'s, not {researcher_id}'s"
        )
    rows = lock_researchers([current])
    if current not in rows or rows[current].merged_into_id:
        raise CurationConflict(f"researcher {current} was merged away")
    authorship = (
        Authorship.objects.select_for_update(of=("self",))
        .select_related("slot", "paper")
        .filter(pk=authorship_id, researcher_id=current)
        .first()
    )
    if authorship is None:
        raise CurationConflict(f"authorship {authorship_id} moved meanwhile")
    if not authorship.unconfirmed:
        raise CurationError(f"authorship {authorship_id} is not unconfirmed (confirmed already?)")
    return ConfirmPlan(authorship, current, reason)


def confirm_constraints(*, slot_id: int, researcher_id: int, block: str) -> dict[str, list]:
    """Bind the slot to its researcher for every matcher re-run.

    A must-link from the slot to the researcher's anchor in the slot's name block (its
    lowest other slot there; the matcher re-clusters one block at a time and reads the
    constraints of the slots it sees), else to the researcher's lowest other slot. Must-links
    from the slot to other researchers' slots of the block contradict the decision and are
    dropped. A researcher with no other slot gets no must-link (nothing to bind to). Returns
    :func:`researchers.constraints.constraints_apply`'s changes.
    """
    by_block = slots_by_block(researcher_id)
    same = [s for s in by_block.get(block, []) if s != slot_id]
    others = [s for slots in by_block.values() for s in slots if s != slot_id]
    partner = min(same) if same else min(others, default=None)
    must = {(min(slot_id, partner), max(slot_id, partner))} if partner is not None else set()
    strangers = list(
        Authorship.objects.filter(block=block)
        .exclude(researcher_id=researcher_id)
        .values_list("slot_id", flat=True)
    )
    drop = Q(kind=MatchConstraint.Kind.MUST) & (
        Q(slot_a_id=slot_id, slot_b_id__in=strangers) | Q(slot_b_id=slot_id, slot_a_id__in=strangers)
    )
    return constraints_apply(must=must, drop=drop)


def confirm_do(plan: ConfirmPlan, *, editor) -> CurationRecord:
    """Carry out a checked confirmation (in the transaction of :func:`confirm_check`).

    Marks the link confirmed (:func:`curation.marks.marks_confirm`: confidence raised to
    the editor level, never lowered; an ``editor`` signal appended to its evidence), writes
    the must-link of :func:`confirm_constraints` and a signed ``authorship_matched`` event
    (method ``editor``) on the paper. Returns the :class:`CurationRecord` (``kind=confirm``;
    ``changes["marks"]`` holds the authorship's old method, confidence, mark and evidence,
    which :func:`curation.undo.curation_undo` writes back).
    """
    authorship, researcher_id = plan.authorship, plan.researcher_id
    record_id = next_record_id()
    marks = marks_snapshot([authorship.pk])
    signal = editor_signal(editor=editor, action="confirmed", record_id=record_id)
    marks_confirm([authorship.pk], signal=signal)
    constraints = confirm_constraints(
        slot_id=authorship.slot_id, researcher_id=researcher_id, block=authorship.block
    )
    payload = {
        "curation_id": record_id,
        "action": "confirm",
        "arxiv_id": authorship.paper.arxiv_id,
        "position": authorship.slot.position,
        "researcher": researcher_id,
        "method": "editor",
        "reason": plan.reason,
        "evidence": [signal],
    }
    event = append_event(event_type="authorship_matched", payload=payload, paper_ids=[authorship.paper_id])
    states = researcher_states([researcher_id])
    changes = {
        "researcher": researcher_id,
        "authorship": authorship.pk,
        "arxiv_id": authorship.paper.arxiv_id,
        "before": states,
        "after": states,
        "authorships": [],
        "identities": [],
        "marks": [{**mark, "researcher": researcher_id} for mark in marks],
        "constraints": constraints,
        "event_papers": [authorship.paper_id],
    }
    return write_record(
        record_id=record_id,
        kind=CurationRecord.Kind.CONFIRM,
        editor=editor,
        reason=plan.reason,
        researcher_id=researcher_id,
        researcher_ids=[researcher_id],
        changes=changes,
        event=event,
    )


def authorship_confirm(
    *, authorship_id: int, editor, reason: str = CONFIRM_REASON, researcher_id: int | None = None
) -> CurationRecord:
    """Confirm an unconfirmed authorship: its researcher is right (one POST from the review queue).

    Only raises confidence (to :data:`curation.marks.CONFIDENCE_EDITOR` unless higher),
    clears ``unconfirmed``, appends an ``editor`` signal to the evidence and must-links the
    slot to its researcher's block anchor so a matcher re-run keeps them together. Returns
    the :class:`CurationRecord` (``kind=confirm``), undoable by
    :func:`curation.undo.curation_undo`. Errors: see :func:`confirm_check`.
    """
    with transaction.atomic():
        plan = confirm_check(authorship_id=authorship_id, researcher_id=researcher_id, reason=reason)
        return confirm_do(plan, editor=editor)
