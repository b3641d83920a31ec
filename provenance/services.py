"""Provenance writes: the signing key's registration, bulk signing of papers, event appends."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, F, Min, OuterRef, Q
from django.db.models.expressions import RawSQL

from papers.models import Paper
from wove.backlog import Backlog
from wove.bulk import copy_upsert, gc_paused, int_array, unnested
from wove.locks import advisory_xact_locks

from .builders import EVENT_TARGETS, EVENT_TYPES, event_build, graph_snapshot_payload
from .fast_builders import BuiltEvent, PaperParts, RecordText, SigningTemplates
from .keys import Signer, fingerprint_b32, fingerprint_hex, load_private_key, public_raw
from .models import Event, PaperSigning, PublicKey, Record
from .selectors import authorships_unsigned_backlog, record_resolve

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC)


def signer_current() -> tuple[Signer, PublicKey]:
    """The signing key of this process and its published :class:`PublicKey` row.

    Loads (or creates, mode 0600) ``settings.PROVENANCE_SIGNING_KEY_FILE`` and publishes
    its public key on first use with ``key_id`` = ``settings.PROVENANCE_KEY_ID`` or
    ``wove-v1-<YYYY-MM>`` of today (``-2``, ``-3`` ... when that name already belongs to an
    older key). A key's ``key_id`` never changes once published.
    """
    private = load_private_key(settings.PROVENANCE_SIGNING_KEY_FILE)
    raw = public_raw(private)
    fingerprint = fingerprint_hex(raw)
    row = PublicKey.objects.filter(fingerprint=fingerprint).first()
    wanted = settings.PROVENANCE_KEY_ID or f"wove-v1-{_now():%Y-%m}"
    attempt = 1
    while row is None:
        key_id = wanted if attempt == 1 else f"{wanted}-{attempt}"
        try:
            with transaction.atomic():
                row = PublicKey.objects.create(
                    key_id=key_id,
                    public_key_hex=raw.hex(),
                    fingerprint=fingerprint,
                    fingerprint_b32=fingerprint_b32(raw),
                )
        except IntegrityError:
            row = PublicKey.objects.filter(fingerprint=fingerprint).first()  # a concurrent start won
            attempt += 1
            if attempt > 50:
                raise
    if settings.PROVENANCE_KEY_ID and row.key_id != settings.PROVENANCE_KEY_ID:
        log.warning(
            "provenance: key %s is published as %s; PROVENANCE_KEY_ID=%s ignored (key ids never change)",
            fingerprint,
            row.key_id,
            settings.PROVENANCE_KEY_ID,
        )
    return Signer(private, raw, fingerprint, row.key_id), row


@dataclass
class SignResult:
    """Counts of one signing run."""

    papers_checked: int = 0
    papers_signed: int = 0
    records_created: int = 0
    events_created: int = 0
    papers_skipped: int = 0
    papers_busy: int = 0
    deletions_recorded: int = 0

    def add(self, other: SignResult) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        line = (
            f"{self.papers_checked} papers checked, {self.papers_signed} signed, "
            f"{self.records_created} records and {self.events_created} events created, "
            f"{self.papers_skipped} skipped, {self.papers_busy} busy elsewhere"
        )
        # Deletions are rare (arXiv deletes a handful of records): named only when there are some.
        return f"{line}, {self.deletions_recorded} deletions recorded" if self.deletions_recorded else line


def papers_to_sign():
    """Papers whose current ``content_hash`` has not been signed yet (deleted ones excluded)."""
    return Paper.objects.filter(
        deleted=False, submitted_at__isnull=False, primary_category__isnull=False
    ).filter(Q(signing__isnull=True) | ~Q(signing__content_hash=F("content_hash")))


def papers_deletion_unrecorded():
    """Deleted papers (an OAI-PMH header with ``status="deleted"``) that have a signed record
    but no ``deleted`` event on any of their records yet: :func:`deletions_sign` appends one."""
    return Paper.objects.filter(
        Exists(Record.objects.filter(paper=OuterRef("pk"))),
        ~Exists(Event.objects.filter(record__paper=OuterRef("pk"), event_type="deleted")),
        deleted=True,
    )


def signing_backlog() -> Backlog:
    """Papers :func:`papers_to_sign` and :func:`papers_deletion_unrecorded` hold, and signed
    papers with an authorship whose current state waits for its ``authorship_matched``
    event (:func:`provenance.selectors.authorships_unsigned_backlog`: an editor's decision,
    say), with the oldest one's change time (the pipeline's signing stage, as
    ``pipeline_status`` reports it). Three aggregate queries."""
    rows = [
        queryset.aggregate(n=Count("pk"), oldest=Min("modified_at"))
        for queryset in (papers_to_sign(), papers_deletion_unrecorded())
    ]
    links, links_oldest = authorships_unsigned_backlog()
    rows.append({"n": links, "oldest": links_oldest})
    oldest = [row["oldest"] for row in rows if row["n"] and row["oldest"]]
    return Backlog(waiting=sum(row["n"] for row in rows), oldest=min(oldest) if oldest else None)


def records_sign(
    *,
    paper_ids: Iterable[int] | None = None,
    batch_size: int = 500,
    progress: Callable[[int], None] | None = None,
) -> SignResult:
    """Sign every paper that changed since it was last signed (all when never signed).

    For each arXiv version without a record: the canonical record, its receipt, a
    ``record_created`` event (superseding the previous version's) and a ``graph_snapshot``.
    For the latest version, a changed canonical record gives a new record superseding the
    old one, and a changed snapshot (title, authors, categories, abstract) a new
    ``graph_snapshot`` superseding the previous one. Unchanged papers give nothing.
    Records of earlier versions are frozen once written; arXiv sends only the current title,
    abstract and categories, so versions first seen together share today's metadata (only
    ``version`` and ``submitted_at`` differ). A version without its own timestamp in the
    harvest (OAI ``arXiv`` format) is recorded as the latest version at v1's time.

    Batched (``batch_size`` papers: a constant number of queries and one bulk insert per
    table each). Idempotent and safe to run in two workers at once: each paper is locked
    with a try-lock (``wove.locks.advisory_xact_locks``) and re-read under the lock; a paper locked by the
    other worker is left to it (``papers_busy``); unique keys (record digest, event digest,
    ``(record, target, prev_event)``) with ``ON CONFLICT DO NOTHING`` back this up. A paper
    that cannot be signed is logged and skipped (``papers_skipped``), never the batch.

    Then each deleted paper with a signed record gets its one ``deleted`` event
    (:func:`deletions_sign`; ``deletions_recorded``, counted in ``events_created`` too).
    """
    signer, key_row = signer_current()
    signer_id = settings.PROVENANCE_SIGNER_ID
    paper_ids = list(paper_ids) if paper_ids is not None else None
    base = papers_to_sign()
    if paper_ids is not None:
        base = base.filter(id__in=paper_ids)
    result = SignResult()
    cursor_id = 0
    while True:
        ids = list(base.filter(id__gt=cursor_id).order_by("id").values_list("id", flat=True)[:batch_size])
        if not ids:
            break
        cursor_id = ids[-1]
        batch = _sign_batch(ids, signer, key_row, signer_id)
        result.add(batch)
        if progress:
            progress(len(ids))
    result.deletions_recorded = deletions_sign(paper_ids=paper_ids, batch_size=batch_size)
    result.events_created += result.deletions_recorded
    return result


def deleted_payload(paper: Paper) -> dict:
    """Payload of a ``deleted`` event: which paper, who said so and the OAI-PMH datestamp of
    the deleted header (``YYYY-MM-DD``, or null when the header had none). Strings only."""
    return {
        "source": {"kind": "arxiv", "id": paper.arxiv_id},
        "status": "deleted",
        "reported_by": "arxiv_oai_pmh",
        "oai_datestamp": paper.oai_datestamp.isoformat() if paper.oai_datestamp else None,
    }


def deletions_sign(*, paper_ids: Sequence[int] | None = None, batch_size: int = 500) -> int:
    """Append one signed ``deleted`` event (target ``status``) to the current record of each
    paper :func:`papers_deletion_unrecorded` holds (or only ``paper_ids`` among them).

    Earlier events are untouched: the event starts the record's ``status`` chain. Papers are
    try-locked (another signer's are left to it) and re-read under the lock, so two workers
    append each deletion once and a second pass appends nothing. Deleted papers never
    signed get no record (there is nothing to attach the event to). Returns the number of
    events appended.
    """
    base = papers_deletion_unrecorded()
    if paper_ids is not None:
        base = base.filter(id__in=list(paper_ids))
    ids = list(base.order_by("id").values_list("id", flat=True))
    appended = 0
    for start in range(0, len(ids), batch_size):
        with transaction.atomic():
            locked = _lock_papers(ids[start : start + batch_size], wait=False)
            papers = papers_deletion_unrecorded().filter(id__in=locked).order_by("id")
            items = [EventSpec(paper, "deleted", deleted_payload(paper)) for paper in papers]
            appended += len(events_append(items=items))
    return appended


# Each paper's signing lock, for the transaction that signs it (wove.locks.advisory_xact_locks).
PAPER_LOCK = "provenance.sign_paper"


def _lock_papers(ids: Sequence[int], *, wait: bool) -> list[int]:
    """Take each paper's signing lock for this transaction (in id order, so two lockers
    cannot deadlock); with ``wait=False`` skip papers another transaction holds. Returns the
    ids locked."""
    return advisory_xact_locks(PAPER_LOCK, ids, wait=wait)


_RECORD_COLUMNS = (
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
_EVENT_COLUMNS = (
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
_JSONB_COLUMNS = frozenset({"canonical_record", "receipt", "content", "signature"})


def _insert_ignoring_conflicts(model, columns: Sequence[str], rows: Sequence[tuple]) -> int:
    """Insert many rows, skipping those whose keys exist (``ON CONFLICT DO NOTHING``).

    The rows are streamed with ``COPY`` into a temporary table, then moved with one
    ``INSERT ... SELECT ... ON CONFLICT DO NOTHING``; returns the number inserted. Not
    ``bulk_create``: Django 5.2 sends PostgreSQL arrays for ``UNNEST`` there, and psycopg
    escapes JSON text inside arrays character by character, which alone took most of the
    signing time.
    """
    return _insert_staged(model, columns, lambda copy: [copy.write_row(row) for row in rows]) if rows else 0


def _insert_copy_lines(model, columns: Sequence[str], lines: Sequence[str]) -> int:
    """:func:`_insert_ignoring_conflicts` for rows already formatted as ``COPY`` text lines
    (fields escaped with :func:`_copy_text`, tab-separated, ``\\N`` for NULL, newline-ended):
    one write instead of psycopg adapting every field (a signature's worth per record)."""
    return _insert_staged(model, columns, lambda copy: copy.write("".join(lines))) if lines else 0


def _insert_staged(model, columns: Sequence[str], write: Callable) -> int:
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    staging = quote(f"_in_{model._meta.db_table}")
    names = ", ".join(quote(c) for c in columns)
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


def _chain_tips(events: Iterable[dict]) -> dict[tuple[str, str], dict]:
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


@dataclass(slots=True)
class _PaperRow:
    """The fields of a paper that signing reads (plain values: no model instances, for speed)."""

    id: int
    arxiv_id: str
    title: str
    abstract: str
    authors_text: str
    license: str
    primary_category_id: str
    categories: list[str]
    submitted_at: str  # builders.iso_seconds form, ``2008-02-04T15:05:55Z``
    latest_version: int
    content_hash: str
    versions: list[tuple[int, str | None]]
    authors: list[tuple[int, str]]


_PAPER_FIELDS = (
    "id",
    "arxiv_id",
    "title",
    "abstract",
    "authors_text",
    "license",
    "primary_category_id",
    "categories",
    "submitted_at",
    "latest_version",
    "content_hash",
)


def _any_of(ids: Sequence[int]) -> RawSQL:
    """The right side of an ``__in`` lookup on many ids, sent as one array parameter.

    A list of ids sends one parameter per id: Django's lookup preparation and psycopg's
    splitting of 500 placeholders cost about a signature per record. One array literal
    (:func:`wove.bulk.int_array`) is adapted at once.
    """
    return unnested(int_array(ids))


# builders.iso_seconds in SQL: whole seconds (truncated) in UTC; FM leaves the year unpadded,
# as strftime's %Y. Timestamps read as text skip psycopg's datetime parsing and the formatting
# back (a fifth of a signature per record).
_ISO_SECONDS_SQL = """to_char({} AT TIME ZONE 'UTC', 'FMYYYY-MM-DD"T"HH24:MI:SS"Z"')"""


def _paper_rows(ids: Sequence[int]) -> list[_PaperRow]:
    """Papers still needing signing among ``ids``, with versions and author slots: one query.

    Versions and author slots come as arrays per paper, and the rows through the cursor, not
    ``values_list``: the ORM's per-row work on ~4 rows a paper cost two signatures' worth per
    record. The filter is :func:`papers_to_sign`'s own SQL.
    """
    wanted, params = papers_to_sign().filter(id__in=_any_of(ids)).values("id").query.sql_with_params()
    quote = connection.ops.quote_name
    columns = ", ".join(
        _ISO_SECONDS_SQL.format("p.submitted_at") if f == "submitted_at" else f"p.{quote(f)}"
        for f in (Paper._meta.get_field(name).column for name in _PAPER_FIELDS)
    )
    versions = "FROM papers_paperversion v WHERE v.paper_id = p.id"
    authors = "FROM papers_paperauthor a WHERE a.paper_id = p.id"
    sql = (
        f"SELECT {columns},"  # noqa: S608 (names from the model and constants; values are parameters)
        f" (SELECT array_agg(v.version ORDER BY v.version) {versions}),"
        f" (SELECT array_agg({_ISO_SECONDS_SQL.format('v.submitted_at')} ORDER BY v.version) {versions}),"
        f" (SELECT array_agg(a.position ORDER BY a.position) {authors}),"
        f" (SELECT array_agg(a.name ORDER BY a.position) {authors})"
        f" FROM {quote(Paper._meta.db_table)} p WHERE p.id IN ({wanted}) ORDER BY p.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        _PaperRow(
            *row[:-4],
            versions=list(zip(row[-4], row[-3], strict=True)) if row[-4] else [],
            authors=list(zip(row[-2], row[-1], strict=True)) if row[-2] else [],
        )
        for row in rows
    ]


