"""What every curation action shares: row locks, researcher snapshots, the record and its signed event."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import Q

from papers.models import Paper
from provenance.attestations import author_attestations_append, author_attestations_withdraw
from provenance.services import event_append
from researchers.models import Authorship, Researcher

from .errors import CurationError
from .models import CurationRecord

logger = logging.getLogger(__name__)

# Researcher columns a curation action may change and an undo restores (``modified_at`` is
# bookkeeping and ``created_at`` never changes).
RESEARCHER_FIELDS = (
    "display_name",
    "slug",
    "name_variants",
    "declared_names",
    "orcid",
    "merged_into_id",
    "paper_count",
)
# Papers tried, in order, to carry an action's signed provenance event.
EVENT_PAPER_ATTEMPTS = 3


def lock_researchers(ids: Iterable[int]) -> dict[int, Researcher]:
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


def researcher_state(researcher: Researcher) -> dict[str, Any]:
    """The :data:`RESEARCHER_FIELDS` of one researcher, ``{field: value}``."""
    return {field: getattr(researcher, field) for field in RESEARCHER_FIELDS}


def researcher_states(ids: Iterable[int]) -> dict[str, dict[str, Any]]:
    """:func:`researcher_state` of each researcher in ``ids`` as stored now, keyed by ``str(id)``."""
    rows = Researcher.objects.filter(pk__in=list(ids)).order_by("pk")
    return {str(r.pk): researcher_state(r) for r in rows}


def require_reason(reason: str) -> str:
    """``reason`` stripped; raises :class:`CurationError` when it is empty."""
    reason = (reason or "").strip()
    if not reason:
        raise CurationError("a reason is required")
    return reason


def next_record_id() -> int:
    """Take the next :class:`CurationRecord` id, so the event payload can name it before the row exists."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('curation_curationrecord', 'id'))")
        return cursor.fetchone()[0]


def append_event(
    *, event_type: str, payload: dict, paper_ids: Sequence[int], supersedes: Sequence[str] = ()
) -> str:
    """Append the action's signed provenance event to the first paper that can carry it.

    Returns the event id (``sha256:<hex>``), or ``""`` when no paper could be signed (the
    curation record is still written; logged). Each attempt runs in a savepoint.
    """
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


def attest(items: Sequence[tuple[int, dict]]) -> list[str]:
    """Append signed ``author_attestation`` events, one per ``(paper id, payload)`` (issue 31,
    :func:`provenance.attestations.author_attestations_append`), in a savepoint. Returns
    their ids, or ``[]`` when they could not be signed (the curation record is still
    written; logged)."""
    if not items:
        return []
    try:
        with transaction.atomic():
            return author_attestations_append(items=items)
    except Exception:  # unsignable papers must not block the researcher's decision
        logger.exception("curation: cannot append %s author attestations", len(items))
        return []


def attestations_withdraw(events: Sequence[tuple[int, str]], payload: dict) -> list[str]:
    """Supersede attestations ``[(paper id, event id)]`` with signed ``curation_undone``
    events carrying ``payload`` (:func:`provenance.attestations.author_attestations_withdraw`),
    in a savepoint; ``[]`` when they could not be signed (logged)."""
    if not events:
        return []
    try:
        with transaction.atomic():
            return author_attestations_withdraw(events=events, payload=payload)
    except Exception:  # as attest(): the undo still happens
        logger.exception("curation: cannot withdraw %s author attestations", len(events))
        return []


def _editor_name(editor) -> str:
    return editor.get_username() if editor is not None else ""


def write_record(
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
    """Write the append-only :class:`CurationRecord` of an action (``researcher_ids`` stored
    sorted, without duplicates); returns it."""
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


def moved_authorships_payload(moved: list[dict]) -> list[dict]:
    """The event payload's view of moved authorships: ``[{arxiv_id, position, from, to}]``
    (``moved`` holds ``{id, from, to}`` authorship moves)."""
    slots = {
        a.pk: (a.paper.arxiv_id, a.slot.position)
        for a in Authorship.objects.filter(pk__in=[m["id"] for m in moved]).select_related("paper", "slot")
    }
    out = []
    for m in moved:
        arxiv_id, position = slots.get(m["id"], ("", 0))
        out.append({"arxiv_id": arxiv_id, "position": position, "from": m["from"], "to": m["to"]})
    return out
