"""Reassigning one authorship to another or a new researcher: a split of one authorship, by an editor."""

from __future__ import annotations

from django.db import transaction

from .models import CurationRecord
from .split import split_check, split_do


def authorship_reassign(
    *,
    authorship_id: int,
    researcher_id: int,
    editor,
    reason: str,
    target_id: int | None = None,
    display_name: str = "",
) -> CurationRecord:
    """Move authorship ``authorship_id`` from researcher ``researcher_id`` (the one the
    editor saw it on) to ``target_id``, or to a new researcher named ``display_name``
    (default: the slot's name) without it.

    Recorded like a split (:func:`curation.split.split_do` with ``reassign=True``): the
    source's followers are told, a signed ``researcher_split`` event (``action:
    reassign``) is appended, and the matcher gets must-links holding each side together and
    cannot-links between their block anchors, so a re-run never moves the slot back. The
    link becomes the editor's: method ``editor``, confidence
    :data:`curation.marks.CONFIDENCE_EDITOR`, confirmed, an ``editor`` signal (with
    ``from_researcher``) as its evidence. Returns the :class:`CurationRecord`
    (``kind=reassign``), undoable by :func:`curation.undo.curation_undo`.

    Raises :class:`CurationError` without a reason or for the source as target,
    :class:`CurationConflict` when the authorship is not (any more) ``researcher_id``'s or
    a record is missing or merged away.
    """
    with transaction.atomic():
        plan = split_check(
            researcher_id=researcher_id,
            authorship_ids=[authorship_id],
            reason=reason,
            target_id=target_id,
            display_name=display_name,
        )
        return split_do(plan, editor=editor, reassign=True)
