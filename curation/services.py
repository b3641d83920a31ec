"""Curation writes: merge, split and undo researcher identities; "not the same person" decisions."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.db.models import Model, Q

from papers.models import Paper
from researchers.models import Authorship, ExternalIdentity, MatchConstraint, Researcher
from researchers.services import researchers_refresh

from .models import CurationRecord, PairDecision

logger = logging.getLogger(__name__)

# Researcher columns a curation action may change and an undo restores (``modified_at`` is
# bookkeeping and ``created_at`` never changes).
RESEARCHER_FIELDS = ("display_name", "slug", "name_variants", "orcid", "merged_into_id", "paper_count")
# Papers tried, in order, to carry an action's signed provenance event.
EVENT_PAPER_ATTEMPTS = 3


class CurationError(Exception):
    """A curation request that cannot be carried out as asked (the message says why)."""


class OrcidConflict(CurationError):
    """The records to merge hold different ORCID iDs and the editor did not override."""


class CurationConflict(CurationError):
    """The records changed since the editor looked (merged meanwhile, moved by a later action)."""


# --------------------------------------------------------------------------- locking


def _lock_researchers(ids: Iterable[int]) -> dict[int, Researcher]:
    """Lock ``ids`` and every record merged into one of them, in one statement, by id.

    One global order (ascending id) for every curation transaction means two editors
    working on overlapping sets queue instead of deadlocking. Records merged into a locked
    one are locked too because a merge re-points them (chain flattening). A merge that
    committed while we waited can have pointed a new record at ours: it is found by a
    re-read once we hold the locks (nobody can add another then), and the locks are taken
    again in order with it, after rolling back a savepoint so none is held out of order.
    Must run inside a transaction. Returns ``{id: Researcher}`` (rows read under the lock).
    """
    core = sorted(set(ids))
    wanted: set[int] = set(core)
    while True:
        savepoint = transaction.savepoint()
        rows = {
            r.pk: r
            for r in Researcher.objects.select_for_update()
            .filter(Q(pk__in=wanted) | Q(merged_into_id__in=core))
            .order_by("pk")
        }
        pointing = set(Researcher.objects.filter(merged_into_id__in=core).values_list("pk", flat=True))
        if pointing <= set(rows):
            transaction.savepoint_commit(savepoint)
            return rows
        transaction.savepoint_rollback(savepoint)
        wanted |= pointing


def _state(researcher: Researcher) -> dict[str, Any]:
    return {field: getattr(researcher, field) for field in RESEARCHER_FIELDS}


def _states(ids: Iterable[int]) -> dict[str, dict[str, Any]]:
    rows = Researcher.objects.filter(pk__in=list(ids)).order_by("pk")
    return {str(r.pk): _state(r) for r in rows}


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise CurationError("a reason is required")
    return reason


# --------------------------------------------------------------------------- follows


def _follow_model() -> type[Model] | None:
    """The accounts ``Follow`` model when the accounts app is installed, else ``None``."""
    if not apps.is_installed("accounts"):
        return None
    try:
        return apps.get_model("accounts", "Follow")
    except LookupError:
        return None


def _accounts_function(name: str):
    """``accounts.services.<name>`` when the accounts app provides it, else ``None``.

    The accounts app owns follows (``follows_move``, ``follows_move_undo``,
    ``follows_note_split``); curation works without it.
    """
    if not apps.is_installed("accounts"):
        return None
    try:
        from accounts import services as account_services  # type: ignore[import-not-found]
    except ImportError:
        return None
    return getattr(account_services, name, None)


def _follow_rows(researcher_ids: Iterable[int]) -> list[dict[str, Any]]:
    model = _follow_model()
    if model is None:
        return []
    names = [f.attname for f in model._meta.concrete_fields]
    rows = model.objects.filter(researcher_id__in=list(researcher_ids)).order_by("pk").values(*names)
    return [dict(r) for r in rows]


def _follows_move(*, from_ids: Sequence[int], to_id: int) -> dict[str, Any]:
    """Move follows of ``from_ids`` to ``to_id`` through ``accounts.services.follows_move``.

    Returns what an undo needs: ``available`` (False without the accounts service),
    ``before`` (every follow row of the records involved, before the move), ``after_ids``
    (follow ids on them after) and ``moves`` (the service's own undo data, one per record).
    """
    move = _accounts_function("follows_move")
    if move is None or _follow_model() is None:
        return {"available": False}
    involved = [*from_ids, to_id]
    before = _follow_rows(involved)
    moves = [move(from_researcher_id=from_id, to_researcher_id=to_id) for from_id in from_ids]
    after_ids = [row["id"] for row in _follow_rows(involved)]
    return {"available": True, "before": before, "after_ids": after_ids, "moves": moves}


def _follows_restore(moved: dict[str, Any]) -> int:
    """Put follows back as they were before a merge; returns the number of follows restored.

    Through ``accounts.services.follows_move_undo`` (in reverse order of the moves) when it
    exists; otherwise from the row snapshot: rows the move created are deleted and every
    row that existed before gets its old values (and id) back. Follows made since the merge
    are left alone either way.
    """
    model = _follow_model()
    if not moved.get("available") or model is None:
        return 0
    undo = _accounts_function("follows_move_undo")
    if undo is not None and moved.get("moves") is not None:
        return sum(undo(undo=item) for item in reversed(moved["moves"]) if isinstance(item, dict))
    before = moved.get("before", [])
    before_ids = {row["id"] for row in before}
    created = set(moved.get("after_ids", [])) - before_ids
    written = model.objects.filter(pk__in=created).delete()[0]
    for row in before:
        values = {k: v for k, v in row.items() if k != "id"}
        model.objects.update_or_create(pk=row["id"], defaults=values)
        written += 1
    return written


def _follows_note_split(*, researcher_id: int, new_researcher_id: int, key: str) -> int | None:
    """Tell the source's followers about a split (``accounts.services.follows_note_split``)."""
    note = _accounts_function("follows_note_split")
    if note is None:
        return None
    return note(researcher_id=researcher_id, new_researcher_ids=[new_researcher_id], key=key)


# --------------------------------------------------------------------------- matcher constraints


def _slots_by_block(researcher_id: int) -> dict[str, list[int]]:
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


def _star(by_block: dict[str, list[int]]) -> tuple[set[tuple[int, int]], dict[str, int]]:
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


def _apart(left: dict[str, int], right: dict[str, int]) -> set[tuple[int, int]]:
    """Cannot-link pairs between two researchers' block anchors (blocks they share, else the
    lowest anchors): with the must-link stars, the matcher never puts the two together."""
    shared = set(left) & set(right)
    if shared:
        return {_pair(left[b], right[b]) for b in shared}
    if left and right:
        return {_pair(min(left.values()), min(right.values()))}
    return set()


def _constraints_apply(
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


def _constraints_revert(changes: dict[str, list]) -> None:
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


# --------------------------------------------------------------------------- records and events


def _next_record_id() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('curation_curationrecord', 'id'))")
        return cursor.fetchone()[0]


def _append_event(
    *, event_type: str, payload: dict, paper_ids: Sequence[int], supersedes: Sequence[str] = ()
) -> str:
    """Append the action's signed provenance event to the first paper that can carry it.

    Returns the event id (``sha256:<hex>``), or ``""`` when no paper could be signed (the
    curation record is still written; logged). Each attempt runs in a savepoint.
    """
    from provenance.services import event_append

    for paper in Paper.objects.filter(pk__in=list(paper_ids)[:50]).order_by("pk")[:EVENT_PAPER_ATTEMPTS]:
        try:
            with transaction.atomic():
                event = event_append(
                    subject=paper, event_type=event_type, payload=payload, supersedes=supersedes
                )
            return event.event_id
        except Exception:  # a paper that cannot be signed: try the next one
            logger.exception("curation: cannot append %s to paper %s", event_type, paper.pk)
    logger.warning("curation: %s written without a provenance event (no signable paper)", event_type)
    return ""


def _editor_name(editor) -> str:
    return editor.get_username() if editor is not None else ""


def _record(
    *,
    record_id: int,
    kind: str,
    editor,
    reason: str,
    researcher_id: int,
    researcher_ids: Iterable[int],
    changes: dict,
    event: str,
    override_orcid: bool = False,
    undoes: CurationRecord | None = None,
) -> CurationRecord:
    return CurationRecord.objects.create(
        id=record_id,
        kind=kind,
        editor=editor,
        editor_name=_editor_name(editor),
        reason=reason,
        researcher_id=researcher_id,
        researcher_ids=sorted(set(researcher_ids)),
        changes=changes,
        override_orcid=override_orcid,
        undoes=undoes,
        provenance_event=event,
    )


def _moved_authorships_payload(moved: list[dict]) -> list[dict]:
    slots = {
        a.pk: (a.paper.arxiv_id, a.slot.position)
        for a in Authorship.objects.filter(pk__in=[m["id"] for m in moved]).select_related("paper", "slot")
    }
    out = []
    for m in moved:
        arxiv_id, position = slots.get(m["id"], ("", 0))
        out.append({"arxiv_id": arxiv_id, "position": position, "from": m["from"], "to": m["to"]})
    return out


# --------------------------------------------------------------------------- merge


def researcher_merge(
    *, survivor_id: int, merged_ids: Iterable[int], editor, reason: str, override_orcid: bool = False
) -> CurationRecord:
    """Merge researcher records into ``survivor_id`` in one transaction (issue 6, "Merge").

    Moves every authorship, external identity, follow (through
    ``accounts.services.follows_move`` when present) and name variant of ``merged_ids`` to
    the survivor; sets ``merged_into`` on the merged records and re-points records merged
    into them at the survivor (chains flatten); gives the survivor the one ORCID iD when
    it had none; writes must-link constraints so the matcher keeps the merged slots
    together (and drops cannot-links among them). Rows are locked in id order
    (:func:`_lock_researchers`).

    Returns the append-only :class:`CurationRecord` (``kind=merge``; ``changes`` lists
    exactly what moved) after appending a signed ``researcher_merged`` provenance event.
    Raises :class:`CurationError` without a reason or with nothing to merge,
    :class:`OrcidConflict` for two different ORCID iDs unless ``override_orcid``,
    :class:`CurationConflict` when a record is missing or was merged away meanwhile.
    """
    reason = _require_reason(reason)
    merged = sorted({int(i) for i in merged_ids} - {int(survivor_id)})
    if not merged:
        raise CurationError("choose at least one record besides the survivor")
    survivor_id = int(survivor_id)
    core = sorted({survivor_id, *merged})
    with transaction.atomic():
        rows = _lock_researchers(core)
        missing = [i for i in core if i not in rows]
        if missing:
            raise CurationConflict(f"no researcher {', '.join(map(str, missing))}")
        gone = [i for i in core if rows[i].merged_into_id]
        if gone:
            raise CurationConflict(
                "already merged away meanwhile: "
                + ", ".join(f"{i} (into {rows[i].merged_into_id})" for i in gone)
                + "; reload the comparison"
            )
        orcids = sorted({rows[i].orcid for i in core if rows[i].orcid})
        if len(orcids) > 1 and not override_orcid:
            raise OrcidConflict(
                f"these records hold different ORCID iDs ({', '.join(orcids)}); "
                "merge only if they are one person, overriding with a reason"
            )
        before = {str(pk): _state(r) for pk, r in sorted(rows.items())}

        moved_authorships = [
            {"id": pk, "from": rid, "to": survivor_id}
            for pk, rid in Authorship.objects.filter(researcher_id__in=merged)
            .order_by("pk")
            .values_list("pk", "researcher_id")
        ]
        Authorship.objects.filter(pk__in=[m["id"] for m in moved_authorships]).update(
            researcher_id=survivor_id
        )
        moved_identities = [
            {"id": pk, "from": rid, "to": survivor_id}
            for pk, rid in ExternalIdentity.objects.filter(researcher_id__in=merged)
            .order_by("pk")
            .values_list("pk", "researcher_id")
        ]
        ExternalIdentity.objects.filter(pk__in=[m["id"] for m in moved_identities]).update(
            researcher_id=survivor_id
        )
        follows = _follows_move(from_ids=merged, to_id=survivor_id)

        orcid_moved = None
        if not rows[survivor_id].orcid and len(orcids) == 1:
            holder = next(i for i in merged if rows[i].orcid == orcids[0])
            Researcher.objects.filter(pk=holder).update(orcid=None)
            Researcher.objects.filter(pk=survivor_id).update(orcid=orcids[0])
            orcid_moved = {"orcid": orcids[0], "from": holder, "to": survivor_id}

        flattened = [
            {"id": pk, "from": r.merged_into_id, "to": survivor_id}
            for pk, r in sorted(rows.items())
            if r.merged_into_id in merged
        ]
        Researcher.objects.filter(pk__in=[f["id"] for f in flattened] + merged).update(
            merged_into_id=survivor_id
        )

        researchers_refresh(researcher_ids=core)
        refreshed = Researcher.objects.get(pk=survivor_id).name_variants
        variants = sorted(set(refreshed).union(*(rows[i].name_variants for i in core)))
        Researcher.objects.filter(pk=survivor_id).update(name_variants=variants)
        variants_added = sorted(set(variants) - set(rows[survivor_id].name_variants))

        slots = _slots_by_block(survivor_id)
        all_slots = [s for block in slots.values() for s in block]
        must, _anchors = _star(slots)
        constraints = _constraints_apply(
            must=must,
            drop=Q(kind=MatchConstraint.Kind.CANNOT, slot_a_id__in=all_slots, slot_b_id__in=all_slots),
        )

        record_id = _next_record_id()
        paper_ids = list(
            Authorship.objects.filter(pk__in=[m["id"] for m in moved_authorships])
            .order_by("pk")
            .values_list("paper_id", flat=True)[:10]
        ) or list(
            Authorship.objects.filter(researcher_id=survivor_id)
            .order_by("pk")
            .values_list("paper_id", flat=True)[:10]
        )
        payload = {
            "curation_id": record_id,
            "action": "merge",
            "survivor": survivor_id,
            "merged": merged,
            "reason": reason,
            "override_orcid": bool(override_orcid),
            "authorships": _moved_authorships_payload(moved_authorships),
            "identities": [
                {"source": s, "external_id": e}
                for s, e in ExternalIdentity.objects.filter(pk__in=[m["id"] for m in moved_identities])
                .order_by("pk")
                .values_list("source", "external_id")
            ],
        }
        event = _append_event(event_type="researcher_merged", payload=payload, paper_ids=paper_ids)
        changes = {
            "survivor": survivor_id,
            "merged": merged,
            "before": before,
            "after": _states(rows),
            "authorships": moved_authorships,
            "identities": moved_identities,
            "follows": follows,
            "orcid": orcid_moved,
            "flattened": flattened,
            "variants_added": variants_added,
            "constraints": constraints,
            "event_papers": paper_ids[:EVENT_PAPER_ATTEMPTS],
        }
        return _record(
            record_id=record_id,
            kind=CurationRecord.Kind.MERGE,
            editor=editor,
            reason=reason,
            researcher_id=survivor_id,
            researcher_ids=rows,
            changes=changes,
            event=event,
            override_orcid=bool(override_orcid and len(orcids) > 1),
        )


# --------------------------------------------------------------------------- split


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
    from researchers.services import _best_name  # the matcher's display-name rule

    reason = _require_reason(reason)
    wanted = sorted({int(i) for i in authorship_ids})
    if not wanted:
        raise CurationError("pick at least one authorship to move")
    researcher_id = int(researcher_id)
    target_id = int(target_id) if target_id else None
    if target_id == researcher_id:
        raise CurationError("the target must be another researcher")
    with transaction.atomic():
        rows = _lock_researchers([researcher_id] + ([target_id] if target_id else []))
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
            and ExternalIdentity.objects.filter(pk__in=identities)
            .exclude(researcher_id=researcher_id)
            .exists()
        ):
            raise CurationConflict(f"some identities are not researcher {researcher_id}'s")

        created = None
        if target_id is None:
            name = (display_name or "").strip()[:300] or _best_name(n for _pk, _r, n in moving)[:300]
            target = Researcher.objects.create(display_name=name)
            target_id = created = target.pk
            rows[target_id] = target
        before = {str(pk): _state(r) for pk, r in sorted(rows.items()) if pk != created}

        moved_authorships = [{"id": pk, "from": researcher_id, "to": target_id} for pk, _r, _n in moving]
        Authorship.objects.filter(pk__in=wanted).update(researcher_id=target_id)
        moved_identities = [{"id": pk, "from": researcher_id, "to": target_id} for pk in identities]
        ExternalIdentity.objects.filter(pk__in=identities).update(researcher_id=target_id)
        researchers_refresh(researcher_ids=[researcher_id, target_id])
        # Variants only the source's slots gave stay with it; refresh recomputed both from slots.

        source_slots, target_slots = _slots_by_block(researcher_id), _slots_by_block(target_id)
        must_source, anchors_source = _star(source_slots)
        must_target, anchors_target = _star(target_slots)
        left = [s for block in source_slots.values() for s in block]
        right = [s for block in target_slots.values() for s in block]
        constraints = _constraints_apply(
            must=must_source | must_target,
            cannot=_apart(anchors_source, anchors_target),
            drop=Q(kind=MatchConstraint.Kind.MUST)
            & (Q(slot_a_id__in=left, slot_b_id__in=right) | Q(slot_a_id__in=right, slot_b_id__in=left)),
        )

        record_id = _next_record_id()
        paper_ids = list(
            Authorship.objects.filter(pk__in=wanted).order_by("pk").values_list("paper_id", flat=True)[:10]
        )
        payload = {
            "curation_id": record_id,
            "action": "split",
            "source": researcher_id,
            "target": target_id,
            "target_created": created is not None,
            "reason": reason,
            "authorships": _moved_authorships_payload(moved_authorships),
        }
        event = _append_event(event_type="researcher_split", payload=payload, paper_ids=paper_ids)
        notified = _follows_note_split(
            researcher_id=researcher_id, new_researcher_id=target_id, key=f"curation:{record_id}"
        )
        changes = {
            "source": researcher_id,
            "target": target_id,
            "created_researcher": created,
            "before": before,
            "after": _states([researcher_id, target_id]),
            "authorships": moved_authorships,
            "identities": moved_identities,
            "constraints": constraints,
            "followers_notified": notified,
            "event_papers": paper_ids[:EVENT_PAPER_ATTEMPTS],
        }
        return _record(
            record_id=record_id,
            kind=CurationRecord.Kind.SPLIT,
            editor=editor,
            reason=reason,
            researcher_id=researcher_id,
            researcher_ids=[researcher_id, target_id],
            changes=changes,
            event=event,
        )