def _paper_versions(paper: _PaperRow) -> list[tuple[int, str]]:
    """``(version, submitted_at)`` pairs; without a version history, the latest version at v1's time."""
    versions = []
    for version, moment in paper.versions:
        moment = moment or (paper.submitted_at if version == 1 else None)
        if moment is not None:
            versions.append((version, moment))
    if not versions:
        versions = [(paper.latest_version or 1, paper.submitted_at)]
    return sorted(versions)


def _snapshot(paper: _PaperRow, source: dict, submitted_at: str) -> dict:
    return graph_snapshot_payload(
        source=source,
        title=paper.title,
        license=paper.license,
        primary_cat=paper.primary_category_id,
        categories=paper.categories,
        authors_text=paper.authors_text,
        authors=paper.authors,
        submitted_at=submitted_at,
        abstract=paper.abstract,
    )


def _copy_text(value: str) -> str:
    """``value`` escaped for a text-format ``COPY`` field (backslash, tab, newline, return)."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value


def _copy_json(value: str) -> str:
    """:func:`_copy_text` for JSON text, where tabs and line breaks are always escaped."""
    return value.replace("\\", "\\\\") if "\\" in value else value


def _sign_batch(ids: Sequence[int], signer: Signer, key_row: PublicKey, signer_id: str) -> SignResult:
    """Sign one batch of papers in one transaction: lock them (papers another signer holds are
    counted busy), build each one's new records and events from what it already has, and
    write them by COPY with the papers' :class:`PaperSigning` rows. A paper that fails is
    logged and skipped (its lines dropped), never the batch. Returns the batch's counts."""
    result = SignResult()
    with gc_paused(), transaction.atomic():
        locked = _lock_papers(ids, wait=False)
        result.papers_busy = len(ids) - len(locked)
        papers = _paper_rows(locked) if locked else []
        result.papers_checked = len(papers)
        if not papers:
            return result
        history = _batch_history([p.id for p in papers])

        now = _now()
        templates = SigningTemplates(signer, signer_id=signer_id, now=now)
        rows = _CopyLines(key_row, now)
        for paper in papers:
            before = (len(rows.records), len(rows.events))
            try:
                _paper_sign(paper, templates, history, rows)
            except Exception:  # one bad paper is logged and skipped, never the batch
                log.exception("provenance: cannot sign paper %s (%s)", paper.id, paper.arxiv_id)
                del rows.records[before[0] :]
                del rows.events[before[1] :]
                result.papers_skipped += 1
                continue
            if (len(rows.records), len(rows.events)) != before:
                result.papers_signed += 1
            rows.signed.append((paper.id, paper.content_hash, now))

        result.records_created = _insert_copy_lines(Record, _RECORD_COLUMNS, rows.records)
        result.events_created = _insert_copy_lines(Event, _EVENT_COLUMNS, rows.events)
        copy_upsert(
            model=PaperSigning,
            fields=["paper", "content_hash", "signed_at"],
            rows=rows.signed,
            conflict_fields=["paper"],
            update_fields=["content_hash", "signed_at"],
        )
    return result


