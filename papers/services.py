"""Writing harvested papers: batched, idempotent upserts and harvest runs with a cursor.

Services follow ``<entity>_<action>(*, ...)``. No network call happens inside a transaction:
a page is fetched first, then written with its resumptionToken in one transaction, so the
saved cursor always matches the rows written.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from wove.bulk import copy_upsert, db_values, gc_paused

from .authors import AuthorSlot
from .models import Category, HarvestRun, MetadataSource, Paper, PaperAuthor, PaperVersion
from .oai import OaiClient, OaiError, OaiPage, parse_oai_response
from .parse_ahead import parsed_pages
from .records import ArxivRecord, RecordError, VersionInfo
from .text import make_slug

logger = logging.getLogger(__name__)

BATCH_SIZE = 500
MAX_TOKEN_RESTARTS = 3
# Which source wins for which fields when a paper arrives in several formats (issue #2):
# arXivRaw for versions, dates and licence; the OAI arXiv format for authors/affiliations.
AUTHORS_RANK = {"arXiv": 3, "kaggle": 2, "api": 2, "arXivRaw": 1, "": 0}
VERSIONS_RANK = {"arXivRaw": 3, "kaggle": 2, "api": 2, "arXiv": 1, "": 0}
SOURCE_FIELDS = [
    "slug",
    "title",
    "abstract",
    "authors_text",
    "primary_category",
    "categories",
    "license",
    "doi",
    "journal_ref",
    "report_no",
    "comments",
    "msc_class",
    "acm_class",
    "submitter",
    "proxy",
    "submitted_at",
    "submitted_day_precision",
    "updated_date",
    "latest_version",
    "oai_datestamp",
    "set_specs",
    "withdrawn",
    "deleted",
    "versions_source",
    "authors_source",
    "content_hash",
]


@dataclass
class UpsertResult:
    """Counts from one upsert call: records seen, papers written (created or changed),
    papers unchanged, papers marked deleted, and records skipped as malformed."""

    seen: int = 0
    written: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: int = 0
    written_ids: list[str] = field(default_factory=list)

    def add(self, other: UpsertResult) -> None:
        self.seen += other.seen
        self.written += other.written
        self.unchanged += other.unchanged
        self.deleted += other.deleted
        self.skipped += other.skipped
        self.written_ids.extend(other.written_ids)


class CategoryMap:
    """Maps any category code seen in arXiv metadata to the canonical code papers use.

    Aliases (``cs.NA`` → ``math.NA``) and retired archives (``alg-geom`` → ``math.AG``)
    come from the Category table. Codes not in the table are created as inactive stubs, so
    a new arXiv category never drops a paper.
    """

    def __init__(self) -> None:
        self._map = {
            code: (canonical or code)
            for code, canonical in Category.objects.values_list("code", "canonical_id")
        }

    def canonical(self, codes: Iterable[str]) -> list[str]:
        """Canonical codes in order, without duplicates."""
        out: list[str] = []
        for code in codes:
            mapped = self._map.get(code, code)
            if mapped not in out:
                out.append(mapped)
        return out

    def ensure(self, codes: Iterable[str]) -> None:
        """Create inactive stub rows for codes the taxonomy does not know."""
        missing = {c for c in codes if c not in self._map}
        if missing:
            Category.objects.bulk_create(
                [Category(code=c, name=c, active=False, group=c.split(".")[0]) for c in missing],
                ignore_conflicts=True,
            )
            for code in missing:
                self._map[code] = code


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=UTC)


def _versions_of(paper: Paper) -> list[VersionInfo]:
    return getattr(paper, "_new_versions", None) or []


def _hash_content(paper: Paper, authors: Sequence[AuthorSlot], versions: Sequence[VersionInfo]) -> str:
    payload = {
        f: (getattr(paper, f + "_id") if f == "primary_category" else getattr(paper, f))
        for f in SOURCE_FIELDS
        if f != "content_hash"
    }
    payload["authors"] = [
        [a.name, a.keyname, a.forenames, a.suffix, a.affiliations, a.is_collaboration] for a in authors
    ]
    payload["versions"] = [[v.version, v.submitted_at, v.size_kb, v.source_type] for v in versions]
    blob = json.dumps(payload, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class _Merged:
    paper: Paper
    authors: list[AuthorSlot] | None  # None: keep the stored slots
    versions: list[VersionInfo] | None  # None: keep the stored versions
    changed: bool


def _stored_authors(paper: Paper) -> list[AuthorSlot]:
    cached = getattr(paper, "_stored_authors", None)
    if cached is not None:
        return cached
    if paper.pk is None:
        return []
    return [
        AuthorSlot(a.name, a.keyname, a.forenames, a.suffix, list(a.affiliations), a.is_collaboration)
        for a in paper.authors.all()
    ]


def _stored_versions(paper: Paper) -> list[VersionInfo]:
    cached = getattr(paper, "_stored_versions", None)
    if cached is not None:
        return cached
    if paper.pk is None:
        return []
    return [VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type) for v in paper.versions.all()]


def _merge(existing: Paper | None, record: ArxivRecord, categories: CategoryMap) -> _Merged:
    """Merge one record into the stored paper (or a new one) by the precedence rules."""
    paper = existing or Paper(arxiv_id=record.arxiv_id)
    before = paper.content_hash if existing else ""
    if record.deleted:
        paper.deleted = True
        if record.datestamp:
            paper.oai_datestamp = record.datestamp
        if not paper.title:
            paper.title = ""
            paper.slug = make_slug(paper.arxiv_id.replace("/", "-"))
        authors, versions = None, None
    else:
        codes = categories.canonical(record.categories)
        paper.title = record.title
        paper.slug = record.slug or (
            make_slug(record.title, fallback="") or make_slug(record.arxiv_id.replace("/", "-"))
        )
        paper.abstract = record.abstract
        paper.categories = codes
        paper.primary_category_id = codes[0]
        for name in ("doi", "journal_ref", "report_no", "comments", "msc_class", "acm_class", "proxy"):
            setattr(paper, name, getattr(record, name))
        if record.submitter:
            paper.submitter = record.submitter
        if record.set_specs:
            paper.set_specs = record.set_specs
        if record.datestamp and (not paper.oai_datestamp or record.datestamp >= paper.oai_datestamp):
            paper.oai_datestamp = record.datestamp
        paper.deleted = False

        authors = None
        if record.authors is not None and (
            AUTHORS_RANK.get(record.source, 0) >= AUTHORS_RANK.get(paper.authors_source, 0)
            or not paper.authors_text
        ):
            authors = record.authors
            paper.authors_text = record.authors_text
            paper.authors_source = record.source

        versions = None
        versions_win = VERSIONS_RANK.get(record.source, 0) >= VERSIONS_RANK.get(paper.versions_source, 0)
        if versions_win:
            paper.versions_source = record.source
            paper.license = record.license or (paper.license if record.source == "arXiv" else "")
            if record.versions:
                versions = record.versions
                first = record.versions[0]
                paper.submitted_at = first.submitted_at
                paper.submitted_day_precision = first.submitted_at is None
                paper.latest_version = record.versions[-1].version
                last = record.versions[-1].submitted_at
                paper.updated_date = record.updated or (last.date() if last else None)
            else:
                versions = [] if record.source == "arXiv" and not existing else None
                if record.created:
                    paper.submitted_at = _day_start(record.created)
                    paper.submitted_day_precision = True
                if record.updated:
                    paper.updated_date = record.updated
        elif not paper.license and record.license:
            paper.license = record.license
        # The source that owns versions decides; a weaker source can only add the flag.
        paper.withdrawn = record.withdrawn if versions_win else (paper.withdrawn or record.withdrawn)

    paper.content_hash = _hash_content(
        paper,
        authors if authors is not None else _stored_authors(paper),
        versions if versions is not None else _stored_versions(paper),
    )
    return _Merged(paper, authors, versions, paper.content_hash != before)


def papers_upsert(*, records: Sequence[ArxivRecord], categories: CategoryMap | None = None) -> UpsertResult:
    """Write a batch of parsed records: one query to read, a few bulk statements to write.

    Idempotent: a record whose merged content equals what is stored writes nothing. Author
    slots and versions are upserted on ``(paper, position)`` / ``(paper, version)``, and
    slots past the new author count removed, so ids of unchanged slots stay stable (later
    stages link researchers to them). Returns an :class:`UpsertResult`.
    """
    result = UpsertResult(seen=len(records))
    if not records:
        return result
    with gc_paused():  # thousands of instances stay alive to the end: collections find nothing
        return _papers_upsert(records, categories, result)


def _papers_upsert(
    records: Sequence[ArxivRecord], categories: CategoryMap | None, result: UpsertResult
) -> UpsertResult:
    categories = categories or CategoryMap()
    categories.ensure(code for r in records for code in r.categories)
    ids = {r.arxiv_id for r in records}
    existing = {p.arxiv_id: p for p in Paper.objects.filter(arxiv_id__in=ids)}
    _prefetch_children(existing)

    merged: dict[str, _Merged] = {}
    for record in records:
        previous = merged.get(record.arxiv_id)
        base = previous.paper if previous else existing.get(record.arxiv_id)
        if previous:
            # Same paper twice in one batch: carry the pending slots forward.
            base._stored_authors = previous.authors if previous.authors is not None else _stored_authors(base)
            base._stored_versions = (
                previous.versions if previous.versions is not None else _stored_versions(base)
            )
        item = _merge(base, record, categories)
        if previous:
            item.changed = item.changed or previous.changed
            item.authors = item.authors if item.authors is not None else previous.authors
            item.versions = item.versions if item.versions is not None else previous.versions
        merged[record.arxiv_id] = item

    changed = [m for m in merged.values() if m.changed]
    result.unchanged = len(merged) - len(changed)
    result.deleted = sum(1 for m in changed if m.paper.deleted)
    if not changed:
        return result
    with transaction.atomic():
        now = timezone.now()
        for item in changed:
            item.paper.modified_at = now
            if item.paper.pk is None:
                item.paper.created_at = now
        fields = [
            "arxiv_id",
            *SOURCE_FIELDS,
            "created_at",
            "modified_at",
            "cited_by_count",
            "hidden",
            "editor_note",
        ]
        ids = dict(
            (arxiv_id, pk)
            for pk, arxiv_id in copy_upsert(
                model=Paper,
                fields=fields,
                rows=(db_values(m.paper, fields) for m in changed),
                conflict_fields=["arxiv_id"],
                update_fields=[*SOURCE_FIELDS, "modified_at"],
                returning=["id", "arxiv_id"],
            )
        )
        for item in changed:
            item.paper.pk = ids[item.paper.arxiv_id]
        _write_authors([m for m in changed if m.authors is not None])
        _write_versions([m for m in changed if m.versions is not None])
    result.written = len(changed)
    result.written_ids = [m.paper.arxiv_id for m in changed]
    return result


def _prefetch_children(existing: dict[str, Paper]) -> None:
    if not existing:
        return
    by_pk = {p.pk: p for p in existing.values()}
    for paper in by_pk.values():
        paper._stored_authors = []
        paper._stored_versions = []
    for a in PaperAuthor.objects.filter(paper_id__in=by_pk).order_by("paper_id", "position"):
        by_pk[a.paper_id]._stored_authors.append(
            AuthorSlot(a.name, a.keyname, a.forenames, a.suffix, list(a.affiliations), a.is_collaboration)
        )
    for v in PaperVersion.objects.filter(paper_id__in=by_pk).order_by("paper_id", "version"):
        by_pk[v.paper_id]._stored_versions.append(
            VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type)
        )


def _write_authors(items: list[_Merged]) -> None:
    if not items:
        return
    # Plain tuples in ``fields`` order: a model instance per slot cost more than its COPY.
    rows = [
        (
            m.paper.pk,
            index,
            slot.name[:500],
            slot.keyname[:300],
            slot.forenames[:300],
            slot.suffix[:50],
            slot.affiliations,
            slot.is_collaboration,
        )
        for m in items
        for index, slot in enumerate(m.authors or [], start=1)
    ]
    if rows:
        fields = [
            "paper",
            "position",
            "name",
            "keyname",
            "forenames",
            "suffix",
            "affiliations",
            "is_collaboration",
        ]
        copy_upsert(
            model=PaperAuthor,
            fields=fields,
            rows=rows,
            conflict_fields=["paper", "position"],
            update_fields=fields[2:],
        )
    _delete_beyond(PaperAuthor, "position", [(m.paper.pk, len(m.authors or [])) for m in items])


def _delete_beyond(model, column: str, limits: list[tuple[int, int]]) -> None:
    """Delete each paper's child rows whose ``column`` exceeds its limit (author slots past
    the new author count, versions past the newest): one statement finds them, and the
    ORM deletes the few there are, so rows other apps keep on them (a slot's authorship,
    institution links, affiliation mark) go with them by their ``CASCADE``. A raw DELETE
    left those behind, and the foreign-key check failed the whole page at COMMIT."""
    if not limits:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT t.id FROM {table} AS t JOIN unnest(%s::bigint[], %s::integer[]) AS k(paper_id, n) "  # noqa: S608
            f"ON t.paper_id = k.paper_id WHERE t.{connection.ops.quote_name(column)} > k.n",
            [[pk for pk, _ in limits], [n for _, n in limits]],
        )
        ids = [row[0] for row in cursor.fetchall()]
    if ids:
        model.objects.filter(pk__in=ids).delete()


def _write_versions(items: list[_Merged]) -> None:
    if not items:
        return
    rows = [
        (m.paper.pk, v.version, v.submitted_at, v.size_kb, v.source_type)
        for m in items
        for v in m.versions or []
    ]
    if rows:
        fields = ["paper", "version", "submitted_at", "size_kb", "source_type"]
        copy_upsert(
            model=PaperVersion,
            fields=fields,
            rows=rows,
            conflict_fields=["paper", "version"],
            update_fields=fields[2:],
        )
    _delete_beyond(
        PaperVersion,
        "version",
        [(m.paper.pk, max((v.version for v in m.versions or []), default=0)) for m in items],
    )


def _batched(items: Iterable, size: int) -> Iterator[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


# The run's cursor and counters, as they stood before a page: restored when the page's
# transaction fails (also at COMMIT), so the run is saved as failed on the page it did
# not write and a resumed run asks for that page again.
_CURSOR_FIELDS = (
    "pages",
    "records_seen",
    "records_written",
    "records_deleted",
    "records_skipped",
    "response_date",
    "resumption_token",
    "complete_list_size",
)


def _write_page(run: HarvestRun, page: OaiPage, categories: CategoryMap) -> UpsertResult:
    before = {name: getattr(run, name) for name in _CURSOR_FIELDS}
    try:
        return _write_page_atomically(run, page, categories)
    except BaseException:
        for name, value in before.items():
            setattr(run, name, value)
        raise


def _write_page_atomically(run: HarvestRun, page: OaiPage, categories: CategoryMap) -> UpsertResult:
    total = UpsertResult()
    with transaction.atomic():
        for batch in _batched(page.records, BATCH_SIZE):
            total.add(papers_upsert(records=batch, categories=categories))
        total.skipped += len(page.errors)
        total.seen += len(page.errors)
        run.pages += 1
        run.records_seen += total.seen
        run.records_written += total.written
        run.records_deleted += total.deleted
        run.records_skipped += total.skipped
        if run.response_date is None and page.response_date:
            run.response_date = page.response_date
        run.resumption_token = page.resumption_token or ""
        if page.complete_list_size:
            run.complete_list_size = page.complete_list_size
        run.save()
    for error in page.errors:
        logger.warning("harvest run %s skipped %s", run.pk, error)
    return total


# After a bulk load the planner's row estimates are stale until autovacuum catches up;
# join-heavy pages then pick nested loops over thousands of rows. Refresh them at once.
ANALYZE_AFTER_WRITES = 500


def _refresh_statistics(run: HarvestRun) -> None:
    if run.records_written < ANALYZE_AFTER_WRITES:
        return
    tables = [m._meta.db_table for m in (Paper, PaperAuthor, PaperVersion)]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(t) for t in tables))


def _finish(run: HarvestRun, status: str, error: str = "") -> HarvestRun:
    _refresh_statistics(run)
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.resumption_token = "" if status == HarvestRun.Status.COMPLETE else run.resumption_token
    run.save()
    return run


def next_from_date(*, metadata_prefix: str, set_spec: str = "") -> date | None:
    """Where the next incremental harvest starts: the day of the last complete run's
    ``responseDate`` (inclusive, OAI-PMH day granularity), or ``None`` for a first run."""
    last = (
        HarvestRun.objects.filter(
            kind=HarvestRun.Kind.OAI,
            status=HarvestRun.Status.COMPLETE,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            response_date__isnull=False,
        )
        .order_by("-response_date")
        .first()
    )
    return last.response_date.date() if last else None


def harvest_run_resumable(*, metadata_prefix: str, set_spec: str = "") -> HarvestRun | None:
    """The newest interrupted OAI run (running or failed, with a saved resumptionToken) for
    this request, which a new harvest resumes instead of starting over."""
    return (
        HarvestRun.objects.filter(
            kind=HarvestRun.Kind.OAI,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            status__in=[HarvestRun.Status.RUNNING, HarvestRun.Status.FAILED],
        )
        .exclude(resumption_token="")
        .order_by("-started_at")
        .first()
    )


def harvest_oai(
    *,
    client: OaiClient,
    metadata_prefix: str = "arXivRaw",
    from_date: date | None = None,
    until_date: date | None = None,
    set_spec: str = "",
    incremental: bool = True,
    progress=None,
) -> HarvestRun:
    """Harvest ListRecords from an OAI-PMH endpoint into papers, resumably.

    An interrupted run for the same prefix and set resumes from its saved resumptionToken.
    Otherwise a new run starts from ``from_date``, or, when ``incremental`` and no date is
    given, from the day of the last complete run's responseDate. ``badResumptionToken``
    restarts the same request window (idempotent upserts make re-reading safe), at most
    three times; ``noRecordsMatch`` completes the run with nothing written; ``badArgument``
    and any other OAI error fail the run and are raised. ``progress(n)`` is called with
    the records seen per page.

    One harvest per prefix and set runs at a time (a PostgreSQL session advisory lock, freed
    by the server when a killed process's connection drops); runs still marked running
    once the lock is held were interrupted and are marked failed (kept resumable when they
    saved a token).

    Returns the finished :class:`HarvestRun`. Raises :class:`HarvestBusy` when another
    harvest of the same prefix and set holds the lock, :class:`OaiError` or
    ``httpx.HTTPError`` (the run is then saved as failed, its token kept for the next
    attempt).
    """
    if metadata_prefix not in ("arXiv", "arXivRaw"):
        raise ValueError(f"unsupported metadataPrefix {metadata_prefix!r}: use arXiv or arXivRaw")
    paper_indexes_restore()  # what a killed bulk load left dropped
    with _harvest_lock(metadata_prefix=metadata_prefix, set_spec=set_spec):
        _harvest_runs_mark_interrupted(metadata_prefix=metadata_prefix, set_spec=set_spec)
        return _harvest_oai_locked(
            client=client,
            metadata_prefix=metadata_prefix,
            from_date=from_date,
            until_date=until_date,
            set_spec=set_spec,
            incremental=incremental,
            progress=progress,
        )


class HarvestBusy(Exception):
    """Another OAI-PMH harvest of the same metadataPrefix and set, or another bulk load, is
    running right now."""


@contextmanager
def _harvest_lock(*, metadata_prefix: str, set_spec: str) -> Iterator[None]:
    """Hold the session advisory lock of one (prefix, set) harvest; raise :class:`HarvestBusy`
    when another session holds it. A session lock, not a transaction lock: a harvest commits
    once per page."""
    digest = hashlib.sha256(f"papers.harvest_oai:{metadata_prefix}:{set_spec}".encode()).digest()
    key = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        if not cursor.fetchone()[0]:
            raise HarvestBusy(f"another {metadata_prefix} harvest of set {set_spec or '*'} is running")
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        except DatabaseError:  # connection gone: the server has dropped the lock with it
            logger.warning("could not release the harvest lock (connection lost)")


def _harvest_runs_mark_interrupted(*, metadata_prefix: str, set_spec: str) -> int:
    """Mark runs left ``running`` by a dead process as failed; returns how many. Only called
    under the harvest lock, so no live harvest can own them."""
    return HarvestRun.objects.filter(
        kind=HarvestRun.Kind.OAI,
        metadata_prefix=metadata_prefix,
        set_spec=set_spec,
        status=HarvestRun.Status.RUNNING,
    ).update(
        status=HarvestRun.Status.FAILED,
        error="interrupted: its process stopped before the run finished",
    )


def _harvest_oai_locked(
    *,
    client: OaiClient,
    metadata_prefix: str,
    from_date: date | None,
    until_date: date | None,
    set_spec: str,
    incremental: bool,
    progress,
) -> HarvestRun:
    run = harvest_run_resumable(metadata_prefix=metadata_prefix, set_spec=set_spec)
    if (
        run is not None
        and (from_date or until_date)
        and (run.from_date, run.until_date) != (from_date, until_date)
    ):
        run = None  # an explicit, different window: do not resume the old one
    if run is None:
        if from_date is None and incremental:
            from_date = next_from_date(metadata_prefix=metadata_prefix, set_spec=set_spec)
        run = HarvestRun.objects.create(
            kind=HarvestRun.Kind.OAI,
            endpoint=client.endpoint,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            from_date=from_date,
            until_date=until_date,
        )
    else:
        logger.info("resuming harvest run %s from resumptionToken %s", run.pk, run.resumption_token)
        run.status = HarvestRun.Status.RUNNING
        run.save(update_fields=["status"])
    categories = CategoryMap()
    token = run.resumption_token or None
    while True:
        try:
            for page in client.list_records(
                metadata_prefix=run.metadata_prefix,
                from_date=run.from_date,
                until_date=run.until_date,
                set_spec=run.set_spec or None,
                resumption_token=token,
            ):
                result = _write_page(run, page, categories)
                if progress:
                    progress(result.seen)
            return _finish(run, HarvestRun.Status.COMPLETE)
        except OaiError as exc:
            if exc.code == "badResumptionToken" and run.restarts < MAX_TOKEN_RESTARTS:
                logger.warning("run %s: resumptionToken expired; restarting the window", run.pk)
                run.restarts += 1
                run.resumption_token = ""
                run.save(update_fields=["restarts", "resumption_token"])
                token = None
                continue
            _finish(run, HarvestRun.Status.FAILED, str(exc))
            raise
        except Exception as exc:
            _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
            raise


# Tables whose secondary indexes a bulk load drops and rebuilds. Unique indexes and primary
# keys stay: the upserts' ON CONFLICT needs them, and they keep the rows unique throughout.
BULK_TABLES = (Paper, PaperAuthor, PaperVersion)
_BULK_INDEXES_SQL = """
    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
    WHERE i.indrelid = %s::regclass AND NOT i.indisunique AND NOT i.indisprimary
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY i.indexrelid
"""
# Index builds sort in memory up to this much (PostgreSQL's default is 64MB).
BULK_MAINTENANCE_WORK_MEM = "256MB"


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def _try_lock(key: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        return cursor.fetchone()[0]


def _unlock(key: int) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
    except DatabaseError:  # connection gone: the server has dropped the lock with it
        logger.warning("could not release an advisory lock (connection lost)")


_BULK_LOCK = _lock_key("papers.bulk_load")


def _indexes_defer(run: HarvestRun) -> None:
    """Save the CREATE INDEX statements of the secondary indexes of :data:`BULK_TABLES` on
    ``run``, then drop those indexes, in one transaction: a kill before the commit drops
    nothing, one after leaves the statements for :func:`paper_indexes_restore`."""
    with transaction.atomic(), connection.cursor() as cursor:
        # Inside a caller's transaction (tests), deferred foreign-key checks still pending
        # would refuse DROP/CREATE INDEX; run them now. A harvest commits page by page, so
        # there are none there.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        statements = []
        for model in BULK_TABLES:
            cursor.execute(_BULK_INDEXES_SQL, [model._meta.db_table])
            statements += [row[0] for row in cursor.fetchall()]
        run.deferred_indexes = statements
        run.save(update_fields=["deferred_indexes"])
        for statement in statements:
            name = statement.split(" ON ", 1)[0].rsplit(" ", 1)[1]
            cursor.execute(f"DROP INDEX IF EXISTS {name}")


def _indexes_rebuild(runs: Iterable[HarvestRun]) -> int:
    """Create the indexes saved on ``runs`` that do not exist, clear the runs' lists, in one
    transaction (a kill keeps the lists for the next attempt). Returns how many statements
    were run."""
    done = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in _indexes_defer
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{BULK_MAINTENANCE_WORK_MEM}'")
        for run in runs:
            for statement in run.deferred_indexes:
                if not statement.startswith("CREATE INDEX "):
                    raise ValueError(f"not a CREATE INDEX statement: {statement[:80]!r}")
                cursor.execute("CREATE INDEX IF NOT EXISTS " + statement.removeprefix("CREATE INDEX "))
                done += 1
            run.deferred_indexes = []
            run.save(update_fields=["deferred_indexes"])
    return done


def paper_indexes_restore() -> int:
    """Rebuild the indexes a killed or failed bulk load left dropped (their statements are
    kept on its :class:`HarvestRun`). Does nothing while a bulk load is running (it holds
    a session advisory lock that the server frees when its process dies). Called at the
    start of every harvest. Returns the number of CREATE INDEX statements run."""
    pending = HarvestRun.objects.exclude(deferred_indexes=[])
    if not pending.exists():
        return 0
    if not _try_lock(_BULK_LOCK):
        return 0
    try:
        done = _indexes_rebuild(pending)
    finally:
        _unlock(_BULK_LOCK)
    if done:
        logger.warning("rebuilt %s indexes an interrupted bulk load had dropped", done)
    return done


@contextmanager
def _bulk_load(run: HarvestRun) -> Iterator[None]:
    """The set-up of a bulk load around its pages: hold the bulk-load lock, drop the
    secondary indexes (:func:`_indexes_defer`), commit without waiting for the WAL flush,
    and at the end (also after an error) rebuild the indexes in one pass each.

    ``synchronous_commit = off`` loses nothing a harvest relies on: a killed harvester's
    commits are on the server already; a crash of PostgreSQL itself can lose the last
    fraction of a second of commits, each page's rows together with its run counters, and
    re-running the load writes them again (upserts). Raises :class:`HarvestBusy` when
    another bulk load holds the lock."""
    if not _try_lock(_BULK_LOCK):
        raise HarvestBusy("another bulk load is running")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit = off")
        _indexes_defer(run)
        try:
            yield
        finally:
            try:
                _indexes_rebuild([run])
            except DatabaseError:
                logger.exception("bulk load: index rebuild failed; the next harvest retries it")
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("RESET synchronous_commit")
        except DatabaseError:
            pass
        _unlock(_BULK_LOCK)


def _pages_inline(paths: Sequence[str | Path]) -> Iterator[OaiPage | OaiError]:
    for path in paths:
        try:
            yield parse_oai_response(str(path))
        except OaiError as exc:
            yield exc


def harvest_files(*, paths: Sequence[str | Path], progress=None, bulk: bool = False) -> HarvestRun:
    """Load recorded OAI-PMH responses (ListRecords or GetRecord pages) from files.

    Each file is one page; the metadataPrefix is read from each response. A file that is
    an OAI error (``noRecordsMatch``) counts as an empty page; one that is not OAI-PMH at
    all fails the run. Returns the finished :class:`HarvestRun`.

    ``bulk`` is for large and initial loads: pages are parsed in a child process one page
    ahead of the one being written (:func:`papers.parse_ahead.parsed_pages`), the secondary
    indexes of papers, author slots and versions are dropped for the load and rebuilt once
    at its end, and commits do not wait for the WAL flush (see :func:`_bulk_load`). The
    rows written are the same as without it. It rebuilds whole indexes, so on a table
    already much larger than the load it is slower, not faster. Raises
    :class:`HarvestBusy` when another bulk load is running.
    """
    paper_indexes_restore()  # what a killed bulk load left dropped
    run = HarvestRun.objects.create(
        kind=HarvestRun.Kind.FILE,
        metadata_prefix="mixed",
        source_files=[str(p) for p in paths],
    )
    categories = CategoryMap()
    prefixes = set()
    try:
        with _bulk_load(run) if bulk else nullcontext():
            for page in parsed_pages(paths) if bulk else _pages_inline(paths):
                if isinstance(page, OaiError):
                    if page.code == "noRecordsMatch":
                        continue
                    raise page
                if page.metadata_prefix:
                    prefixes.add(page.metadata_prefix)
                result = _write_page(run, page, categories)
                if progress:
                    progress(result.seen)
    except Exception as exc:
        _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    run.metadata_prefix = ",".join(sorted(prefixes)) or "none"
    run.resumption_token = ""
    return _finish(run, HarvestRun.Status.COMPLETE)


def harvest_kaggle(*, path: str | Path, progress=None, batch_size: int = 1000) -> HarvestRun:
    """Bulk-load the Kaggle arXiv dataset (JSON Lines) in constant memory.

    Lines are parsed and written in batches of ``batch_size``; a bad line is logged and
    counted as skipped. Returns the finished :class:`HarvestRun`.
    """
    from .kaggle import iter_kaggle

    paper_indexes_restore()  # what a killed bulk load left dropped
    run = HarvestRun.objects.create(
        kind=HarvestRun.Kind.KAGGLE, metadata_prefix=MetadataSource.KAGGLE, source_files=[str(path)]
    )
    categories = CategoryMap()
    try:
        with open(path, "rb") as stream:
            for batch in _batched(iter_kaggle(stream), batch_size):
                page = OaiPage(
                    records=[r for r in batch if isinstance(r, ArxivRecord)],
                    errors=[r for r in batch if isinstance(r, RecordError)],
                )
                result = _write_page(run, page, categories)
                if progress:
                    progress(result.seen)
    except Exception as exc:
        _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    run.resumption_token = ""
    return _finish(run, HarvestRun.Status.COMPLETE)
