"""Keeping the search index (:mod:`papers.search_index`) in step with PostgreSQL: a copy
built whole from the public papers (:func:`rebuild`), the papers' change log applied to it
(:func:`sync`), the log pruned once applied (:func:`prune_changes`), and what a copy holds
and lacks (:func:`backlog_waiting`, :func:`status`). Split from ``papers/search_index.py``
by job (writing here, reading there); the pipeline's ``search-index`` stage
(``papers.tasks.search_index_stage``) and ``manage.py search_index`` call these."""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable
from datetime import UTC, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from wove.bulk import int_array

from .models import Paper, SearchChange, SearchIndexState
from .search_index import (
    BATCH,
    LOG_KEY,
    SAMPLE_DIR,
    SCHEMA_VERSION,
    Copy,
    SearchIndexUnavailable,
    _current,
    _current_any,
    _linked_sql,
    _open,
    _register,
    _schema,
    _tantivy,
    _write_meta,
    in_sample,
    index_root,
)
from .search_terms import PAIR_FIELDS, word_pairs

logger = logging.getLogger(__name__)


def _paper_rows(ids: Iterable[int] | None) -> Iterable[tuple]:
    """``(id, title, authors_text, abstract, categories, submitted_at, cited_by_count)`` of
    public papers, all of them (a server-side cursor) or those of ``ids``."""
    papers = Paper.objects.public().order_by()
    if ids is not None:
        papers = papers.filter(pk__in=list(ids))
    columns = ("id", "title", "authors_text", "abstract", "categories", "submitted_at", "cited_by_count")
    return papers.values_list(*columns).iterator(chunk_size=BATCH)


def _linked_ids(paper_ids: list[int]) -> dict[str, dict[int, list[int]]]:
    """``{field: {paper id: ids}}`` of every registered linked field for ``paper_ids``."""
    out: dict[str, dict[int, list[int]]] = {}
    with connection.cursor() as cursor:
        for name, sql in _linked_sql.items():
            cursor.execute(sql, [int_array(paper_ids)])
            out[name] = {pk: ids for pk, ids in cursor.fetchall() if ids}
    return out


def _documents(ids: Iterable[int] | None) -> Iterable[tuple[int, object]]:
    """``(paper id, Tantivy document)`` of the public papers (all, or those of ``ids``),
    :data:`BATCH` at a time: each batch's linked ids (``register_linked_ids``) read in one
    query a field."""
    batch: list[tuple] = []

    def flush():
        linked = _linked_ids([row[0] for row in batch])
        docs = [
            (row[0], _document(row, {name: held.get(row[0], ()) for name, held in linked.items()}))
            for row in batch
        ]
        batch.clear()
        return docs

    for row in _paper_rows(ids):
        batch.append(row)
        if len(batch) >= BATCH:
            yield from flush()
    if batch:
        yield from flush()


def _document(row: tuple, linked: dict[str, Iterable[int]] | None = None):
    tantivy = _tantivy()
    pk, title, authors, abstract, categories, submitted_at, cited = row
    doc = tantivy.Document()
    doc.add_unsigned("id", pk)
    for name, text in (("title", title), ("authors", authors), ("abstract", abstract)):
        doc.add_text(name, text or "")
        doc.add_text(PAIR_FIELDS[name], " ".join(word_pairs(text or "")))
    for code in categories or ():
        doc.add_text("categories", code)
    if categories:
        doc.add_text("category_set", " ".join(sorted(set(categories))))
    if submitted_at is not None:
        doc.add_integer("submitted", int(submitted_at.timestamp()))
        doc.add_unsigned("year", submitted_at.astimezone(UTC).year)
    doc.add_unsigned("cited", 0 if cited is None else cited + 1)
    for name, values in (linked or {}).items():
        for value in values:
            doc.add_unsigned(name, value)
    return doc


def _log_head() -> int:
    """The log's highest id now (0 when empty)."""
    return SearchChange.objects.order_by("-id").values_list("id", flat=True).first() or 0


def _pruned_through() -> int:
    state = SearchIndexState.objects.filter(key=LOG_KEY)
    return state.values_list("pruned_through", flat=True).first() or 0


def rebuild(*, progress: Callable[[int], object] | None = None) -> dict:
    """Build a new copy of the index from PostgreSQL's public papers and switch to it.

    The log's head is read first, so changes made while the copy is built are applied by the
    :func:`sync` this ends with (applying one twice is harmless). The old copy serves until
    the switch and is then removed. Returns ``{"papers": n, "applied": log id}``. Raises
    :class:`SearchIndexUnavailable` when ``SEARCH_INDEX_DIR`` is empty."""
    root = index_root()
    if root is None:
        raise SearchIndexUnavailable("SEARCH_INDEX_DIR is empty: the search index is off")
    root.mkdir(parents=True, exist_ok=True)
    # Through the pruning point at least: a log pruned to empty must not look unapplied.
    head = max(_log_head(), _pruned_through())
    path = root / f"index-{time.time_ns()}"
    path.mkdir()
    writer, sampled = _writer(path, create=True), _writer(path / SAMPLE_DIR, create=True)
    count = 0
    with transaction.atomic():  # the server-side cursor needs a transaction
        for pk, doc in _documents(None):
            writer.add_document(doc)
            if in_sample(pk):
                sampled.add_document(doc)
            count += 1
            if progress is not None and count % BATCH == 0:
                progress(BATCH)
    for each in (writer, sampled):
        each.commit()
        each.wait_merging_threads()
    copy = Copy(path, head, SCHEMA_VERSION)
    old = _current_any(root)
    _write_meta(copy)
    tmp = root / "current.tmp"
    tmp.write_text(path.name)
    os.replace(tmp, root / "current")
    if old is not None and old != path:
        shutil.rmtree(old, ignore_errors=True)
    logger.info("search index rebuilt: %s papers, log applied through %s", count, head)
    result = sync()
    return {"papers": count, "applied": result["applied"]}


