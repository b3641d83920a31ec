"""Follows kept right when editors curate researchers: receivers of :mod:`curation.signals`.

Connected in :meth:`accounts.apps.AccountsConfig.ready`; each runs inside the curation
transaction, and what it returns is stored in the curation record when the undo needs it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .models import Follow
from .services import follows_move, follows_move_undo, follows_note_split


def _follow_rows(researcher_ids: Iterable[int]) -> list[dict[str, Any]]:
    names = [f.attname for f in Follow._meta.concrete_fields]
    rows = Follow.objects.filter(researcher_id__in=list(researcher_ids)).order_by("pk").values(*names)
    return [dict(r) for r in rows]


def follows_move_on_merge(sender, *, survivor_id: int, merged_ids: list[int], **kwargs) -> dict[str, Any]:
    """Move the follows of ``merged_ids`` to ``survivor_id`` (:func:`accounts.services.follows_move`).

    Returns what an undo needs: ``available`` (True), ``before`` (every follow row of the
    records involved, before the move), ``after_ids`` (follow ids on them after) and
    ``moves`` (the service's own undo data, one per merged record).
    """
    involved = [*merged_ids, survivor_id]
    before = _follow_rows(involved)
    moves = [follows_move(from_researcher_id=from_id, to_researcher_id=survivor_id) for from_id in merged_ids]
    after_ids = [row["id"] for row in _follow_rows(involved)]
    return {"available": True, "before": before, "after_ids": after_ids, "moves": moves}


def _follows_restore_from_snapshot(moved: dict[str, Any]) -> int:
    """Rows the move created are deleted and every row that existed before gets its old
    values (and id) back: for stored merges without the service's ``moves``."""
    before = moved.get("before", [])
    before_ids = {row["id"] for row in before}
    created = set(moved.get("after_ids", [])) - before_ids
    written = Follow.objects.filter(pk__in=created).delete()[0]
    for row in before:
        values = {k: v for k, v in row.items() if k != "id"}
        Follow.objects.update_or_create(pk=row["id"], defaults=values)
        written += 1
    return written


def follows_restore_on_undo(
    sender, *, follows: dict[str, Any], deleted_researcher_id: int | None, **kwargs
) -> int:
    """Put follows back as they were before a merge; returns the number of follows restored.

    ``follows`` is what :func:`follows_move_on_merge` returned (``{}`` for a split, whose
    undo restores none). Through :func:`accounts.services.follows_move_undo`, in reverse
    order of the moves; from the row snapshot when the moves are missing. Follows made since
    the merge are left alone either way. Follows of ``deleted_researcher_id`` (the record a
    split created, deleted by the undo) are deleted.
    """
    if deleted_researcher_id:
        Follow.objects.filter(researcher_id=deleted_researcher_id).delete()
    if not follows.get("available"):
        return 0
    if follows.get("moves") is not None:
        return sum(
            follows_move_undo(undo=item) for item in reversed(follows["moves"]) if isinstance(item, dict)
        )
    return _follows_restore_from_snapshot(follows)


def follows_note_on_split(
    sender, *, researcher_id: int, new_researcher_id: int, record_id: int, **kwargs
) -> int:
    """Tell the source's followers about a split (:func:`accounts.services.follows_note_split`,
    keyed ``curation:<record id>``); returns the number of followers told."""
    return follows_note_split(
        researcher_id=researcher_id, new_researcher_ids=[new_researcher_id], key=f"curation:{record_id}"
    )
