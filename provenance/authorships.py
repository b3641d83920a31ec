"""Authorship events: each link of an author slot to a researcher, with its evidence, signed (issue 20)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction

from wove.bulk import copy_upsert, gc_paused, int_array
from wove.forked import batches_in_processes

from .builders import authorship_matched_payload
from .fast_builders import BuiltEvent, SigningTemplates
from .keys import Signer
from .models import AuthorshipSigning, Event, PublicKey
from .rows import EVENT_COLUMNS, CopyLines, chain_tips, insert_copy_lines, lock_papers
from .selectors import AUTHORSHIP_UNRECORDED_SQL, AUTHORSHIPS_UNSIGNED_FROM
from .services import SIGNING_CONNECTIONS, signer_current

log = logging.getLogger(__name__)

# The pending authorships (selectors: the signing backlog counts the same rows).
# The lower bound stated on each joined paper id: else the planner merge-joins papers and
# their signing rows from the first id, reading every paper before ``after`` again for each
# batch (quadratic in the backlog: 5,200 rows read for 200 at the 10 k corpus's middle).
_PENDING_PAPERS_SQL = (
    "SELECT DISTINCT a.paper_id"
    + AUTHORSHIPS_UNSIGNED_FROM
    + " AND a.paper_id > %(after)s AND p.id > %(after)s AND ps.paper_id > %(after)s {only}"
    " ORDER BY 1 LIMIT %(size)s"
)
# The rows of papers that query chose: it checked each paper (signed, not deleted) already,
# so the papers are not joined again. The papers stated on the slots too: with them on the
# authorships only, the planner estimated 940 rows for 628 and hash-joined a parallel scan
# of every author slot (33 ms a batch at 100 k papers, growing with the archive; 3 ms now).
_PENDING_ROWS_SQL = (
    "SELECT a.slot_id, a.paper_id, s.position, s.name, a.researcher_id, a.method, a.source,"  # noqa: S608 (constants)
    " a.confidence, a.evidence, a.unconfirmed, m.event_id, m.record_id"
    " FROM researchers_authorship a JOIN papers_paperauthor s ON s.id = a.slot_id"
    " LEFT JOIN provenance_authorshipsigning m ON m.slot_id = a.slot_id"
    " WHERE a.paper_id = ANY(%(papers)s::bigint[]) AND s.paper_id = ANY(%(papers)s::bigint[])"
    " AND " + AUTHORSHIP_UNRECORDED_SQL + " ORDER BY a.paper_id, s.position"
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


class _Pending(NamedTuple):
    """One pending authorship (a row of :data:`_PENDING_ROWS_SQL`): its slot and paper, what
    it links, and the event and record its last ``authorship_matched`` was on (None, None
    when it has none)."""

    slot_id: int
    paper_id: int
    position: int
    name: str
    researcher_id: int
    method: str
    source: str
    confidence: float
    evidence: str | list  # jsonb as its text from a raw cursor
    unconfirmed: bool
    signed_event_id: str | None
    signed_record_id: str | None


def _pending_papers(after: int, paper_ids: list[int] | None, batch_size: int) -> list[int]:
    """The first ``batch_size`` papers with ids above ``after`` (only ``paper_ids`` when
    given) with a pending authorship, in id order. One query."""
    only = "AND a.paper_id = ANY(%(ids)s::bigint[])" if paper_ids is not None else ""
    params = {"after": after, "size": batch_size, "ids": int_array(paper_ids or [])}
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_PAPERS_SQL.format(only=only), params)
        return [row[0] for row in cursor.fetchall()]


def _pending_rows(paper_ids: list[int]) -> list[_Pending]:
    """The pending authorships of ``paper_ids`` (all of each paper's, in position order)."""
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_ROWS_SQL, {"papers": int_array(paper_ids)})
        return [_Pending._make(row) for row in cursor.fetchall()]


# Under the batch's paper locks: each paper's current record (its latest version's newest),
# and every event already on the authorship chains of those records, to find each chain's tip.
# A LATERAL subquery kept whole (OFFSET 0), so each record's chains are read from the chain
# index by record: joined plainly, the planner scanned the whole index for the targets once
# a batch (PostgreSQL 18's skip scan), the whole events table, estimated at one row while no
# authorship event exists yet.
_CURRENT_AND_CHAINS_SQL = """
WITH current AS (
    SELECT DISTINCT ON (paper_id) paper_id, canonical_sha256, pith_number
      FROM provenance_record WHERE paper_id = ANY(%s::bigint[])
     ORDER BY paper_id, source_version DESC, created_at DESC
)
SELECT c.paper_id, c.canonical_sha256, c.pith_number,
       e.content_sha256, e.target, e.prev_event, e.created_at, e.event_type
  FROM current c
  LEFT JOIN LATERAL (
      SELECT * FROM provenance_event e
       WHERE e.record_id = c.canonical_sha256 AND e.target = ANY(%s::text[])
      OFFSET 0
  ) e ON true
"""


def _current_and_tips(paper_ids: list[int], targets: set[str]) -> tuple[dict[int, tuple[str, str]], dict]:
    """``({paper id: (current record sha, its pith number)}, {(record sha, target): tip
    event id})`` for ``paper_ids`` and the chains ``targets``: one query."""
    with connection.cursor() as cursor:
        cursor.execute(_CURRENT_AND_CHAINS_SQL, [int_array(paper_ids), sorted(targets)])
        found = cursor.fetchall()
    current = {row[0]: (row[1], row[2]) for row in found}
    events = [
        {"record_id": row[1], "content_sha256": row[3], "target": row[4], "prev_event": row[5],
         "created_at": row[6], "event_type": row[7]}
        for row in found
        if row[3] is not None
    ]  # fmt: skip
    tips = {key: f"sha256:{tip['content_sha256']}" for key, tip in chain_tips(events).items()}
    return current, tips


