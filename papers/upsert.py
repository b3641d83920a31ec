"""Writing paper records: batched, idempotent upserts of parsed arXiv records.

Services follow ``<entity>_<action>(*, ...)``. A record whose merged content equals what is
stored writes nothing; author slots and versions are upserted on their natural keys.

Order (issue 18): a record is never made worse by a later, older message. How new a message
is, its *as-of day* (:func:`record_asof`), is its OAI datestamp; without one (the Kaggle
dump, the arXiv API) the day it was last updated (Kaggle's ``update_date``), else the day
of its newest version. The paper stores the as-of day of the message that last set its
content (``content_asof``) and of the one that last set its authors (``authors_asof``):

- Content (title, abstract, categories, DOI, journal-ref, comments, licence, ...) is set by a
  message whose ``(as-of day, VERSIONS_RANK)`` is at least the stored one's; authors by one
  whose ``(as-of day, AUTHORS_RANK)`` is. Among messages of the same day the existing rule
  holds: arXivRaw wins for content, versions, dates and licence, the arXiv format for
  authors and affiliations. A deletion ranks above every format on its day.
- Fields a source lacks (licence, submitter, set specs) are never erased by it, and an
  older message fills them when they are empty.
- Versions are only added: a message's versions are merged into the stored ones by number,
  a known detail (timestamp, size, source type) is kept and a missing one filled (arXiv
  never changes a version once announced). ``latest_version`` is the highest number known,
  ``submitted_at`` v1's time, ``updated_date`` the latest day any message gave, and
  ``withdrawn`` follows from the stored comments, abstract and versions.

So any order of the same messages gives the same paper. Concurrency: each batch runs in one
transaction that locks its papers first (``SELECT ... FOR UPDATE`` on the rows that exist,
a transaction-level advisory lock per identifier not stored yet), so an API fetch racing a
harvest waits and then merges into what the other wrote.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time

from django.db import connection, transaction
from django.utils import timezone

from wove.bulk import copy_insert, copy_upsert, db_values, gc_paused
from wove.locks import advisory_xact_locks, lock_key

from .authors import AuthorSlot
from .collaborations import collaborations_write
from .models import Category, Paper, PaperAuthor, PaperVersion
from .records import ArxivRecord, VersionInfo
from .text import make_slug

# How many records one papers_upsert call takes from a harvested page.
BATCH_SIZE = 500
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
    "dois",
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

# When each kind of content was last set (see the module docstring): written with the
# source fields, but outside the content hash, so only a real change of content re-signs.
ORDER_FIELDS = ["content_asof", "authors_asof"]
# A Paper row as the writers copy it, and with its id (a new paper's, from the sequence).
PAPER_FIELDS = [
    "arxiv_id",
    *SOURCE_FIELDS,
    *ORDER_FIELDS,
    "created_at",
    "modified_at",
    "cited_by_count",
    "hidden",
    "editor_note",
]
_INSERT_FIELDS = ["id", *PAPER_FIELDS]
# A PaperAuthor row as the writers copy it: the paper and its author position, then the slot.
SLOT_FIELDS = [
    "paper",
    "position",
    "name",
    "keyname",
    "forenames",
    "suffix",
    "affiliations",
    "is_collaboration",
]
# The advisory lock (wove.locks) an upsert holds on an arXiv id it is about to insert.
NEW_PAPER_LOCK = "papers.new_paper"


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


# A deletion outranks every format on its day: a record of the same datestamp does not undo it.
DELETED_RANK = 4


def record_asof(record: ArxivRecord) -> date | None:
    """How new a message is, as a day: its OAI datestamp; else its ``updated`` day (Kaggle's
    ``update_date``, the API's newest-version day); else the day of its newest version,
    else its ``created`` day. ``None`` when it gives none (older than any day)."""
    if record.datestamp:
        return record.datestamp
    if record.updated:
        return record.updated
    days = [v.submitted_at.date() for v in record.versions if v.submitted_at]
    return max(days, default=None) or record.created


def _at_least_as_new(asof: date | None, rank: int, stored_asof: date | None, stored_rank: int) -> bool:
    """Whether a message of ``(asof, rank)`` may replace what one of ``(stored_asof,
    stored_rank)`` set: a later day wins, and on the same day the higher (or equal) rank.
    A missing day counts as older than any."""
    return (asof or date.min, rank) >= (stored_asof or date.min, stored_rank)


def _content_rank(paper: Paper) -> int:
    return DELETED_RANK if paper.deleted else VERSIONS_RANK.get(paper.versions_source, 0)


def merge_versions(
    stored: Sequence[VersionInfo], incoming: Sequence[VersionInfo]
) -> list[VersionInfo] | None:
    """The union of two version lists by number, ascending; ``None`` when ``incoming`` is
    empty (keep the stored list). A detail already known (timestamp, size, source type)
    is kept and a missing one filled from ``incoming``: arXiv never changes a version once
    announced, and some sources leave details out (the API gives no sizes)."""
    if not incoming:
        return None
    merged = {v.version: VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type) for v in stored}
    for v in incoming:
        have = merged.get(v.version)
        if have is None:
            merged[v.version] = VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type)
            continue
        have.submitted_at = have.submitted_at or v.submitted_at
        have.size_kb = have.size_kb if have.size_kb is not None else v.size_kb
        have.source_type = have.source_type or v.source_type
    return [merged[n] for n in sorted(merged)]


def _versions_of(paper: Paper) -> list[VersionInfo]:
    return getattr(paper, "_new_versions", None) or []


def _hash_content(paper: Paper, authors: Sequence[AuthorSlot], versions: Sequence[VersionInfo]) -> str:
    payload = {
        f: (getattr(paper, f + "_id") if f == "primary_category" else getattr(paper, f))
        for f in SOURCE_FIELDS
        if f not in ("content_hash", "dois")
    }
    # Under the key and in the form the one ``doi`` string had before it became a list
    # (issue 18): a paper with one DOI or none hashes as before, so a re-harvest leaves it
    # unchanged; one whose joined string is now split hashes anew and is signed again.
    payload["doi"] = paper.dois if len(paper.dois) > 1 else paper.doi
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
    created: bool = False  # inserted by this batch: no stored slots or versions to update


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
    """Merge one record into the stored paper (or a new one) by the order and precedence
    rules of the module docstring."""
    paper = existing or Paper(arxiv_id=record.arxiv_id)
    before = (paper.content_hash, paper.content_asof, paper.authors_asof) if existing else None
    asof = record_asof(record)
    if record.datestamp and (not paper.oai_datestamp or record.datestamp >= paper.oai_datestamp):
        paper.oai_datestamp = record.datestamp
    if record.deleted:
        if _at_least_as_new(asof, DELETED_RANK, paper.content_asof, _content_rank(paper)):
            paper.deleted = True
            paper.content_asof = asof
        if not paper.title:
            paper.title = ""
            paper.slug = make_slug(paper.arxiv_id.replace("/", "-"))
        authors, versions = None, None
    else:
        won = _at_least_as_new(
            asof, VERSIONS_RANK.get(record.source, 0), paper.content_asof, _content_rank(paper)
        )
        if won:
            _set_content(paper, record, categories)
            paper.content_asof = asof
        _fill_missing(paper, record, won=won)
        authors = _merge_authors(paper, record, asof)
        versions = merge_versions(_stored_versions(paper), record.versions)
        _set_dates(paper, record, versions if versions is not None else _stored_versions(paper))

    paper.content_hash = _hash_content(
        paper,
        authors if authors is not None else _stored_authors(paper),
        versions if versions is not None else _stored_versions(paper),
    )
    after = (paper.content_hash, paper.content_asof, paper.authors_asof)
    return _Merged(paper, authors, versions, after != before)


def _set_content(paper: Paper, record: ArxivRecord, categories: CategoryMap) -> None:
    """Set the content fields from a record at least as new as the one that last set them."""
    codes = categories.canonical(record.categories)
    paper.title = record.title
    paper.slug = record.slug or (
        make_slug(record.title, fallback="") or make_slug(record.arxiv_id.replace("/", "-"))
    )
    paper.abstract = record.abstract
    paper.categories = codes
    paper.primary_category_id = codes[0]
    for name in ("dois", "journal_ref", "report_no", "comments", "msc_class", "acm_class", "proxy"):
        setattr(paper, name, getattr(record, name))
    paper.versions_source = record.source
    paper.deleted = False


def _fill_missing(paper: Paper, record: ArxivRecord, *, won: bool) -> None:
    """Licence, submitter and set specs: a record that has them sets them when it ``won``
    the content or when none is stored; one that lacks them never erases them (the arXiv
    API carries neither licence nor submitter, the arXiv format no submitter)."""
    for name in ("license", "submitter", "set_specs"):
        value = getattr(record, name)
        if value and (won or not getattr(paper, name)):
            setattr(paper, name, value)


def _merge_authors(paper: Paper, record: ArxivRecord, asof: date | None) -> list[AuthorSlot] | None:
    """The record's author slots when it wins the authors (``(as-of day, AUTHORS_RANK)`` at
    least the stored one's, or none stored); ``None`` keeps the stored slots."""
    if record.authors is None:
        return None
    stored_rank = AUTHORS_RANK.get(paper.authors_source, 0)
    rank = AUTHORS_RANK.get(record.source, 0)
    if paper.authors_text and not _at_least_as_new(asof, rank, paper.authors_asof, stored_rank):
        return None
    paper.authors_text = record.authors_text
    paper.authors_source = record.source
    paper.authors_asof = asof
    return record.authors


def _set_dates(paper: Paper, record: ArxivRecord, versions: Sequence[VersionInfo]) -> None:
    """Dates, latest version and the withdrawn flag from the merged versions, never going
    back: v1's time when known (else the earliest ``created`` day, day precision), the
    highest version number, the latest ``updated`` day any message gave."""
    first = next((v for v in versions if v.version == 1 and v.submitted_at), None)
    if first is not None:
        paper.submitted_at = first.submitted_at
        paper.submitted_day_precision = False
    elif record.created and (
        paper.submitted_at is None
        or (paper.submitted_day_precision and _day_start(record.created) < paper.submitted_at)
    ):
        paper.submitted_at = _day_start(record.created)
        paper.submitted_day_precision = True
    if versions:
        paper.latest_version = max(paper.latest_version or 1, versions[-1].version)
    days = [d for d in (paper.updated_date, record.updated) if d]
    days += [v.submitted_at.date() for v in versions if v.submitted_at]
    paper.updated_date = max(days, default=None)
    state = ArxivRecord(paper.arxiv_id, "", comments=paper.comments, abstract=paper.abstract)
    state.versions = list(versions)
    paper.withdrawn = state.withdrawn


def papers_upsert(*, records: Sequence[ArxivRecord], categories: CategoryMap | None = None) -> UpsertResult:
    """Write a batch of parsed records: one query to read, a few bulk statements to write.

    Idempotent: a record whose merged content equals what is stored writes nothing. Author
    slots and versions are upserted on ``(paper, position)`` / ``(paper, version)``, and
    slots past the new author count removed, so ids of unchanged slots stay stable (later
    stages link researchers to them). A deleted header (OAI-PMH ``status="deleted"``) for
    a paper not stored creates nothing; it counts as unchanged. Returns an :class:`UpsertResult`.

    Order-independent (module docstring): a record older than what is stored changes
    nothing, versions are never removed. Runs in one transaction (the caller's when one is
    open) that locks the batch's papers before reading them, so two upserts of one paper
    (an API fetch racing a harvest) run one after the other; a page of N new papers holds
    N advisory locks until it commits.
    """
    result = UpsertResult(seen=len(records))
    if not records:
        return result
    categories = categories or CategoryMap()
    categories.ensure(code for r in records for code in r.categories)
    # One transaction from the read to the write, the papers locked first (_papers_locked):
    # a concurrent upsert of the same paper (an API fetch racing a harvest) waits, then
    # reads what this one wrote.
    with gc_paused(), transaction.atomic():  # gc: thousands of instances stay alive to the end
        return _papers_upsert(records, categories, result)


def _papers_upsert(
    records: Sequence[ArxivRecord], categories: CategoryMap, result: UpsertResult
) -> UpsertResult:
    ids = {r.arxiv_id for r in records}
    existing = _papers_locked(ids)
    if not existing and len(ids) == len(records) and not any(r.deleted for r in records):
        return _new_papers_upsert(records, categories, result)
    _prefetch_children(existing)

    merged: dict[str, _Merged] = {}
    unknown_deleted = 0
    for record in records:
        previous = merged.get(record.arxiv_id)
        base = previous.paper if previous else existing.get(record.arxiv_id)
        if record.deleted and base is None:
            unknown_deleted += 1  # a deletion of a paper never stored: nothing to mark (OAI-04)
            continue
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
    result.unchanged = len(merged) - len(changed) + unknown_deleted
    result.deleted = sum(1 for m in changed if m.paper.deleted)
    if not changed:
        return result
    with transaction.atomic(savepoint=False):  # inside papers_upsert's transaction
        now = timezone.now()
        stored = [m for m in changed if m.paper.pk is not None]
        for item in stored:
            item.paper.modified_at = now
        if stored:
            copy_upsert(
                model=Paper,
                fields=PAPER_FIELDS,
                rows=(db_values(m.paper, PAPER_FIELDS) for m in stored),
                conflict_fields=["arxiv_id"],
                update_fields=[*SOURCE_FIELDS, *ORDER_FIELDS, "modified_at"],
            )
        new = [m for m in changed if m.paper.pk is None]
        _papers_insert(new, len(new), now)
        _children_of_changed(changed)
    result.written = len(changed)
    result.written_ids = [m.paper.arxiv_id for m in changed]
    return result


def _new_papers_upsert(
    records: Sequence[ArxivRecord], categories: CategoryMap, result: UpsertResult
) -> UpsertResult:
    """A batch of papers none of which is stored, each once and none a deletion (a first
    load's page): each record is merged while the ``COPY`` streams the ones before it, so
    PostgreSQL computes their search vectors while Python merges the next."""
    with transaction.atomic(savepoint=False):  # inside papers_upsert's transaction
        merged = (_merge(None, record, categories) for record in records)
        items = _papers_insert(merged, len(records), timezone.now())
        _children_of_changed(items)
    result.written = len(items)
    result.written_ids = [m.paper.arxiv_id for m in items]
    return result


def _children_of_changed(changed: list[_Merged]) -> None:
    _write_authors([m for m in changed if m.authors is not None])
    _write_versions([m for m in changed if m.versions is not None])


def _papers_insert(items: Iterable[_Merged], count: int, now: datetime) -> list[_Merged]:
    """Insert ``count`` new papers (``items``, a list or a generator that merges them as
    they are read): ids taken from the table's sequence in record order (the ids the staged
    ``INSERT`` gave them before), then one ``COPY`` straight into the table. Returns the
    items, each with its ``pk``. No other writer can insert these arXiv ids meanwhile:
    :func:`_papers_locked` holds an advisory lock on each, so a key that exists after all is
    a bug, raised as ``IntegrityError`` and failing the batch, never merged into the wrong
    row."""
    if not count:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [Paper._meta.db_table, count],
        )
        ids = iter(sorted(row[0] for row in cursor.fetchall()))
    inserted: list[_Merged] = []

    def rows() -> Iterator[tuple]:
        for item in items:
            item.paper.pk = next(ids)
            item.paper.created_at = item.paper.modified_at = now
            item.created = True
            inserted.append(item)
            yield db_values(item.paper, _INSERT_FIELDS)

    copy_insert(model=Paper, fields=_INSERT_FIELDS, rows=rows())
    if len(inserted) != count:
        raise ValueError(f"{len(inserted)} new papers merged, {count} ids taken")
    return inserted


