"""Provenance rows written in bulk: the papers' signing locks, records and events sent with
``COPY`` (conflicting keys skipped), the lines ``COPY`` reads, and a chain's last event.
Shared by records signing (:mod:`provenance.signing`), authorship events
(:mod:`provenance.authorships`) and event appends (:mod:`provenance.services`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from django.db import connection, transaction
from psycopg.errors import UniqueViolation

from wove.locks import advisory_xact_locks

from .builders import EVENT_TARGETS
from .fast_builders import BuiltEvent, RecordText
from .models import PublicKey

# Each paper's signing lock, for the transaction that signs it (wove.locks.advisory_xact_locks).
PAPER_LOCK = "provenance.sign_paper"


def lock_papers(ids: Sequence[int], *, wait: bool) -> list[int]:
    """Take each paper's signing lock for this transaction (in id order, so two lockers
    cannot deadlock); with ``wait=False`` skip papers another transaction holds. Returns the
    ids locked."""
    return advisory_xact_locks(PAPER_LOCK, ids, wait=wait)


RECORD_COLUMNS = (
    "canonical_sha256",
    "pith_number",
    "pith_body",
    "paper_id",
    "source_kind",
    "source_id",
    "source_version",
    "canonical_record",
    "receipt",
    "key_id",
    "created_at",
)
EVENT_COLUMNS = (
    "content_sha256",
    "record_id",
    "event_type",
    "target",
    "prev_event",
    "created_at",
    "key_id",
    "content",
    "signature",
)


def insert_ignoring_conflicts(model, columns: Sequence[str], rows: Sequence[tuple]) -> int:
    """Insert many rows, skipping those whose keys exist (``ON CONFLICT DO NOTHING``).

    The rows are streamed with ``COPY`` into a temporary table, then moved with one
    ``INSERT ... SELECT ... ON CONFLICT DO NOTHING``; returns the number inserted. Not
    ``bulk_create``: Django 5.2 sends PostgreSQL arrays for ``UNNEST`` there, and psycopg
    escapes JSON text inside arrays character by character, which alone took most of the
    signing time.
    """
    return _insert_staged(model, columns, lambda copy: [copy.write_row(row) for row in rows]) if rows else 0


def insert_copy_lines(model, columns: Sequence[str], lines: Sequence[str]) -> int:
    """:func:`insert_ignoring_conflicts` for rows already formatted as ``COPY`` text lines
    (fields escaped with :func:`copy_text`, tab-separated, ``\\N`` for NULL, newline-ended):
    one write instead of psycopg adapting every field (a signature's worth per record).

    The lines go straight into the table, in a savepoint; only when a key exists already
    (another signer's row: rare, the papers are locked) are they sent again through the
    staging table. Straight in, PostgreSQL parses and stores each row once, not twice. (psycopg's
    own error: Django does not wrap a ``COPY`` on the driver's cursor.)"""
    if not lines:
        return 0
    data = "".join(lines)
    statement = f"COPY {_quoted(model)} ({_names(columns)}) FROM STDIN"
    try:
        with transaction.atomic(), connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
            copy.write(data)
        return len(lines)
    except UniqueViolation:  # a key taken: the savepoint is gone, the staging table skips it
        return _insert_staged(model, columns, lambda copy: copy.write(data))


def _quoted(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _names(columns: Sequence[str]) -> str:
    return ", ".join(connection.ops.quote_name(c) for c in columns)


def _insert_staged(model, columns: Sequence[str], write: Callable) -> int:
    table = _quoted(model)
    staging = connection.ops.quote_name(f"_in_{model._meta.db_table}")
    names = _names(columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} (LIKE {table}) ON COMMIT DROP"  # noqa: S608
        )
        cursor.execute(f"TRUNCATE {staging}")
        with cursor.cursor.copy(f"COPY {staging} ({names}) FROM STDIN") as copy:
            write(copy)
        cursor.execute(
            f"INSERT INTO {table} ({names}) SELECT {names} FROM {staging} ON CONFLICT DO NOTHING"  # noqa: S608
        )
        return cursor.rowcount


def chain_tips(events: Iterable[dict]) -> dict[tuple[str, str], dict]:
    """The last event of each ``(record, target)`` chain: the one no other event follows."""
    chains: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for event in events:
        chains[(event["record_id"], event["target"])].append(event)
    tips = {}
    for key, items in chains.items():
        followed = {e["prev_event"] for e in items if e["prev_event"]}
        open_ends = [e for e in items if f"sha256:{e['content_sha256']}" not in followed]
        tips[key] = max(open_ends or items, key=lambda e: (e["created_at"], e["content_sha256"]))
    return tips


def copy_text(value: str) -> str:
    """``value`` escaped for a text-format ``COPY`` field (backslash, tab, newline, return)."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value


def copy_json(value: str) -> str:
    """:func:`copy_text` for JSON text, where tabs and line breaks are always escaped."""
    return value.replace("\\", "\\\\") if "\\" in value else value


class CopyLines:
    """A batch's new rows as text-format ``COPY`` lines (no per-field adaptation): records,
    events, and the ``(paper id, content hash, signed at)`` of each paper signed."""

    __slots__ = ("records", "events", "signed", "_record_tail", "_event_mid")

    def __init__(self, key_row: PublicKey, now: datetime) -> None:
        key_pk = str(key_row.pk)  # constant fields once
        # Full precision: it orders two records of one version.
        self._record_tail = f"\t{key_pk}\t{now.isoformat()}\n"
        self._event_mid = f"\t{now.replace(microsecond=0).isoformat()}\t{key_pk}\t"
        self.records: list[str] = []
        self.events: list[str] = []
        self.signed: list[tuple[int, str, datetime]] = []  # PaperSigning rows

    def add_record(self, paper, version: int, record: RecordText, receipt: str) -> None:
        self.records.append(
            f"{record.sha256}\t{record.pith_number}\t{record.pith_body}\t{paper.id}\tarxiv"
            f"\t{copy_text(paper.arxiv_id)}\t{version}\t{copy_json(record.canonical)}"
            f"\t{copy_json(receipt)}{self._record_tail}"
        )

    def add_event(
        self, record_sha: str, event_type: str, built: BuiltEvent, target: str | None = None
    ) -> None:
        """One event of the record ``record_sha`` on chain ``target`` (the type's own by default)."""
        prev = "\\N" if built.prev_event is None else copy_text(built.prev_event)
        target = EVENT_TARGETS[event_type] if target is None else copy_text(target)
        self.events.append(
            f"{built.content_sha256}\t{record_sha}\t{event_type}\t{target}\t{prev}"
            f"{self._event_mid}{copy_json(built.content)}\t{copy_json(built.signature)}\n"
        )
