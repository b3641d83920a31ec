"""Matcher constraints from editors: the must-link and cannot-link slot pairs the local matcher reads."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import connection
from django.db.models import Q

from wove.bulk import int_array

from .models import Authorship, MatchConstraint


def slots_by_block(researcher_id: int) -> dict[str, list[int]]:
    """A researcher's author-slot ids grouped by name block, ``{block: [slot ids, ascending]}``."""
    out: dict[str, list[int]] = defaultdict(list)
    for slot_id, block in (
        Authorship.objects.filter(researcher_id=researcher_id)
        .order_by("slot_id")
        .values_list("slot_id", "block")
    ):
        out[block].append(slot_id)
    return out


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def star(by_block: dict[str, list[int]]) -> tuple[set[tuple[int, int]], dict[str, int]]:
    """Must-link pairs holding a researcher's slots together, and each block's anchor slot.

    Per name block, every slot links to the block's lowest slot id (so the matcher, which
    reads constraints of the blocks it re-clusters, finds them); block anchors link to the
    lowest anchor. ``n`` slots give ``n - 1`` pairs.
    """
    anchors = {block: min(slots) for block, slots in by_block.items() if slots}
    pairs = {
        _pair(anchors[block], s) for block, slots in by_block.items() for s in slots if s != anchors[block]
    }
    if anchors:
        top = min(anchors.values())
        pairs |= {_pair(top, a) for a in anchors.values() if a != top}
    return pairs, anchors


def apart(left: dict[str, int], right: dict[str, int]) -> set[tuple[int, int]]:
    """Cannot-link pairs between two researchers' block anchors (blocks they share, else the
    lowest anchors): with the must-link stars, the matcher never puts the two together."""
    shared = set(left) & set(right)
    if shared:
        return {_pair(left[b], right[b]) for b in shared}
    if left and right:
        return {_pair(min(left.values()), min(right.values()))}
    return set()


# Every slot reachable from a start slot through must-links (either direction); UNION keeps
# each (start, slot) once, so the recursion ends on cycles.
_MUST_REACH_SQL = """
    WITH RECURSIVE reach(start, slot) AS (
        SELECT s, s FROM unnest(%s::bigint[]) AS s
        UNION
        SELECT r.start, CASE WHEN c.slot_a_id = r.slot THEN c.slot_b_id ELSE c.slot_a_id END
          FROM reach r
          JOIN researchers_matchconstraint c
            ON c.kind = 'must' AND (c.slot_a_id = r.slot OR c.slot_b_id = r.slot)
    )
    SELECT start, min(slot) FROM reach GROUP BY start
"""


def must_linked_groups(slot_ids: Iterable[int]) -> dict[int, int]:
    """Which of ``slot_ids`` an editor put on one person: ``{slot id: group label}``, the
    label being the lowest slot id joined to it through must-links, followed transitively
    (curation stores a merge as a star of pairs through block anchors, :func:`star`, so two
    slots of one researcher are rarely linked directly). Two slots with one label are one
    person by an editor's decision; a slot without must-links is its own label. One query.
    """
    ids = sorted(set(slot_ids))
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_MUST_REACH_SQL, [int_array(ids)])
        return dict(cursor.fetchall())


def constraints_apply(
    *,
    must: set[tuple[int, int]] = frozenset(),
    cannot: set[tuple[int, int]] = frozenset(),
    drop: Q | None = None,
) -> dict[str, list]:
    """Write matcher constraints and say exactly what changed, for an undo.

    ``must``/``cannot`` are ordered slot-id pairs (upserted: created, or their kind
    changed); ``drop`` selects existing constraints that contradict the decision (deleted).
    Returns ``{"created": [ids], "changed": [{id, kind, note}] (old values), "deleted":
    [full rows]}``.
    """
    wanted = {p: MatchConstraint.Kind.MUST for p in must}
    wanted.update({p: MatchConstraint.Kind.CANNOT for p in cannot})
    changes: dict[str, list] = {"created": [], "changed": [], "deleted": []}
    if drop is not None:
        doomed = list(
            MatchConstraint.objects.filter(drop)
            .order_by("pk")
            .values("id", "slot_a_id", "slot_b_id", "kind", "note", "created_at")
        )
        doomed = [row for row in doomed if (row["slot_a_id"], row["slot_b_id"]) not in wanted]
        MatchConstraint.objects.filter(pk__in=[row["id"] for row in doomed]).delete()
        changes["deleted"] = doomed
    if not wanted:
        return changes
    slot_as = {a for a, _b in wanted}
    existing = {
        (c.slot_a_id, c.slot_b_id): c
        for c in MatchConstraint.objects.filter(slot_a_id__in=slot_as).order_by("pk")
    }
    to_create = []
    for (a, b), kind in sorted(wanted.items()):
        current = existing.get((a, b))
        if current is None:
            to_create.append(MatchConstraint(slot_a_id=a, slot_b_id=b, kind=kind, note="curation"))
        elif current.kind != kind:
            changes["changed"].append({"id": current.pk, "kind": current.kind, "note": current.note})
            MatchConstraint.objects.filter(pk=current.pk).update(kind=kind, note="curation")
    created = MatchConstraint.objects.bulk_create(to_create, batch_size=2000)
    changes["created"] = sorted(c.pk for c in created)
    return changes


def constraints_revert(changes: dict[str, list]) -> None:
    """Undo :func:`constraints_apply` from the ``changes`` it returned: created rows are
    deleted, changed rows get their old kind and note, deleted rows come back with their ids."""
    MatchConstraint.objects.filter(pk__in=changes.get("created", [])).delete()
    for old in changes.get("changed", []):
        MatchConstraint.objects.filter(pk=old["id"]).update(kind=old["kind"], note=old["note"])
    MatchConstraint.objects.bulk_create(
        [
            MatchConstraint(
                id=row["id"],
                slot_a_id=row["slot_a_id"],
                slot_b_id=row["slot_b_id"],
                kind=row["kind"],
                note=row["note"],
                created_at=row["created_at"],
            )
            for row in changes.get("deleted", [])
        ]
    )
