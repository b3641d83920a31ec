"""Provenance reads: a paper's pith record, resolving pith numbers and short forms."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q

from wove.compiled import CompiledQuery

from .canonical import B32_DIGEST_LENGTH, Base32Error, b32_digest_decode
from .models import Event, Record

# A pith number ``pith:<year>:<body>``, and the same without its scheme (``2008:<body>``,
# the form read off the number after ``pith:``); compared upper-cased.
_FULL = re.compile(r"^(?:PITH:)?(\d{4}):([A-Z2-7]{26})$")
_BODY = re.compile(r"^[A-Z2-7]{26}$")
_SHORT = re.compile(r"^(?:PITH:)?([A-Z2-7]{8}|[A-Z2-7]{12}|[A-Z2-7]{16})$")
# What is meant as a whole digest in base32 (52 characters, give or take padding, separators
# or a stray character): read strictly, so a misspelling gets its reason, not a 404.
_DIGEST_LIKE = re.compile(r"^[\w\s=]+$")
_ARXIV = re.compile(r"^((?:[a-z]+(?:[.-][a-z]+)*/\d{7})|(?:\d{4}\.\d{4,5}))(?:v(\d+))?$", re.IGNORECASE)


# Compiled once per process (wove.compiled): every paper page asks (issue 28). A paper id is
# never negative.
CURRENT_RECORD = CompiledQuery(
    lambda paper_id: Record.objects.filter(paper_id=paper_id).latest_first()[:1], sentinel=-1
)


def pith_for_paper(paper) -> Record | None:
    """The paper's current record: its latest version's newest record, or ``None`` when unsigned."""
    if paper is None or getattr(paper, "pk", None) is None:
        return None
    return CURRENT_RECORD.first(paper.pk)


@dataclass
class Resolution:
    """What a reference names: one ``record``, or several ``candidates`` (an ambiguous short
    form or an arXiv id with several versions), and whether ``exact`` (a full number/body);
    ``error`` says why a reference that is meant as a base32 digest is not one."""

    record: Record | None = None
    candidates: list[Record] = field(default_factory=list)
    exact: bool = False
    error: str = ""


def record_resolve(ref: str) -> Resolution:
    """Resolve ``pith:2023:<body>`` (or ``2023:<body>``, the number without its scheme),
    ``<body>``, a short form (``pith:L5Y4YBEW``, 8/12/16 characters, any case), the whole
    digest in base32 (52 characters, read by :func:`~provenance.canonical.b32_digest_decode`;
    a misspelt one gives ``error``) or an arXiv id (``2401.10241`` gives its current record,
    ``2401.10241v1`` that version's)."""
    ref = (ref or "").strip()
    upper = ref.upper()
    match = _FULL.match(upper)
    if match:
        record = Record.objects.filter(
            pith_body=match.group(2), pith_number__startswith=f"pith:{match.group(1)}:"
        )
        return Resolution(record=record.first(), exact=True)
    if _BODY.match(upper):
        return Resolution(record=Record.objects.filter(pith_body=upper).first(), exact=True)
    short = _SHORT.match(upper)
    if short:
        found = list(Record.objects.filter(pith_body__startswith=short.group(1)).order_by("pith_body")[:20])
        return Resolution(record=found[0] if len(found) == 1 else None, candidates=found)
    if _DIGEST_LIKE.match(ref) and abs(len(re.sub(r"[\s=]", "", ref)) - B32_DIGEST_LENGTH) <= 1:
        try:
            digest = b32_digest_decode(ref)
        except Base32Error as exc:
            return Resolution(error=str(exc))
        return Resolution(record=Record.objects.filter(canonical_sha256=digest.hex()).first())
    arxiv = _ARXIV.match(ref)
    if arxiv:
        records = Record.objects.filter(source_id=arxiv.group(1))
        if arxiv.group(2):
            records = records.filter(source_version=int(arxiv.group(2)))
        found = list(records.latest_first())
        return Resolution(record=found[0] if found else None, candidates=found)
    return Resolution()


def pith_example(examples: dict[str, Any]) -> dict[str, str] | None:
    """The provenance record URL examples name (:func:`papers.examples.url_examples`): the
    current record of the paper shown beside it (``examples["new"]``), as ``{"number":
    "pith:2008:<body>", "year_form": "2008:<body>", "short": "pith:<8 characters>",
    "arxiv_id", "url": "/pith/<body>"}`` (``url`` is the record's own page; the other forms
    redirect to it); ``None`` when that paper is not signed yet. One query."""
    arxiv_id = examples.get("new", {}).get("arxiv_id")
    record = Record.objects.filter(source_id=arxiv_id).latest_first().first() if arxiv_id else None
    if record is None:
        return None
    return {
        "number": record.pith_number,
        "year_form": record.pith_number.removeprefix("pith:"),
        "short": f"pith:{record.pith_body[:8]}",
        "arxiv_id": arxiv_id,
        "url": f"/pith/{record.pith_body}",
    }


def record_events(record: Record) -> list[Event]:
    """The record's events in log order: ``created_at``, ``record_created`` first within one
    second (it is the log's first event), then content hash."""
    events = record.events.select_related("key").in_log_order()
    return sorted(events, key=lambda e: (e.created_at, e.event_type != "record_created", e.content_sha256))


def record_superseded_by(record: Record) -> Record | None:
    """The record that superseded this one: the paper's next record (a later version, or a
    newer record of the same version), whose ``record_created`` names this one's."""
    later = Record.objects.filter(paper_id=record.paper_id).filter(
        Q(source_version__gt=record.source_version)
        | Q(source_version=record.source_version, created_at__gt=record.created_at)
    )
    return later.order_by("source_version", "created_at").first()


# An authorship ``a`` whose current state its signing row ``m`` (left-joined) does not hold:
# never recorded, or recorded with another researcher, method, confidence, evidence or mark.
AUTHORSHIP_UNRECORDED_SQL = """(m.slot_id IS NULL OR m.researcher_id <> a.researcher_id
    OR m.method <> a.method OR m.confidence <> a.confidence OR m.evidence <> a.evidence
    OR m.unconfirmed <> a.unconfirmed)"""
# Authorships whose current state no signed ``authorship_matched`` event records yet, on
# papers already signed: :func:`provenance.authorships.authorships_sign`'s work list.
AUTHORSHIPS_UNSIGNED_FROM = (
    """
      FROM researchers_authorship a
      JOIN papers_paper p ON p.id = a.paper_id AND NOT p.deleted
      JOIN provenance_papersigning ps ON ps.paper_id = a.paper_id
      LEFT JOIN provenance_authorshipsigning m ON m.slot_id = a.slot_id
     WHERE """
    + AUTHORSHIP_UNRECORDED_SQL
)
# A paper whose content waits to be signed is counted by the signing backlog already.
_UNSIGNED_BACKLOG_SQL = (
    "SELECT count(DISTINCT a.paper_id), min(a.modified_at)"
    + AUTHORSHIPS_UNSIGNED_FROM
    + " AND ps.content_hash = p.content_hash"
)


def authorships_unsigned_backlog() -> tuple[int, datetime | None]:
    """Papers with an authorship of :data:`AUTHORSHIPS_UNSIGNED_FROM` (an editor's
    confirmation, a reassignment, new evidence...) whose own content is signed, and the
    oldest such authorship's change time (``modified_at``, ``None`` when none waits); one
    aggregate query."""
    with connection.cursor() as cursor:
        cursor.execute(_UNSIGNED_BACKLOG_SQL)
        waiting, oldest = cursor.fetchone()
    return waiting, oldest