def _papers_locked(ids: set[str]) -> dict[str, Paper]:
    """The stored papers of ``ids`` by arXiv id, locked until the transaction ends: rows that
    exist with ``SELECT ... FOR UPDATE`` (in id order, so two batches cannot deadlock on
    them), identifiers not stored yet with a transaction-level advisory lock each (no row to
    lock: two inserts of one new paper would otherwise both merge into nothing), then read
    again, since the lock may have waited for a transaction that inserted them."""
    existing = _read_for_update(ids)
    missing = ids - existing.keys()
    if missing:
        advisory_xact_locks(NEW_PAPER_LOCK, sorted({lock_key(i) for i in missing}), wait=True)
        existing.update(_read_for_update(missing))
    return existing


def _read_for_update(ids: set[str]) -> dict[str, Paper]:
    rows = Paper.objects.select_for_update().filter(arxiv_id__in=ids).order_by("arxiv_id")
    return {p.arxiv_id: p for p in rows}


def _prefetch_children(existing: dict[str, Paper]) -> None:
    if not existing:
        return
    by_pk = {p.pk: p for p in existing.values()}
    for paper in by_pk.values():
        paper._stored_authors = []
        paper._stored_versions = []
        paper._slot_identities = {}
    for a in PaperAuthor.objects.filter(paper_id__in=by_pk).order_by("paper_id", "position"):
        by_pk[a.paper_id]._stored_authors.append(
            AuthorSlot(a.name, a.keyname, a.forenames, a.suffix, list(a.affiliations), a.is_collaboration)
        )
        by_pk[a.paper_id]._slot_identities[a.position] = (a.pk, _slot_identity(a))
    for v in PaperVersion.objects.filter(paper_id__in=by_pk).order_by("paper_id", "version"):
        by_pk[v.paper_id]._stored_versions.append(
            VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type)
        )