@dataclass(slots=True)
class _BatchHistory:
    """What a batch's papers have signed already: their records by paper and version (oldest
    first), the chain tips by ``(record sha, target)``, the ``graph_snapshot`` tips by record
    sha, and those tips' payloads by event sha."""

    records_by_paper: dict[int, dict[int, list[dict]]]
    tips: dict[tuple[str, str], dict]
    graph_tips: dict[str, dict]
    tip_payloads: dict[str, dict]


def _batch_history(paper_ids: list[int]) -> _BatchHistory:
    """Read :class:`_BatchHistory` for ``paper_ids``: one query for records, and (only when
    there are any) one for their events and one for the graph tips' payloads."""
    records_by_paper: dict[int, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for rec in (
        Record.objects.filter(paper_id__in=_any_of(paper_ids))
        .order_by("created_at", "canonical_sha256")
        .values("canonical_sha256", "paper_id", "source_version", "pith_number")
    ):
        records_by_paper[rec["paper_id"]][rec["source_version"]].append(rec)
    # Papers signed for the first time (the bulk of a large run) have no events to read.
    record_shas = [
        r["canonical_sha256"] for by_v in records_by_paper.values() for rs in by_v.values() for r in rs
    ]
    tips = (
        _chain_tips(
            Event.objects.filter(record_id__in=record_shas).values(
                "content_sha256", "record_id", "target", "prev_event", "created_at", "event_type"
            )
        )
        if record_shas
        else {}
    )
    graph_tips = {key[0]: tip for key, tip in tips.items() if key[1] == EVENT_TARGETS["graph_snapshot"]}
    tip_payloads = (
        dict(
            Event.objects.filter(
                content_sha256__in=[t["content_sha256"] for t in graph_tips.values()]
            ).values_list("content_sha256", "content__payload")
        )
        if graph_tips
        else {}
    )
    return _BatchHistory(records_by_paper, tips, graph_tips, tip_payloads)


class _CopyLines:
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

    def add_record(self, paper: _PaperRow, version: int, record: RecordText, receipt: str) -> None:
        self.records.append(
            f"{record.sha256}\t{record.pith_number}\t{record.pith_body}\t{paper.id}\tarxiv"
            f"\t{_copy_text(paper.arxiv_id)}\t{version}\t{_copy_json(record.canonical)}"
            f"\t{_copy_json(receipt)}{self._record_tail}"
        )

    def add_event(self, record_sha: str, event_type: str, built: BuiltEvent) -> None:
        prev = "\\N" if built.prev_event is None else _copy_text(built.prev_event)
        self.events.append(
            f"{built.content_sha256}\t{record_sha}\t{event_type}\t{EVENT_TARGETS[event_type]}\t{prev}"
            f"{self._event_mid}{_copy_json(built.content)}\t{_copy_json(built.signature)}\n"
        )


def _paper_sign(
    paper: _PaperRow, templates: SigningTemplates, history: _BatchHistory, rows: _CopyLines
) -> None:
    """Add one paper's new records and events to ``rows``: for each version without a record,
    and for the latest version when its record changed, a record and its ``record_created``
    and ``graph_snapshot`` events (superseding the version's or the previous version's
    ``record_created``); for an unchanged latest record, a snapshot only when what the
    archive shows changed (:func:`_snapshot_if_changed`)."""
    versions = _paper_versions(paper)
    latest = versions[-1][0]
    by_version = history.records_by_paper.get(paper.id, {})
    previous_created: str | None = None  # record_created id of the previous version
    parts = None
    for version, submitted in versions:
        existing = by_version.get(version, [])
        if existing and version != latest:
            tip = history.tips.get((existing[-1]["canonical_sha256"], "record"))
            previous_created = f"sha256:{tip['content_sha256']}" if tip else previous_created
            continue
        if parts is None:  # once per paper, for all its versions
            parts = SigningTemplates.paper_parts(
                arxiv_id=paper.arxiv_id,
                license=paper.license,
                primary_cat=paper.primary_category_id,
                categories=paper.categories,
                title=paper.title,
                abstract=paper.abstract,
                authors_text=paper.authors_text,
                authors=paper.authors,
            )
        record = templates.record(parts, version=version, submitted_at=submitted)
        if existing:
            current = existing[-1]
            tip = history.tips.get((current["canonical_sha256"], "record"))
            current_created = f"sha256:{tip['content_sha256']}" if tip else None
            if any(r["canonical_sha256"] == record.sha256 for r in existing):
                _snapshot_if_changed(paper, parts, current, version, submitted, templates, history, rows)
                continue
            supersedes = [current_created] if current_created else []
        else:
            supersedes = [previous_created] if previous_created else []
        receipt, created = templates.record_created(parts, record, version=version, supersedes=supersedes)
        rows.add_record(paper, version, record, receipt)
        rows.add_event(record.sha256, "record_created", created)
        rows.add_event(
            record.sha256,
            "graph_snapshot",
            templates.graph_snapshot(
                parts, pith_number=record.pith_number, version=version, submitted_at=submitted
            ),
        )
        previous_created = created.event_id


def _without_author_claims(payload: dict | None) -> dict | None:
    """A graph snapshot payload without its ``author_claims`` block (issue 31,
    :mod:`provenance.attestations`): the block is not what the archive shows of the paper,
    so a snapshot differing only there is not a change for signing."""
    snapshot = (payload or {}).get("graph_snapshot")
    if not isinstance(snapshot, dict) or "author_claims" not in snapshot:
        return payload
    return {**payload, "graph_snapshot": {k: v for k, v in snapshot.items() if k != "author_claims"}}


def _snapshot_if_changed(
    paper: _PaperRow,
    parts: PaperParts,
    current: dict,
    version: int,
    submitted: str,
    templates: SigningTemplates,
    history: _BatchHistory,
    rows: _CopyLines,
) -> None:
    """Unchanged record: a new ``graph_snapshot`` of ``current`` (extending its graph chain)
    only when what the archive shows changed since the chain's tip."""
    source = {"kind": "arxiv", "id": paper.arxiv_id, "version": version}
    snapshot = _snapshot(paper, source, submitted)
    graph_tip = history.graph_tips.get(current["canonical_sha256"])
    tip_payload = history.tip_payloads.get(graph_tip["content_sha256"]) if graph_tip else None
    if graph_tip is None or _without_author_claims(tip_payload) != snapshot:
        prev = f"sha256:{graph_tip['content_sha256']}" if graph_tip else None
        rows.add_event(
            current["canonical_sha256"],
            "graph_snapshot",
            templates.graph_snapshot(
                parts,
                pith_number=current["pith_number"],
                version=version,
                submitted_at=submitted,
                prev_event=prev,
                supersedes=[prev] if prev else [],
            ),
        )


@dataclass(frozen=True)
class EventSpec:
    """One event to append: see :func:`event_append` for the meaning of each field."""

    subject: Record | Paper | str
    event_type: str
    payload: dict
    target: str | None = None
    supersedes: Sequence[str] = ()


def _check_spec(spec: EventSpec) -> None:
    if spec.event_type == "record_created" or spec.event_type not in EVENT_TYPES:
        raise ValueError(f"event_append: event type {spec.event_type!r} is not appendable")
    if not isinstance(spec.payload, dict):
        raise ValueError("event_append: payload must be a JSON object")


def _records_for_subjects(subjects: Sequence[Record | Paper | str]) -> list[Record]:
    """Resolve subjects in bulk: records as they are, papers to their current record (signing
    unsigned ones first), strings by :func:`provenance.selectors.record_resolve`.
    Raises ``Record.DoesNotExist`` for a subject without a record."""
    paper_ids = {s.pk for s in subjects if isinstance(s, Paper)}

    def current(ids: set[int]) -> dict[int, Record]:
        rows = (
            Record.objects.filter(paper_id__in=ids)
            .order_by("paper_id", "-source_version", "-created_at")
            .distinct("paper_id")
        )
        return {r.paper_id: r for r in rows}

    by_paper = current(paper_ids) if paper_ids else {}
    missing = paper_ids - set(by_paper)
    if missing:
        records_sign(paper_ids=missing)
        by_paper.update(current(missing))
    records = []
    for subject in subjects:
        if isinstance(subject, Record):
            record = subject
        elif isinstance(subject, Paper):
            record = by_paper.get(subject.pk)
        else:
            record = record_resolve(str(subject)).record
        if record is None:
            raise Record.DoesNotExist(f"no signed record for {subject!r}")
        records.append(record)
    return records


def record_for_subject(subject: Record | Paper | str) -> Record:
    """Resolve one event subject (see :func:`_records_for_subjects`)."""
    return _records_for_subjects([subject])[0]


def events_append(*, items: Sequence[EventSpec]) -> list[str]:
    """Append many signed events at once (e.g. every authorship match of a matching run).

    Same rules as :func:`event_append`, in a constant number of queries: subjects resolved
    in bulk, the papers' advisory locks taken in id order, chain tips read in one query,
    rows written by one ``COPY``. Items on the same chain (record and target) link in the
    order given. Returns the new event ids in item order. Raises ``ValueError`` (type or
    payload), :class:`~provenance.canonical.CanonicalJsonError` (a float) or
    ``Record.DoesNotExist``; nothing is written then.
    """
    if not items:
        return []
    for spec in items:
        _check_spec(spec)
    records = _records_for_subjects([spec.subject for spec in items])
    signer, key_row = signer_current()
    signer_id = settings.PROVENANCE_SIGNER_ID
    targets = [spec.target or EVENT_TARGETS[spec.event_type] for spec in items]
    with transaction.atomic():
        _lock_papers(sorted({r.paper_id for r in records}), wait=True)
        tips = {
            key: f"sha256:{tip['content_sha256']}"
            for key, tip in _chain_tips(
                Event.objects.filter(record_id__in={r.pk for r in records}, target__in=set(targets)).values(
                    "content_sha256", "record_id", "target", "prev_event", "created_at", "event_type"
                )
            ).items()
        }
        now = _now()
        stamp = now.replace(microsecond=0)
        rows, ids = [], []
        for spec, record, target in zip(items, records, targets, strict=True):
            built = event_build(
                signer,
                signer_id=signer_id,
                event_type=spec.event_type,
                subject_pith_number=record.pith_number,
                target=target,
                payload=spec.payload,
                created_at=now,
                signed_at=now,
                supersedes=list(spec.supersedes),
                prev_event=tips.get((record.pk, target)),
            )
            tips[(record.pk, target)] = built.event_id
            ids.append(built.event_id)
            rows.append(
                (
                    built.content_sha256,
                    record.pk,
                    spec.event_type,
                    target,
                    built.content["prev_event"],
                    stamp,
                    key_row.pk,
                    built.canonical.decode("utf-8"),
                    json.dumps(built.signature),
                )
            )
        _insert_ignoring_conflicts(Event, _EVENT_COLUMNS, rows)
    return ids


def event_append(
    *,
    subject: Record | Paper | str,
    event_type: str,
    payload: dict,
    target: str | None = None,
    supersedes: Sequence[str] = (),
) -> Event:
    """Append one signed event to a record's log; the one way events other than signing's are written.

    ``subject`` is a :class:`Record`, a :class:`~papers.models.Paper` (its current record,
    signed first when needed) or a pith number; ``event_type`` one of ``graph_snapshot``,
    ``authorship_matched``, ``researcher_merged``, ``researcher_split``,
    ``curation_undone``, ``deleted``, ``author_attestation`` (``record_created`` is written
    by :func:`records_sign` only);
    ``payload`` a JSON object of strings, integers, booleans, nulls, lists and objects
    (floats raise :class:`~provenance.canonical.CanonicalJsonError`); ``target`` names the
    chain (default per type: ``authorship``, ``curation``, ``graph``; use e.g.
    ``authorship:3`` for one author slot); ``supersedes`` lists event ids this event
    replaces or undoes (they leave the state's ``current``). ``prev_event`` is the chain's
    last event, read under the paper's advisory lock. Returns the stored :class:`Event`.
    Raises ``ValueError`` on an unknown or reserved type. For many events use
    :func:`events_append`.
    """
    spec = EventSpec(subject, event_type, payload, target, tuple(supersedes))
    (event_id,) = events_append(items=[spec])
    return Event.objects.select_related("record", "key").get(pk=event_id.removeprefix("sha256:"))
