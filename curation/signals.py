"""Signals curation sends inside its transaction, for apps above it (accounts) to act on.

Curation never imports those apps: what a receiver returns (Django's ``send()`` gives
``[(receiver, response)]``) is stored in the curation record when an undo needs it
(:func:`first_response`).
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

# Sent by :func:`curation.merge.merge_do` after the authorships and identities moved, before
# the researchers are refreshed. Arguments: ``survivor_id``, ``merged_ids`` (ascending) and
# ``record_id`` (the curation record being written). A receiver returns what its undo needs,
# JSON-serialisable; it is stored as ``changes["follows"]`` (``{"available": False}`` when
# nobody answers) and handed back in :data:`curation_undone`.
researchers_merged = Signal()

# Sent by :func:`curation.split.split_do` after the move. Arguments: ``researcher_id`` (the
# source), ``new_researcher_id`` (the target) and ``record_id``. A receiver returns the
# number of followers told, stored as ``changes["followers_notified"]`` (``None`` unanswered).
researcher_split_done = Signal()

# Sent by :func:`curation.undo.undo_do` after authorships and identities moved back.
# Arguments: ``undone_record_id``, ``follows`` (the merge's stored ``changes["follows"]``,
# ``{}`` for a split) and ``deleted_researcher_id`` (the researcher a split created, about to
# be deleted, or ``None``). Responses are not stored.
curation_undone = Signal()


def first_response(responses: list[tuple[Any, Any]], default: Any) -> Any:
    """The first non-``None`` response of a ``Signal.send()`` result, else ``default``."""
    return next((response for _receiver, response in responses if response is not None), default)
