"""Splitting a researcher record: :func:`split_check` validates and locks, :func:`split_do` writes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from researchers.constraints import apart, constraints_apply, slots_by_block, star
from researchers.matching_common import researchers_refresh
from researchers.models import Authorship, ExternalIdentity, MatchConstraint, Researcher
from researchers.names import best_name

from .errors import CurationConflict, CurationError
from .marks import (
    CONFIDENCE_OWNER,
    editor_signal,
    marks_reassigned,
    marks_recompute,
    marks_snapshot,
    owner_signal,
)
from .models import CurationRecord
from .records import (
    EVENT_PAPER_ATTEMPTS,
    append_event,
    lock_researchers,
    moved_authorships_payload,
    next_record_id,
    require_reason,
    researcher_state,
    researcher_states,
    write_record,
)
from .signals import first_response, researcher_split_done


@dataclass
class SplitPlan:
    """A split :func:`split_check` accepted: ``wanted`` authorship ids (sorted), ``moving``
    their ``(id, researcher_id, slot name)`` rows (locked), ``identities`` the identity ids
    to move, ``rows`` the locked researchers; ``target_id`` ``None`` for a new record."""

    researcher_id: int
    target_id: int | None
    rows: dict[int, Researcher]
    wanted: list[int]
    moving: list[tuple[int, int, str]]
    identities: list[int]
    reason: str
    display_name: str


def _split_args(
    *, researcher_id: int, authorship_ids: Iterable[int], target_id: int | None
) -> tuple[int, list[int], int | None]:
    """Parse the ids; raises :class:`CurationError` without authorships or for the source as target."""
    wanted = sorted({int(i) for i in authorship_ids})
    if not wanted:
        raise CurationError("pick at least one authorship to move")
    researcher_id = int(researcher_id)
    target_id = int(target_id) if target_id else None
    if target_id == researcher_id:
        raise CurationError("the target must be another researcher")
    return researcher_id, wanted, target_id


def split_check(
    *,
    researcher_id: int,
    authorship_ids: Iterable[int],
    reason: str,
    target_id: int | None = None,
    display_name: str = "",
    identity_ids: Iterable[int] = (),
) -> SplitPlan:
    """Validate a split and lock its researchers and authorships (in id order).

    Must run inside a transaction; writes nothing. Raises :class:`CurationError` without a
    reason or authorships, :class:`CurationConflict` when a record is missing or merged away
    or an authorship or identity is not (any more) the researcher's.
    """
    reason = require_reason(reason)
    researcher_id, wanted, target_id = _split_args(
        researcher_id=researcher_id, authorship_ids=authorship_ids, target_id=target_id
    )
    rows = lock_researchers([researcher_id] + ([target_id] if target_id else []))
    for rid in [researcher_id] + ([target_id] if target_id else []):
        if rid not in rows:
            raise CurationConflict(f"no researcher {rid}")
        if rows[rid].merged_into_id:
            raise CurationConflict(f"researcher {rid} was merged into {rows[rid].merged_into_id}")
    moving = list(
        Authorship.objects.select_for_update(of=("self",))
        .filter(pk__in=wanted)
        .order_by("pk")
        .values_list("pk", "researcher_id", "slot__name")
    )
    strays = sorted(set(wanted) - {pk for pk, rid, _n in moving if rid == researcher_id})
    if strays:
        raise CurationConflict(f"authorships {strays} are not researcher {researcher_id}'s (any more)")
    identities = sorted({int(i) for i in identity_ids})
    if (
        identities
        and ExternalIdentity.objects.filter(pk__in=identities).exclude(researcher_id=researcher_id).exists()
    ):
        raise CurationConflict(f"some identities are not researcher {researcher_id}'s")
    return SplitPlan(researcher_id, target_id, rows, wanted, moving, identities, reason, display_name)


def _split_constraints(researcher_id: int, target_id: int) -> dict[str, list]:
    """Must-links holding each side together, cannot-links between them; must-links across dropped."""
    source_slots, target_slots = slots_by_block(researcher_id), slots_by_block(target_id)
    must_source, anchors_source = star(source_slots)
    must_target, anchors_target = star(target_slots)
    left = [s for block in source_slots.values() for s in block]
    right = [s for block in target_slots.values() for s in block]
    return constraints_apply(
        must=must_source | must_target,
        cannot=apart(anchors_source, anchors_target),
        drop=Q(kind=MatchConstraint.Kind.MUST)
        & (Q(slot_a_id__in=left, slot_b_id__in=right) | Q(slot_a_id__in=right, slot_b_id__in=left)),
    )


def _split_event(
    plan: SplitPlan,
    *,
    record_id: int,
    target_id: int,
    created: int | None,
    moved_authorships: list[dict],
    action: str = "split",
) -> tuple[str, list[int]]:
    """Append the signed ``researcher_split`` event (``action`` ``split``, or ``reassign`` for
    :mod:`curation.reassign`); returns its id and the papers tried (at most 10)."""
    paper_ids = list(
        Authorship.objects.filter(pk__in=plan.wanted).order_by("pk").values_list("paper_id", flat=True)[:10]
    )
    payload = {
        "curation_id": record_id,
        "action": action,
        "source": plan.researcher_id,
        "target": target_id,
        "target_created": created is not None,
        "reason": plan.reason,
        "authorships": moved_authorships_payload(moved_authorships),
    }
    event = append_event(event_type="researcher_split", payload=payload, paper_ids=paper_ids)
    return event, paper_ids


def _split_target(plan: SplitPlan) -> tuple[int, int | None]:
    """The target's id, creating it when the plan has none (named ``display_name``, else the
    best spelled name of the moved slots); returns ``(target_id, created id or None)``."""
    if plan.target_id is not None:
        return plan.target_id, None
    name = (plan.display_name or "").strip()[:300] or best_name(n for _pk, _r, n in plan.moving)[:300]
    target = Researcher.objects.create(display_name=name)
    plan.rows[target.pk] = target
    return target.pk, target.pk


def _split_kind(*, reassign: bool, by_owner: bool, take: bool = False) -> tuple[str, str]:
    """The event's ``action`` and the record's kind: ``split``, ``reassign`` (an editor's, of
    one authorship), ``not_mine`` or ``take`` (the owner's, issue 31)."""
    if reassign and by_owner:
        return ("take", CurationRecord.Kind.TAKE) if take else ("not_mine", CurationRecord.Kind.NOT_MINE)
    if reassign:
        return "reassign", CurationRecord.Kind.REASSIGN
    return "split", CurationRecord.Kind.SPLIT


def _mark_moved(
    plan: SplitPlan, *, editor, record_id: int, owner_strong: bool | None, take: bool = False
) -> None:
    """The moved links become the decider's (:func:`curation.marks.marks_reassigned`) with an
    ``editor`` signal, or an ``owner`` one when ``owner_strong`` is not ``None``: ``rejected``
    (not mine), or ``taken`` at the owner's confidence (the owner took the paper)."""
    if owner_strong is not None:
        signal = owner_signal(
            user=editor,
            action="taken" if take else "rejected",
            record_id=record_id,
            strong=owner_strong,
            from_researcher=plan.researcher_id,
        )
        if take:
            marks_reassigned(plan.wanted, signal=signal, confidence=CONFIDENCE_OWNER)
            return
    else:
        signal = editor_signal(
            editor=editor, action="reassigned", record_id=record_id, from_researcher=plan.researcher_id
        )
    marks_reassigned(plan.wanted, signal=signal)


def split_do(
    plan: SplitPlan,
    *,
    editor,
    reassign: bool = False,
    owner_strong: bool | None = None,
    owner_take: bool = False,
    changes_extra: dict | None = None,
) -> CurationRecord:
    """Carry out a checked split (in the transaction of :func:`split_check`).

    Creates the target when needed, moves the authorships and identities, recomputes both
    records, writes the matcher constraints and the signed event, then sends
    :data:`curation.signals.researcher_split_done` (accounts tells the source's followers;
    the count it returns is stored). Returns the :class:`CurationRecord` (``kind=split``).

    ``reassign`` (:func:`curation.reassign.authorship_reassign`): the moved links become
    the editor's (:func:`curation.marks.marks_reassigned`; their old method, confidence,
    mark and evidence kept in ``changes["marks"]`` for the undo), and the record is
    ``kind=reassign``. ``owner_strong`` (not ``None``: :func:`curation.owner.authorship_not_mine`,
    with ``reassign``): the researcher who claimed the source said the papers are not theirs;
    ``editor`` is that user, the links' evidence an ``owner`` signal (``strong`` as given),
    the event's action ``not_mine`` and the record ``kind=not_mine``. With ``owner_take``
    too (:func:`curation.take.authorship_take`): the owner of the target took the papers
    (signal ``taken``, confidence :data:`curation.marks.CONFIDENCE_OWNER`, action and kind
    ``take``, shown on the target's page). ``changes_extra`` joins ``changes``.
    """
    researcher_id = plan.researcher_id
    action, kind = _split_kind(reassign=reassign, by_owner=owner_strong is not None, take=owner_take)
    target_id, created = _split_target(plan)
    before = {str(pk): researcher_state(r) for pk, r in sorted(plan.rows.items()) if pk != created}
    marks = marks_snapshot(plan.wanted) if reassign else []
    moved_authorships = [{"id": pk, "from": researcher_id, "to": target_id} for pk, _r, _n in plan.moving]
    Authorship.objects.filter(pk__in=plan.wanted).update(researcher_id=target_id, modified_at=timezone.now())
    moved_identities = [{"id": pk, "from": researcher_id, "to": target_id} for pk in plan.identities]
    ExternalIdentity.objects.filter(pk__in=plan.identities).update(researcher_id=target_id)
    # Variants only the source's slots gave stay with it; refresh recomputes both from slots.
    researchers_refresh(researcher_ids=[researcher_id, target_id])
    constraints = _split_constraints(researcher_id, target_id)
    record_id = next_record_id()
    if reassign:
        _mark_moved(plan, editor=editor, record_id=record_id, owner_strong=owner_strong, take=owner_take)
    # The block gains a holder (or the source loses its last other paper): the marks follow.
    marks_recompute([researcher_id, target_id])
    event, paper_ids = _split_event(
        plan,
        record_id=record_id,
        target_id=target_id,
        created=created,
        moved_authorships=moved_authorships,
        action=action,
    )
    responses = researcher_split_done.send(
        sender=CurationRecord, researcher_id=researcher_id, new_researcher_id=target_id, record_id=record_id
    )
    changes = {
        "source": researcher_id,
        "target": target_id,
        "created_researcher": created,
        "before": before,
        "after": researcher_states([researcher_id, target_id]),
        "authorships": moved_authorships,
        "identities": moved_identities,
        "constraints": constraints,
        "followers_notified": first_response(responses, None),
        "event_papers": paper_ids[:EVENT_PAPER_ATTEMPTS],
    }
    if reassign:
        changes["marks"] = [{**mark, "researcher": target_id} for mark in marks]
    changes.update(changes_extra or {})
    return write_record(
        record_id=record_id,
        kind=kind,
        editor=editor,
        reason=plan.reason,
        researcher_id=target_id if owner_take else researcher_id,
        researcher_ids=[researcher_id, target_id],
        changes=changes,
        event=event,
    )


def researcher_split(
    *,
    researcher_id: int,
    authorship_ids: Iterable[int],
    editor,
    reason: str,
    target_id: int | None = None,
    display_name: str = "",
    identity_ids: Iterable[int] = (),
) -> CurationRecord:
    """Move some of a researcher's authorships (and optionally identities) to another record.

    The target is ``target_id`` (an active researcher) or, without it, a new researcher
    named ``display_name`` (default: the best spelled name of the moved slots). Both
    records' ``paper_count``/``name_variants`` are recomputed; the matcher gets must-links
    holding each side together and cannot-links between them, so a re-run never merges
    them back (must-links across the sides are dropped).

    Returns the :class:`CurationRecord` (``kind=split``) after appending a signed
    ``researcher_split`` event. Raises :class:`CurationError` without a reason or
    authorships, :class:`CurationConflict` when an authorship is not (any more) the
    researcher's or a record is merged away.
    """
    with transaction.atomic():
        plan = split_check(
            researcher_id=researcher_id,
            authorship_ids=authorship_ids,
            reason=reason,
            target_id=target_id,
            display_name=display_name,
            identity_ids=identity_ids,
        )
        return split_do(plan, editor=editor)