def _slot_identity(slot: AuthorSlot | PaperAuthor) -> tuple[str, str, str, bool]:
    """Who a slot names: its written name and name parts, and whether it is a collaboration
    (affiliations and suffix left out: they change without the person changing)."""
    return (slot.name[:500], slot.keyname[:300], slot.forenames[:300], slot.is_collaboration)


def _slots_renamed(items: list[_Merged]) -> list[int]:
    """Ids of stored slots whose position a newer author list gives to someone else (a
    reordered, inserted or removed author, a person that is now a collaboration). Such a
    slot is deleted and written anew, so what other apps keep on it (its researcher, its
    institution links) goes with it by ``CASCADE`` and the pipeline matches the new name:
    an update in place would leave the old person's researcher on the new name."""
    renamed = []
    for m in items:
        stored = getattr(m.paper, "_slot_identities", None) or {}
        for position, slot in enumerate(m.authors or [], start=1):
            held = stored.get(position)
            if held is not None and held[1] != _slot_identity(slot):
                renamed.append(held[0])
    return renamed


def _write_authors(items: list[_Merged]) -> None:
    if not items:
        return
    renamed = _slots_renamed(items)
    if renamed:
        PaperAuthor.objects.filter(pk__in=renamed).delete()
    _children_write(
        PaperAuthor,
        SLOT_FIELDS,
        items,
        # Plain tuples in ``fields`` order: a model instance per slot cost more than its COPY.
        lambda m: [
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
            for index, slot in enumerate(m.authors or [], start=1)
        ],
    )
    _delete_beyond(
        PaperAuthor, "position", [(m.paper.pk, len(m.authors or [])) for m in items if not m.created]
    )
    collaborations_write(paper_slots=[(m.paper.pk, m.authors or []) for m in items])


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
    _children_write(
        PaperVersion,
        ["paper", "version", "submitted_at", "size_kb", "source_type"],
        items,
        lambda m: [
            (m.paper.pk, v.version, v.submitted_at, v.size_kb, v.source_type) for v in m.versions or []
        ],
    )
    _delete_beyond(
        PaperVersion,
        "version",
        [(m.paper.pk, max((v.version for v in m.versions or []), default=0)) for m in items if not m.created],
    )


def _children_write(model, fields: list[str], items: list[_Merged], rows_of) -> None:
    """Write the batch's child rows (``rows_of(item)``: tuples in ``fields`` order, the paper
    and its natural key first): a new paper's straight in, as it has none stored; a stored
    paper's upserted on ``(paper, key)``."""
    for created in (True, False):
        rows = [row for m in items if m.created is created for row in rows_of(m)]
        if rows and created:
            copy_insert(model=model, fields=fields, rows=rows)
        elif rows:
            copy_upsert(
                model=model, fields=fields, rows=rows, conflict_fields=fields[:2], update_fields=fields[2:]
            )
