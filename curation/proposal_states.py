"""What undoing a record does to a merge proposal's status (used by :mod:`curation.undo`).

A record that moved a proposal's status says so in ``changes["proposal_status"]``:
``{"proposal": id, "from": status or None, "to": status}`` (the proposal's own record:
``proposal`` and ``from`` ``None``). Kept apart from :mod:`curation.proposals`, which undoes through
:func:`curation.undo.curation_undo` (the owner's withdrawal).
"""

from __future__ import annotations

from .models import CurationRecord, MergeProposal


def _moved(record: CurationRecord) -> dict | None:
    return (record.changes or {}).get("proposal_status")


def _proposal_locked(record: CurationRecord, moved: dict) -> MergeProposal | None:
    """The proposal ``record`` moved, locked: named in ``moved`` by id, or (the proposal's
    own record, written before the proposal had an id) the one pointing at ``record``."""
    if moved.get("proposal") is None:
        return MergeProposal.objects.select_for_update().filter(record=record).first()
    return MergeProposal.objects.select_for_update().filter(pk=moved["proposal"]).first()


def proposal_undo_problems(record: CurationRecord) -> list[str]:
    """Why undoing ``record`` would clobber a later decision on its proposal: the proposal's
    status is no longer the one the record left (``[]``: none, or not a proposal's record).
    Locks the proposal."""
    moved = _moved(record)
    if not moved:
        return []
    proposal = _proposal_locked(record, moved)
    if proposal is None:
        return [f"the merge proposal of record #{record.pk} no longer exists"]
    if proposal.status != moved["to"]:
        return [f"merge proposal {proposal.pk} is {proposal.status} now, not {moved['to']}"]
    return []


def proposal_restore(record: CurationRecord) -> dict | None:
    """Revert the proposal status ``record`` set: a confirmation (the merge) or a refusal
    back to ``pending``, the proposal itself to ``withdrawn``. Returns ``{"proposal",
    "from", "to"}`` (what the undo did), or ``None`` for a record that set none."""
    moved = _moved(record)
    proposal = _proposal_locked(record, moved) if moved else None
    if proposal is None:
        return None
    back = MergeProposal.Status.WITHDRAWN if moved["from"] is None else moved["from"]
    MergeProposal.objects.filter(pk=proposal.pk).update(status=back)
    return {"proposal": proposal.pk, "from": moved["to"], "to": back}
