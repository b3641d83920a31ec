"""Undoing a curation action: :func:`undo_check` validates and locks, :func:`undo_do` restores."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from provenance.attestations import attestation_events
from researchers.constraints import constraints_revert
from researchers.matching_common import researchers_refresh
from researchers.models import Authorship, ExternalIdentity, Researcher, SlotReview

from .claims import claim_restore, claim_undo_problems
from .errors import CurationConflict, CurationError
from .marks import marks_recompute, marks_restore
from .models import UNDOABLE_KINDS, CurationRecord
from .names import name_fields_kept, names_undo_problems
from .proposal_states import proposal_restore, proposal_undo_problems
from .records import (
    append_event,
    attestations_withdraw,
    lock_researchers,
    next_record_id,
    require_reason,
    write_record,
)
from .signals import curation_undone


@dataclass
class UndoPlan:
    """An undo :func:`undo_check` accepted: the ``original`` record (locked), its ``changes``,
    the researcher a split ``created`` (or ``None``), the ``involved`` ids and their locked ``rows``."""

    original: CurationRecord
    changes: dict[str, Any]
    created: int | None
    involved: list[int]
    rows: dict[int, Researcher]
    reason: str


def _check_moved(model: type[Model], moved: list[dict], label: str) -> list[str]:
    current = dict(model.objects.filter(pk__in=[m["id"] for m in moved]).values_list("pk", "researcher_id"))
    problems = []
    for m in moved:
        if m["id"] in current and current[m["id"]] != m["to"]:
            problems.append(f"{label} {m['id']} is now on researcher {current[m['id']]}")
    return problems


def _created_gained_records(plan: UndoPlan) -> bool:
    """Whether the researcher the split created holds anything the split did not put there."""
    created_row = plan.rows.get(plan.created)
    return created_row is not None and (
        created_row.merged_from.exists()
        or Authorship.objects.filter(researcher_id=plan.created)
        .exclude(pk__in=[m["id"] for m in plan.changes["authorships"]])
        .exists()
        or ExternalIdentity.objects.filter(researcher_id=plan.created)
        .exclude(pk__in=[m["id"] for m in plan.changes["identities"]])
        .exists()
    )


def _undo_problems(plan: UndoPlan) -> list[str]:
    """What changed since the action so that undoing it would clobber a later one (``[]``: none)."""
    changes = plan.changes
    problems = _check_moved(Authorship, changes["authorships"], "authorship")
    problems += _check_moved(ExternalIdentity, changes["identities"], "identity")
    # A confirmed link moved since (reassigned, merged): its old mark belongs to the old link.
    marked = [{"id": m["id"], "to": m["researcher"]} for m in changes.get("marks") or []]
    problems += [p for p in _check_moved(Authorship, marked, "authorship") if p not in problems]
    # An authorship the action created (an owner's take from the review queue) moved since.
    created = [{"id": c["id"], "to": c["researcher"]} for c in changes.get("created_authorships") or []]
    problems += _check_moved(Authorship, created, "authorship")
    for pk, after in changes["after"].items():
        row = plan.rows.get(int(pk))
        if row is None:
            problems.append(f"researcher {pk} no longer exists")
        elif row.merged_into_id != after["merged_into_id"] or row.orcid != after["orcid"]:
            problems.append(f"researcher {pk} changed since (merged or ORCID iD)")
    if plan.created and _created_gained_records(plan):
        problems.append(f"researcher {plan.created} (created by the split) gained other records since")
    return (
        problems
        + names_undo_problems(plan.original, plan.rows)
        + claim_undo_problems(plan.original)
        + proposal_undo_problems(plan.original)
    )


def _original_locked(record_id: int) -> CurationRecord:
    """The record to undo, locked; raises :class:`CurationError` when it is missing, not
    undoable (:data:`curation.models.UNDOABLE_KINDS`), or undone already."""
    try:
        original = CurationRecord.objects.select_for_update().get(pk=record_id)
    except CurationRecord.DoesNotExist as exc:
        raise CurationError(f"no curation record {record_id}") from exc
    if original.kind not in UNDOABLE_KINDS:
        raise CurationError(f"a {original.get_kind_display().lower()} record cannot be undone")
    if CurationRecord.objects.filter(undoes=original).exists():
        raise CurationError(f"record {record_id} was already undone")
    return original


def undo_check(*, record_id: int, reason: str) -> UndoPlan:
    """Validate an undo and lock the record and its researchers (in id order).

    Must run inside a transaction; writes nothing. Raises :class:`CurationError` without a
    reason, for an undo of an undo or of a record already undone; :class:`CurationConflict`
    when a later action moved the same rows (its message names the later records to undo first).
    """
    reason = require_reason(reason)
    original = _original_locked(record_id)
    changes = original.changes
    created = changes.get("created_researcher")
    involved = [int(pk) for pk in changes["before"]] + ([created] if created else [])
    plan = UndoPlan(original, changes, created, involved, lock_researchers(involved), reason)
    problems = _undo_problems(plan)
    if problems:
        later = list(
            CurationRecord.objects.filter(researcher_ids__overlap=involved, id__gt=original.pk)
            .exclude(kind=CurationRecord.Kind.DISTINCT)
            .values_list("pk", flat=True)
        )
        hint = f"; undo later record(s) {', '.join(f'#{p}' for p in later)} first" if later else ""
        raise CurationConflict("; ".join(problems) + hint)
    return plan


def _move_back(model: type[Model], moved: list[dict], **also) -> None:
    """Return moved rows to their old researcher, writing ``also`` too (an authorship's
    ``modified_at``): one UPDATE per (from, to) pair, not per row."""
    by_move: dict[tuple[int, int], list[int]] = defaultdict(list)
    for m in moved:
        by_move[(m["from"], m["to"])].append(m["id"])
    for (old, new), ids in sorted(by_move.items()):
        model.objects.filter(pk__in=ids, researcher_id=new).update(researcher_id=old, **also)


def _restore_researchers(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], created: int | None
) -> None:
    """Write the ``before`` snapshot back (but the names the record did not change:
    :func:`curation.names.name_fields_kept`), delete the researcher a split created and
    refresh the records whose paper count or declared names differ from the snapshot
    (keeping the old variants too)."""
    # ORCID iDs are unique: clear every involved one before writing the old values back.
    # QuerySet.update skips auto_now: the paper API's Last-Modified reads modified_at, and
    # an undo is a change (the time moves forward, never back to the snapshot's).
    now = timezone.now()
    Researcher.objects.filter(pk__in=[int(pk) for pk in before]).update(orcid=None, modified_at=now)
    for pk, state in before.items():
        kept = name_fields_kept(state, after.get(pk))
        restored = {field: value for field, value in state.items() if field not in kept}
        Researcher.objects.filter(pk=int(pk)).update(**restored, modified_at=now)
    if created:
        Researcher.objects.filter(pk=created).delete()
    # Authorships attached since (new papers) change the counts the snapshot holds; names
    # the owner declared since (kept) are not among the snapshot's variants.
    declared = dict(
        Researcher.objects.filter(pk__in=[int(pk) for pk in before]).values_list("pk", "declared_names")
    )
    stale = [
        int(pk)
        for pk, state in before.items()
        if Authorship.objects.filter(researcher_id=int(pk)).values("paper_id").distinct().count()
        != state["paper_count"]
        or not set(declared.get(int(pk)) or ()) <= set(state["name_variants"])
    ]
    if stale:
        researchers_refresh(researcher_ids=stale)
        for pk in stale:
            current = Researcher.objects.get(pk=pk).name_variants
            Researcher.objects.filter(pk=pk).update(
                name_variants=sorted(set(current) | set(before[str(pk)]["name_variants"])), modified_at=now
            )


def undo_do(plan: UndoPlan, *, editor) -> CurationRecord:
    """Carry out a checked undo (in the transaction of :func:`undo_check`).

    Moves authorships and identities back, sends :data:`curation.signals.curation_undone`
    (accounts restores follows and drops those of a created researcher), reverts the
    matcher constraints, restores the researchers and appends a signed ``curation_undone``
    event superseding the original's. Returns the new ``kind=undo`` :class:`CurationRecord`.
    """
    original, changes, created = plan.original, plan.changes, plan.created
    _move_back(Authorship, changes["authorships"], modified_at=timezone.now())
    _move_back(ExternalIdentity, changes["identities"])
    ExternalIdentity.objects.filter(pk__in=changes.get("orcid_identities") or []).delete()
    # An owner's take from the review queue: the slot goes back to the queue.
    Authorship.objects.filter(pk__in=[c["id"] for c in changes.get("created_authorships") or []]).delete()
    if review := changes.get("slot_review"):
        SlotReview.objects.get_or_create(
            slot_id=review["slot"], defaults={"candidates": review["candidates"]}
        )
    curation_undone.send(
        sender=CurationRecord,
        undone_record_id=original.pk,
        follows=changes.get("follows") or {},
        deleted_researcher_id=created,
    )
    constraints_revert(changes.get("constraints") or {})
    marks_restore(changes.get("marks") or [])
    before = changes["before"]
    _restore_researchers(before, changes["after"], created)
    # The links are back where they were: their marks are the ones that state gives.
    marks_recompute(int(pk) for pk in before)
    claim = claim_restore(original)
    proposal = proposal_restore(original)
    record_id = next_record_id()
    payload = {
        "curation_id": record_id,
        "action": "undo",
        "undoes": original.pk,
        "undone_action": original.kind,
        "reason": plan.reason,
        "researchers": sorted(int(pk) for pk in before),
    }
    attested = attestation_events(curation_id=original.pk)
    withdrawn = attestations_withdraw(attested, payload)
    event = append_event(
        event_type="curation_undone",
        payload=payload,
        paper_ids=changes.get("event_papers") or [],
        supersedes=[original.provenance_event] if original.provenance_event else [],
    ) or (withdrawn[0] if withdrawn else "")
    return write_record(
        record_id=record_id,
        kind=CurationRecord.Kind.UNDO,
        editor=editor,
        reason=plan.reason,
        researcher_id=original.researcher_id,
        researcher_ids=original.researcher_ids,
        changes={
            "undoes": original.pk,
            "restored": before,
            "deleted_researcher": created,
            **({"claim_restored": claim} if claim else {}),
            **({"proposal_restored": proposal} if proposal else {}),
        },
        event=event,
        undoes=original,
    )


def curation_undo(*, record_id: int, editor, reason: str) -> CurationRecord:
    """Undo a merge, split, confirmation, reassignment, claim, claim decision, owner's mark,
    take, name, merge proposal or refusal: the state before it comes back exactly, as a new
    record.

    Restores authorships (and the method, confidence, mark and evidence an editor's
    confirmation or reassignment changed), external identities, follows (accounts, through
    :data:`curation.signals.curation_undone`), ORCID iDs, ``merged_into`` (including
    flattened chains), every researcher column of the ``before`` snapshot (display name,
    slug and the names the owner declared only where the action changed them: names given
    since an unrelated action stay), the matcher constraints the action wrote, changed or
    dropped, the status of a researcher's claim
    (:func:`curation.claims.claim_restore`: a claim withdrawn, an editor's approval or
    refusal back to waiting) and of a merge proposal
    (:func:`curation.proposal_states.proposal_restore`: the proposal withdrawn, a
    confirmation or refusal back to waiting), and deletes the researcher a split created and
    the authorship an owner's take from the review queue created (the slot waits for review
    again). Authorships deleted since (a paper lost an author) are skipped. The original
    record stays; the undo is a ``kind=undo`` record pointing at it, with a signed
    ``curation_undone`` event superseding the original event.

    Raises :class:`CurationError` without a reason, for an undo of an undo or of a record
    already undone; :class:`CurationConflict` when a later action moved the same rows or
    changed again the names this one changed (:func:`curation.names.names_undo_problems`;
    undo that one first).
    """
    with transaction.atomic():
        plan = undo_check(record_id=record_id, reason=reason)
        return undo_do(plan, editor=editor)