# --------------------------------------------------------------------------- undo


def _check_moved(model, moved: list[dict], label: str) -> list[str]:
    current = dict(model.objects.filter(pk__in=[m["id"] for m in moved]).values_list("pk", "researcher_id"))
    problems = []
    for m in moved:
        if m["id"] in current and current[m["id"]] != m["to"]:
            problems.append(f"{label} {m['id']} is now on researcher {current[m['id']]}")
    return problems


def _move_back(model, moved: list[dict]) -> None:
    """Return moved rows to their old researcher: one UPDATE per (from, to) pair, not per row."""
    by_move: dict[tuple[int, int], list[int]] = defaultdict(list)
    for m in moved:
        by_move[(m["from"], m["to"])].append(m["id"])
    for (old, new), ids in sorted(by_move.items()):
        model.objects.filter(pk__in=ids, researcher_id=new).update(researcher_id=old)


def curation_undo(*, record_id: int, editor, reason: str) -> CurationRecord:
    """Undo a merge or split: the state before it comes back exactly, as a new record.

    Restores authorships, external identities, follows, ORCID iDs, ``merged_into``
    (including flattened chains), every researcher column of the ``before`` snapshot,
    the matcher constraints the action wrote, changed or dropped, and deletes the
    researcher a split created. Authorships deleted since (a paper lost an author) are
    skipped. The original record stays; the undo is a ``kind=undo`` record pointing at it,
    with a signed ``curation_undone`` event superseding the original event.

    Raises :class:`CurationError` without a reason, for an undo of an undo or of a record
    already undone; :class:`CurationConflict` when a later action moved the same rows
    (undo that one first).
    """
    reason = _require_reason(reason)
    with transaction.atomic():
        try:
            original = CurationRecord.objects.select_for_update().get(pk=record_id)
        except CurationRecord.DoesNotExist as exc:
            raise CurationError(f"no curation record {record_id}") from exc
        if original.kind not in (CurationRecord.Kind.MERGE, CurationRecord.Kind.SPLIT):
            raise CurationError(f"a {original.get_kind_display().lower()} record cannot be undone")
        if CurationRecord.objects.filter(undoes=original).exists():
            raise CurationError(f"record {record_id} was already undone")
        changes = original.changes
        created = changes.get("created_researcher")
        involved = [int(pk) for pk in changes["before"]] + ([created] if created else [])
        rows = _lock_researchers(involved)

        problems = _check_moved(Authorship, changes["authorships"], "authorship")
        problems += _check_moved(ExternalIdentity, changes["identities"], "identity")
        for pk, after in changes["after"].items():
            row = rows.get(int(pk))
            if row is None:
                problems.append(f"researcher {pk} no longer exists")
            elif row.merged_into_id != after["merged_into_id"] or row.orcid != after["orcid"]:
                problems.append(f"researcher {pk} changed since (merged or ORCID iD)")
        if created:
            created_row = rows.get(created)
            if created_row is not None and (
                created_row.merged_from.exists()
                or Authorship.objects.filter(researcher_id=created)
                .exclude(pk__in=[m["id"] for m in changes["authorships"]])
                .exists()
                or ExternalIdentity.objects.filter(researcher_id=created)
                .exclude(pk__in=[m["id"] for m in changes["identities"]])
                .exists()
            ):
                problems.append(f"researcher {created} (created by the split) gained other records since")
        if problems:
            later = list(
                CurationRecord.objects.filter(researcher_ids__overlap=involved, id__gt=original.pk)
                .exclude(kind=CurationRecord.Kind.DISTINCT)
                .values_list("pk", flat=True)
            )
            hint = f"; undo later record(s) {', '.join(f'#{p}' for p in later)} first" if later else ""
            raise CurationConflict("; ".join(problems) + hint)

        _move_back(Authorship, changes["authorships"])
        _move_back(ExternalIdentity, changes["identities"])
        _follows_restore(changes.get("follows") or {})
        _constraints_revert(changes.get("constraints") or {})

        before = changes["before"]
        # ORCID iDs are unique: clear every involved one before writing the old values back.
        Researcher.objects.filter(pk__in=[int(pk) for pk in before]).update(orcid=None)
        for pk, state in before.items():
            Researcher.objects.filter(pk=int(pk)).update(**state)
        if created:
            follow_model = _follow_model()
            if follow_model is not None:
                follow_model.objects.filter(researcher_id=created).delete()
            Researcher.objects.filter(pk=created).delete()
        # Authorships attached since (new papers) change the counts the snapshot holds.
        stale = [
            int(pk)
            for pk, state in before.items()
            if Authorship.objects.filter(researcher_id=int(pk)).values("paper_id").distinct().count()
            != state["paper_count"]
        ]
        if stale:
            researchers_refresh(researcher_ids=stale)
            for pk in stale:
                current = Researcher.objects.get(pk=pk).name_variants
                Researcher.objects.filter(pk=pk).update(
                    name_variants=sorted(set(current) | set(before[str(pk)]["name_variants"]))
                )

        record_id_new = _next_record_id()
        supersedes = [original.provenance_event] if original.provenance_event else []
        payload = {
            "curation_id": record_id_new,
            "action": "undo",
            "undoes": original.pk,
            "undone_action": original.kind,
            "reason": reason,
            "researchers": sorted(int(pk) for pk in before),
        }
        event = _append_event(
            event_type="curation_undone",
            payload=payload,
            paper_ids=changes.get("event_papers") or [],
            supersedes=supersedes,
        )
        return _record(
            record_id=record_id_new,
            kind=CurationRecord.Kind.UNDO,
            editor=editor,
            reason=reason,
            researcher_id=original.researcher_id,
            researcher_ids=original.researcher_ids,
            changes={"undoes": original.pk, "restored": before, "deleted_researcher": created},
            event=event,
            undoes=original,
        )


