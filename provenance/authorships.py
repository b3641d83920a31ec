"""Authorship events: each link of an author slot to a researcher, with its evidence, signed (issue 20)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from django.db import connection, transaction
from django.utils import timezone

from wove.bulk import copy_upsert, int_array

from .builders import authorship_matched_payload
from .models import AuthorshipSigning, Record
from .selectors import AUTHORSHIPS_UNSIGNED_FROM
from .services import EventSpec, events_append

# The pending authorships (selectors: the signing backlog counts the same rows).
_PENDING_PAPERS_SQL = (
    "SELECT DISTINCT a.paper_id"
    + AUTHORSHIPS_UNSIGNED_FROM
    + " AND a.paper_id > %s {only} ORDER BY 1 LIMIT %s"
)
_PENDING_ROWS_SQL = (
    "SELECT a.slot_id, a.paper_id, s.position, s.name, a.researcher_id, a.method, a.source,"
    " a.confidence, a.evidence, a.unconfirmed, m.event_id, m.record_id"
    + AUTHORSHIPS_UNSIGNED_FROM
    + " AND a.paper_id = ANY(%s::bigint[]) ORDER BY a.paper_id, s.position"
)


# What an AuthorshipSigning row records besides its slot, in the order of each row written.
SIGNED_FIELDS = [
    "record",
    "event_id",
    "researcher_id",
    "method",
    "confidence",
    "evidence",
    "unconfirmed",
    "signed_at",
]


def _current_records(paper_ids: list[int]) -> dict[int, Record]:
    rows = (
        Record.objects.filter(paper_id__in=paper_ids)
        .order_by("paper_id", "-source_version", "-created_at")
        .distinct("paper_id")
    )
    return {r.paper_id: r for r in rows}


def _pending(after: int, paper_ids: list[int] | None, batch_size: int) -> list[tuple]:
    """Pending authorships of the first ``batch_size`` papers with ids above ``after`` (all of
    each paper's, in position order). Two queries."""
    only = "AND a.paper_id = ANY(%s::bigint[])" if paper_ids is not None else ""
    params: list = [after] + ([int_array(paper_ids)] if paper_ids is not None else [])
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_PAPERS_SQL.format(only=only), [*params, batch_size])
        papers = [row[0] for row in cursor.fetchall()]
        if not papers:
            return []
        cursor.execute(_PENDING_ROWS_SQL, [int_array(papers)])
        return cursor.fetchall()


def _record_batch(rows: list[tuple]) -> int:
    """Append the ``authorship_matched`` events of ``rows`` and remember what they recorded."""
    records = _current_records(sorted({row[1] for row in rows}))
    specs, marks = [], []
    now = timezone.now()
    for (
        slot_id,
        paper_id,
        position,
        name,
        rid,
        method,
        source,
        confidence,
        evidence,
        unconfirmed,
        *prev,
    ) in rows:
        record = records.get(paper_id)
        if record is None:  # a signed paper always has one; left for the next run otherwise
            continue
        event_id, record_id = prev
        # A raw cursor gives jsonb as its text (Django's psycopg loader).
        evidence = json.loads(evidence) if isinstance(evidence, str) else evidence
        payload = authorship_matched_payload(
            position=position,
            name=name,
            researcher_id=rid,
            method=method,
            source=source,
            confidence=confidence,
            evidence=evidence,
            unconfirmed=unconfirmed,
        )
        supersedes = (event_id,) if event_id and record_id == record.pk else ()
        specs.append(EventSpec(record, "authorship_matched", payload, f"authorship:{position}", supersedes))
        marks.append(
            [slot_id, record.pk, None, rid, method, confidence, json.dumps(evidence), unconfirmed, now]
        )
    with transaction.atomic():
        ids = events_append(items=specs)
        for mark, event_id in zip(marks, ids, strict=True):
            mark[2] = event_id
        copy_upsert(
            model=AuthorshipSigning,
            fields=["slot", *SIGNED_FIELDS],
            rows=[tuple(m) for m in marks],
            conflict_fields=["slot"],
            update_fields=SIGNED_FIELDS,
        )
    return len(specs)


def authorships_sign(*, paper_ids: Iterable[int] | None = None, batch_size: int = 200) -> int:
    """Append one signed ``authorship_matched`` event per authorship not yet recorded or
    changed since (another researcher, method, confidence, evidence or unconfirmed flag), on
    its paper's current record, chain ``authorship:<position>``; a changed link's event
    supersedes the one it replaces on that record. Payload:
    :func:`provenance.builders.authorship_matched_payload` (the evidence as stored).

    Papers not signed yet are left for the signing stage, which runs this after signing
    (:func:`provenance.tasks.signing_stage`). ``batch_size`` papers per transaction;
    idempotent (what was recorded is kept in :class:`AuthorshipSigning`). Returns the number
    of events appended.
    """
    wanted = sorted(set(paper_ids)) if paper_ids is not None else None
    appended, after = 0, 0
    while True:
        rows = _pending(after, wanted, batch_size)
        if not rows:
            return appended
        appended += _record_batch(rows)
        after = max(row[1] for row in rows)


__all__ = ["authorships_sign"]