def sync(*, progress: Callable[[int], object] | None = None) -> dict:
    """Apply the log after this copy's last applied id: each logged paper is removed from the
    index and added again if it is public now (so a deleted or hidden paper is gone), in
    batches of :data:`BATCH` log entries, each one Tantivy commit. Builds the copy whole
    (:func:`rebuild`) when there is none, it has another schema version, or the log it needs
    was pruned. Returns ``{"changes": n, "applied": log id, "rebuilt": bool}``. Raises
    :class:`SearchIndexUnavailable` when ``SEARCH_INDEX_DIR`` is empty."""
    if index_root() is None:
        raise SearchIndexUnavailable("SEARCH_INDEX_DIR is empty: the search index is off")
    copy = _current()
    pruned = _pruned_through()
    if copy is None or copy.version != SCHEMA_VERSION or copy.applied < pruned:
        built = rebuild(progress=progress)
        return {"changes": 0, "applied": built["applied"], "rebuilt": True}
    tantivy = _tantivy()
    changes = 0
    writers = None
    while True:
        pending = SearchChange.objects.filter(id__gt=copy.applied).order_by("id")
        rows = list(pending.values_list("id", "paper_id")[:BATCH])
        if not rows:
            break
        if writers is None:
            writers = [_writer(copy.path), _writer(copy.path / SAMPLE_DIR)]
        writer, sampled = writers
        ids = sorted({pk for _id, pk in rows})
        gone = tantivy.Query.term_set_query(_schema(), "id", ids)
        writer.delete_documents_by_query(gone)
        sampled.delete_documents_by_query(gone)
        for pk, doc in _documents(ids):
            writer.add_document(doc)
            if in_sample(pk):
                sampled.add_document(doc)
        # Both committed before applied.json moves: a crash between re-applies the batch.
        writer.commit()
        sampled.commit()
        copy.applied = rows[-1][0]
        _write_meta(copy)
        changes += len(rows)
        if progress is not None:
            progress(len(ids))
    for each in writers or ():
        each.wait_merging_threads()
    return {"changes": changes, "applied": copy.applied, "rebuilt": False}


def _writer(path: Path, *, create: bool = False):
    """A Tantivy writer of the index at ``path`` (a copy's, or its sample's), made empty
    there with ``create``. The sample's writer gets an eighth of the heap (it takes about
    one paper in 64), at least Tantivy's 15 MB."""
    tantivy = _tantivy()
    if create:
        path.mkdir(exist_ok=True)
    index = tantivy.Index(_schema(), path=str(path), reuse=not create)
    _register(index)
    heap = settings.SEARCH_INDEX_HEAP_BYTES
    if path.name == SAMPLE_DIR:
        heap = max(heap // 8, 15_000_000)
    return index.writer(heap_size=heap, num_threads=1)


def prune_changes(*, older_than: timedelta | None = None) -> int:
    """Delete log entries this host's copy applied and older than ``older_than`` (default
    ``settings.SEARCH_LOG_KEEP_DAYS`` days: another host's copy that lags longer is rebuilt).
    Records the highest id pruned in :class:`SearchIndexState`. Returns the rows deleted."""
    copy = _current()
    if copy is None:
        return 0
    keep = older_than if older_than is not None else timedelta(days=settings.SEARCH_LOG_KEEP_DAYS)
    cutoff = timezone.now() - keep
    with transaction.atomic():
        doomed = SearchChange.objects.filter(id__lte=copy.applied, changed_at__lt=cutoff)
        top = doomed.order_by("-id").values_list("id", flat=True).first()
        if top is None:
            return 0
        deleted, _ = SearchChange.objects.filter(id__lte=top).delete()
        SearchIndexState.objects.update_or_create(key=LOG_KEY, defaults={"pruned_through": top})
    return deleted


def backlog_waiting() -> int | None:
    """Log entries this host's copy has not applied (``None`` when the index is off);
    with no copy built, the public papers a rebuild would index."""
    if index_root() is None:
        return None
    copy = _current()
    if copy is None or copy.version != SCHEMA_VERSION:
        return Paper.objects.public().count()
    return SearchChange.objects.filter(id__gt=copy.applied).count()


def status() -> dict:
    """What the index holds here, for the admin and ``manage.py search_index``:
    ``{"configured", "path", "papers", "applied", "behind", "version"}``."""
    copy = _current()
    if copy is None:
        configured = index_root() is not None
        return {"configured": configured, "path": None, "papers": 0, "applied": 0, "behind": None}
    index = _open(copy)
    behind = SearchChange.objects.filter(id__gt=copy.applied).count()
    return {
        "configured": True,
        "path": str(copy.path),
        "papers": index.searcher().num_docs,
        "applied": copy.applied,
        "behind": behind,
        "version": copy.version,
    }
