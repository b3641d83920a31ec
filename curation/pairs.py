"""Same-name decisions ("not the same person"): `pair_check` validates and locks, `pair_do` writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from researchers.constraints import apart, constraints_apply, slots_by_block, star

from .errors import CurationConflict, CurationError
from .models import CurationRecord, PairDecision
from .records import lock_researchers, next_record_id, require_reason, write_record


@dataclass
class PairPlan:
    """A decision :func:`pair_check` accepted: the two researcher ids (``low < high``), locked."""

    low: int
    high: int
    reason: str


def pair_check(*, researcher_ids: Sequence[int], reason: str) -> PairPlan:
    """Validate a "not the same person" decision and lock both records.

    Must run inside a transaction; writes nothing. Raises :class:`CurationError` for
    anything but two distinct researchers or without a reason, :class:`CurationConflict`
    when the pair was decided already or a record is missing or merged away.
    """
    reason = require_reason(reason)
    ids = sorted({int(i) for i in researcher_ids})
    if len(ids) != 2:
        raise CurationError("a decision is about exactly two researchers")
    low, high = ids
    rows = lock_researchers(ids)
    for rid in ids:
        if rid not in rows:
            raise CurationConflict(f"no researcher {rid}")
        if rows[rid].merged_into_id:
            raise CurationConflict(f"researcher {rid} was merged into {rows[rid].merged_into_id}")
    if PairDecision.objects.filter(researcher_low=low, researcher_high=high).exists():
        raise CurationConflict(f"researchers {low} and {high} were already declared distinct")
    return PairPlan(low, high, reason)


def pair_do(plan: PairPlan, *, editor) -> CurationRecord:
    """Write a checked decision: cannot-links between the two records' block anchors, the
    ``kind=distinct`` :class:`CurationRecord` and the :class:`PairDecision`; returns the record."""
    low, high = plan.low, plan.high
    _must, anchors_low = star(slots_by_block(low))
    _must, anchors_high = star(slots_by_block(high))
    constraints = constraints_apply(cannot=apart(anchors_low, anchors_high))
    record = write_record(
        record_id=next_record_id(),
        kind=CurationRecord.Kind.DISTINCT,
        editor=editor,
        reason=plan.reason,
        researcher_id=low,
        researcher_ids=[low, high],
        changes={"pair": [low, high], "constraints": constraints},
        event="",
    )
    PairDecision.objects.create(researcher_low=low, researcher_high=high, record=record)
    return record


def pair_mark_distinct(*, researcher_ids: Sequence[int], editor, reason: str) -> CurationRecord:
    """Record that two researcher records are not the same person, for good.

    Writes a :class:`PairDecision` (the same-name queue never offers the pair again), a
    ``kind=distinct`` :class:`CurationRecord`, and cannot-link constraints between the
    two records' block anchors so a matcher re-run keeps them apart. Not undoable.
    Raises :class:`CurationError` for anything but two distinct researchers or without a
    reason, :class:`CurationConflict` when the pair was decided already or a record is
    merged away.
    """
    with transaction.atomic():
        return pair_do(pair_check(researcher_ids=researcher_ids, reason=reason), editor=editor)