# --------------------------------------------------------------------------- same-name decisions


def pair_mark_distinct(*, researcher_ids: Sequence[int], editor, reason: str) -> CurationRecord:
    """Record that two researcher records are not the same person, for good.

    Writes a :class:`PairDecision` (the same-name queue never offers the pair again), a
    ``kind=distinct`` :class:`CurationRecord`, and cannot-link constraints between the
    two records' block anchors so a matcher re-run keeps them apart. Not undoable.
    Raises :class:`CurationError` for anything but two distinct researchers or without a
    reason, :class:`CurationConflict` when the pair was decided already or a record is
    merged away.
    """
    reason = _require_reason(reason)
    ids = sorted({int(i) for i in researcher_ids})
    if len(ids) != 2:
        raise CurationError("a decision is about exactly two researchers")
    low, high = ids
    with transaction.atomic():
        rows = _lock_researchers(ids)
        for rid in ids:
            if rid not in rows:
                raise CurationConflict(f"no researcher {rid}")
            if rows[rid].merged_into_id:
                raise CurationConflict(f"researcher {rid} was merged into {rows[rid].merged_into_id}")
        if PairDecision.objects.filter(researcher_low=low, researcher_high=high).exists():
            raise CurationConflict(f"researchers {low} and {high} were already declared distinct")
        _must, anchors_low = _star(_slots_by_block(low))
        _must, anchors_high = _star(_slots_by_block(high))
        constraints = _constraints_apply(cannot=_apart(anchors_low, anchors_high))
        record = _record(
            record_id=_next_record_id(),
            kind=CurationRecord.Kind.DISTINCT,
            editor=editor,
            reason=reason,
            researcher_id=low,
            researcher_ids=ids,
            changes={"pair": ids, "constraints": constraints},
            event="",
        )
        PairDecision.objects.create(researcher_low=low, researcher_high=high, record=record)
        return record