def _record_batch(paper_ids: list[int], signer: Signer, key_row: PublicKey) -> int:
    """Append the ``authorship_matched`` events of the pending authorships of ``paper_ids``
    (ascending) and remember what they recorded, in one transaction under the papers'
    signing locks: each event built from the signing templates (:func:`_authorship_event`)
    and written with the others by one ``COPY``. Returns the number of events appended."""
    now = datetime.now(UTC)
    templates = SigningTemplates(signer, signer_id=settings.PROVENANCE_SIGNER_ID, now=now)
    lines = CopyLines(key_row, now)
    marks = []
    with gc_paused(), transaction.atomic():
        lock_papers(paper_ids, wait=True)
        rows = _pending_rows(paper_ids)  # under the locks: what another signer did is seen
        if not rows:
            return 0
        current, tips = _current_and_tips(paper_ids, {f"authorship:{row.position}" for row in rows})
        for row in rows:
            record = current.get(row.paper_id)
            if record is None:  # a signed paper always has one; left for the next run otherwise
                continue
            target = f"authorship:{row.position}"
            made = _authorship_event(row, record, target, tips, templates)
            if made is None:
                continue
            built, evidence = made
            record_sha = record[0]
            tips[(record_sha, target)] = built.event_id  # the next item on this chain follows it
            lines.add_event(record_sha, "authorship_matched", built, target=target)
            marks.append(
                (
                    row.slot_id,
                    record_sha,
                    built.event_id,
                    row.researcher_id,
                    row.method,
                    row.confidence,
                    evidence,
                    row.unconfirmed,
                    now,
                )
            )
        insert_copy_lines(Event, EVENT_COLUMNS, lines.events)
        copy_upsert(
            model=AuthorshipSigning,
            fields=["slot", *SIGNED_FIELDS],
            rows=marks,
            conflict_fields=["slot"],
            update_fields=SIGNED_FIELDS,
            # Slots never recorded (a first load's every one) are inserted straight.
            new=all(row.signed_event_id is None for row in rows),
        )
    return len(marks)


def _authorship_event(
    row: _Pending, record: tuple[str, str], target: str, tips: dict, templates: SigningTemplates
) -> tuple[BuiltEvent, str] | None:
    """``row``'s signed event on ``record`` (its sha and pith number), chain ``target``,
    following the chain's tip in ``tips``, and the evidence as JSON text for its
    :class:`AuthorshipSigning` row: :meth:`provenance.fast_builders.SigningTemplates.authorship_matched`,
    the bytes :func:`provenance.services.events_append` would sign. None, logged, when it cannot be
    signed (the authorship is left for the next run, never the batch)."""
    record_sha, pith_number = record
    try:
        # A raw cursor gives jsonb as its text (Django's psycopg loader).
        evidence = json.loads(row.evidence) if isinstance(row.evidence, str) else row.evidence
        payload = authorship_matched_payload(
            position=row.position,
            name=row.name,
            researcher_id=row.researcher_id,
            method=row.method,
            source=row.source,
            confidence=row.confidence,
            evidence=evidence,
            unconfirmed=row.unconfirmed,
        )
        changed = row.signed_event_id and row.signed_record_id == record_sha  # a new link, same record
        built = templates.authorship_matched(
            payload,
            pith_number=pith_number,
            target=target,
            prev_event=tips.get((record_sha, target)),
            supersedes=(row.signed_event_id,) if changed else (),
        )
    except Exception:  # one bad authorship is logged and skipped, never the batch
        log.exception(
            "provenance: cannot sign the authorship of slot %s (paper %s)", row.slot_id, row.paper_id
        )
        return None
    # The evidence's own jsonb text goes back to the signing row (parsed once, not re-encoded).
    return built, row.evidence if isinstance(row.evidence, str) else json.dumps(evidence)


def authorships_sign(
    *, paper_ids: Iterable[int] | None = None, batch_size: int = 200, workers: int = SIGNING_CONNECTIONS
) -> int:
    """Append one signed ``authorship_matched`` event per authorship not yet recorded or
    changed since (another researcher, method, confidence, evidence or unconfirmed flag), on
    its paper's current record, chain ``authorship:<position>``; a changed link's event
    supersedes the one it replaces on that record. Payload:
    :func:`provenance.builders.authorship_matched_payload` (the evidence as stored).

    Papers not signed yet are left for the signing stage, which runs this after signing
    (:func:`provenance.tasks.signing_stage`). ``batch_size`` papers per transaction;
    idempotent (what was recorded is kept in :class:`AuthorshipSigning`). ``workers``
    batches at once, each in a forked process, as :func:`provenance.services.records_sign`
    does. Returns the number of events appended.
    """
    wanted = sorted(set(paper_ids)) if paper_ids is not None else None
    signer, key_row = signer_current()
    appended = []
    batches_in_processes(
        lambda papers: _record_batch(papers, signer, key_row),
        _pending_batches(wanted, batch_size),
        workers=workers,
        collect=appended.append,
    )
    return sum(appended)


def _pending_batches(paper_ids: list[int] | None, batch_size: int) -> Iterator[list[int]]:
    """:func:`_pending_papers` batch after batch, each read after the last was taken (by
    paper id: none is read twice while the last is being recorded)."""
    after = 0
    while papers := _pending_papers(after, paper_ids, batch_size):
        after = papers[-1]
        yield papers


__all__ = ["authorships_sign"]
