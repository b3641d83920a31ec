"""Semantic search services: embed papers, hybrid (RRF) search, similar papers (issue 10)."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import Count, Exists, Min, OuterRef, QuerySet
from django.utils import timezone

from papers import search_index
from papers.models import Paper
from papers.search_filters import web_text
from papers.search_fold import search_fold
from papers.selectors import category_q
from wove.backlog import Backlog
from wove.bulk import int_array
from wove.replicas import read_alias

from .embedders import DIMENSIONS, Embedder, embedder_error, embedder_name, get_embedder, min_similarity
from .models import PaperEmbedding
from .schema import (
    TABLE,
    ensure_vector_schema,
    model_index_create,
    model_index_drop,
    model_index_exists,
    model_index_missing,
    vector_column_exists,
)
from .search_model import search_embedder, search_model, switch_when_covered
from .texts import paper_text

logger = logging.getLogger(__name__)

MODES = ("hybrid", "semantic", "keyword")
# Reciprocal-rank fusion constant (Cormack, Clarke & Büttcher 2009): 60 is their value; it
# damps the head of each list so one list alone cannot decide the fused order.
RRF_K = 60


@dataclass(frozen=True)
class SemanticStatus:
    """Whether semantic search can run here, and if not, a sentence saying why."""

    available: bool
    reason: str = ""
    model: str = ""


def semantic_status() -> SemanticStatus:
    """Check model and pgvector: ``SemanticStatus(available, reason, model)``.

    ``model`` is the model searches read (:func:`semantic.search_model.search_model`: the
    configured one, or the previous one while the archive is re-embedded). Not available
    while a large backlog of that model is written before its index build
    (:func:`semantic.schema.model_index_missing`). Costs two catalog queries (plus loading
    the model once per process, and reading the search model's name once a minute).
    ``reason`` is a sentence for logs and for a page's "semantic search is unavailable" note.
    """
    if not vector_column_exists():
        return SemanticStatus(False, "the database has no pgvector extension")
    embedder = search_embedder()
    if embedder is None:
        return SemanticStatus(False, embedder_error() or f"the model {search_model()!r} is not installed")
    if model_index_missing(embedder.name):
        return SemanticStatus(False, "the semantic index is being built", embedder.name)
    return SemanticStatus(True, "", embedder.name)


def semantic_available() -> bool:
    """True when semantic and hybrid search can run (model installed and pgvector present)."""
    return semantic_status().available


# --- embedding --------------------------------------------------------------------------------


def _text_hash(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


# pgvector's text input format, ``[x1,...,x384]``. Nine significant digits give back every
# float32 exactly (seven, until issue 29, rounded the last bit of many), and one format for the
# whole vector costs half of one per number (60 against 110 us a vector: 100,000 papers' stage
# wrote 5 s of it on the embeddings' one Python thread).
_VECTOR_FORMAT = "[" + ",".join(["%.9g"] * DIMENSIONS) + "]"


def _vector_literal(vector: Sequence[float]) -> str:
    """``vector`` (``DIMENSIONS`` floats: a numpy float32 row or a list) as pgvector's text."""
    values = vector.tolist() if hasattr(vector, "tolist") else list(vector)
    return _VECTOR_FORMAT % tuple(values)


@dataclass
class EmbedResult:
    """Counts of one embedding run: papers embedded, already current, skipped as bad input."""

    embedded: int = 0
    unchanged: int = 0
    skipped: int = 0
    removed: int = 0
    seconds: float = 0.0
    available: bool = True
    reason: str = ""
    model: str = ""
    # What switch_when_covered did after a full run ({} after a partial one).
    switch: dict = field(default_factory=dict)
    # Whether the run built its model's HNSW index (after writing a large backlog without it).
    index_built: bool = False


def embeddings_update(
    *,
    batch_size: int = 64,
    limit: int | None = None,
    paper_ids: Iterable[int] | None = None,
    pending_only: bool = False,
    embedder: Embedder | None = None,
    progress=None,
    total=None,
) -> EmbedResult:
    """Embed every paper that has no vector yet, or whose title/abstract (or model) changed.

    Idempotent: a paper whose stored ``text_hash`` matches is never embedded again, so a run
    after a harvest embeds only the new papers. Works in batches of ``batch_size`` papers, each
    written in its own transaction (a killed run keeps what it finished). ``paper_ids`` limits
    the run to those papers; ``pending_only`` to :func:`embeddings_pending` (no vector, one of
    another model, or changed since it was embedded: the pipeline's stage, which must not
    re-read every abstract of a large archive each sweep); ``limit`` caps how many are
    embedded. A paper whose batch fails in the model is retried alone, and if it fails again
    it is logged and skipped. Vectors of deleted papers are removed (``removed``). Returns an
    :class:`EmbedResult`; ``available`` is False (nothing done) without model or pgvector.
    ``total`` is called once with the number of papers the run considers, and ``progress``
    with the number considered since its last call (embedded, unchanged or skipped: a
    progress bar's rate and ETA).

    Papers are read :data:`CHUNK` at a time, so memory does not grow with the backlog. A full
    run (no ``paper_ids``, no ``limit``) with a large backlog writes its vectors with no index
    and builds the model's HNSW index once at its end (:func:`_index_deferred`); otherwise the
    index is built, if missing, before the first vector is written.

    Vectors are stored beside other models' (one row per paper and model); when the run leaves
    no paper waiting for ``model``, searches switch to it (:func:`switch_when_covered`).
    """
    started = time.monotonic()
    if not ensure_vector_schema():
        return EmbedResult(available=False, reason="the database has no pgvector extension")
    model = embedder.name if embedder is not None else embedder_name()
    if model is None:
        get_embedder()  # records why it cannot load
        return EmbedResult(available=False, reason=embedder_error())
    result = EmbedResult(model=model)
    # A deleted paper (an OAI deleted header) keeps no vector: nothing may find it by meaning.
    result.removed, _ = PaperEmbedding.objects.filter(paper__deleted=True).delete()
    papers = (embeddings_pending(model) if pending_only else Paper.objects.filter(deleted=False)).order_by(
        "pk"
    )
    if paper_ids is not None:
        papers = papers.filter(pk__in=list(paper_ids))
    full_run = paper_ids is None and limit is None
    considered = papers.count()
    if total:
        total(considered if limit is None else min(considered, limit))
    deferred = full_run and _index_deferred(model, considered if pending_only else None)
    # A vector is as new as the text it was made from: a paper changed after this read has a
    # later modified_at, so embeddings_pending finds it again.
    read_at = timezone.now()
    passed = 0  # papers counted unchanged or skipped so far, already reported to `progress`
    for todo in _texts_to_embed(papers, model, result, mark_unchanged_at=read_at if pending_only else None):
        if progress and result.unchanged + result.skipped > passed:
            progress(result.unchanged + result.skipped - passed)
        if limit is not None:
            todo = todo[: max(0, limit - result.embedded)]
        if todo and embedder is None:
            embedder = get_embedder()  # loaded only when there is something to embed
            if embedder is None:
                return EmbedResult(available=False, reason=embedder_error(), unchanged=result.unchanged)
        if todo and not deferred:
            model_index_create(model)  # no-op once it exists: one catalog lookup a chunk
        _embed_chunk(todo, embedder, result, batch_size=batch_size, read_at=read_at, progress=progress)
        passed = result.unchanged + result.skipped
        if limit is not None and result.embedded >= limit:
            break
    if full_run:
        # One build over every vector written without the index (or left by a killed run).
        result.index_built = model_index_create(model)
        # The model may now cover every paper the searches' model covers (or an old model's
        # rows may be due to go). Partial runs leave that to the next full one.
        result.switch = switch_when_covered(model)
    result.seconds = time.monotonic() - started
    return result


def _embed_chunk(
    todo, embedder: Embedder, result: EmbedResult, *, batch_size: int, read_at, progress
) -> None:
    """Embed and store ``todo`` (``[(paper_id, text, text_hash)]``) in batches, counting in
    ``result``; each batch its own transaction."""
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        rows = _embed_batch(embedder, batch)
        result.skipped += len(batch) - len(rows)
        _store(rows, result.model, read_at)
        result.embedded += len(rows)
        if progress:
            progress(len(batch))


# A full run with at least this many papers waiting, and at least as many as its model has
# vectors, writes them with no index and builds the model's index once at its end (issue 29):
# on two cores an insert into a 100,000-vector HNSW graph costs 1.8 ms, a build 0.2 ms a vector.
BULK_INDEX_FROM = 20_000
# Papers read, hashed and embedded at a time: the run's memory does not grow with the backlog.
CHUNK = 2_000


def _index_deferred(model: str, waiting: int | None) -> bool:
    """Whether this full run writes ``model``'s vectors with no index (dropping it if present):
    ``waiting`` (papers :func:`embeddings_pending` holds; counted here when None) is
    :data:`BULK_INDEX_FROM` or more, and no fewer than the model's stored vectors. The papers
    waiting, not those read: a full run over an embedded archive reads every paper and
    embeds almost none. Until
    the build at the run's end, the model's searches answer in keyword mode once the table is
    past :data:`semantic.schema.EXACT_SCAN_BYTES` (a first fill, a model change: semantic
    search covers at most half the archive then anyway)."""
    if waiting is None:
        waiting = embeddings_pending(model).count()
    if waiting < BULK_INDEX_FROM:
        return False
    if waiting < PaperEmbedding.objects.filter(model=model).count():
        return False
    if model_index_exists(model):
        logger.info("writing %s %s vectors before one index build: the index is dropped", waiting, model)
        model_index_drop(model)
    return True


def _texts_to_embed(
    papers: QuerySet[Paper], model: str, result: EmbedResult, *, mark_unchanged_at
) -> Iterator[list[tuple[int, str, str]]]:
    """Chunks of ``[(paper_id, text, text_hash)]`` of ``papers`` (ordered by pk, read
    :data:`CHUNK` at a time) whose ``model`` vector is missing or was made from another text;
    counts the others in ``result`` (unchanged, skipped as empty). With ``mark_unchanged_at``
    (the stage's run), unchanged vectors get that ``embedded_at``."""
    last = 0
    while True:
        rows = list(papers.filter(pk__gt=last).values_list("pk", "title", "abstract")[:CHUNK])
        if not rows:
            return
        last = rows[-1][0]
        current = dict(
            PaperEmbedding.objects.filter(paper_id__in=[pk for pk, _, _ in rows], model=model).values_list(
                "paper_id", "text_hash"
            )
        )
        todo: list[tuple[int, str, str]] = []
        unchanged: list[int] = []
        for pk, title, abstract in rows:
            text = paper_text(title=title or "", abstract=abstract or "")
            digest = _text_hash(model, text)
            if current.get(pk) == digest:
                result.unchanged += 1
                unchanged.append(pk)
            elif not text.strip(". "):
                result.skipped += 1
            else:
                todo.append((pk, text, digest))
        if unchanged and mark_unchanged_at:
            # A paper changed elsewhere (its authors, say) keeps its vector; marked current, it
            # leaves the stage's backlog instead of being read again every sweep. (A full run
            # reads every paper: nearly all unchanged, and left alone.)
            PaperEmbedding.objects.filter(paper_id__in=unchanged, model=model).update(
                embedded_at=mark_unchanged_at
            )
        yield todo


def embeddings_pending(model: str | None = None) -> QuerySet[Paper]:
    """Live papers the embeddings stage waits for: no vector of ``model`` (default: the
    configured one; other models' vectors do not count), or a paper changed (``modified_at``)
    after its vector was written. A superset of what :func:`embeddings_update` embeds: a change that
    left title and abstract alone is found here and skipped there by its text hash."""
    model = model or embedder_name() or ""
    vectors = PaperEmbedding.objects.filter(paper=OuterRef("pk"), model=model)
    current = vectors.filter(embedded_at__gte=OuterRef("modified_at"))
    return Paper.objects.filter(deleted=False).filter(~Exists(current))


def embeddings_backlog() -> Backlog:
    """Papers :func:`embeddings_pending` holds and the oldest one's change time; ``waiting``
    is None (with the reason) when search runs in keyword mode."""
    if not vector_column_exists():
        return Backlog(waiting=None, note="keyword mode: the database has no pgvector extension")
    if embedder_name() is None:  # without loading the model
        return Backlog(waiting=None, note="keyword mode: no embedding model installed")
    row = embeddings_pending().aggregate(n=Count("pk"), oldest=Min("modified_at"))
    return Backlog(waiting=row["n"], oldest=row["oldest"] if row["n"] else None)


def _embed_batch(embedder: Embedder, batch: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """``[(paper_id, text_hash, vector literal)]``; a failing batch is retried paper by paper."""
    try:
        vectors = embedder.embed_passages([text for _, text, _ in batch])
        return [(pk, digest, _vector_literal(v)) for (pk, _, digest), v in zip(batch, vectors, strict=True)]
    except Exception:
        if len(batch) == 1:
            logger.exception("embedding paper %s failed; skipped", batch[0][0])
            return []
        rows = []
        for item in batch:
            rows.extend(_embed_batch(embedder, [item]))
        return rows


def _store(rows: list[tuple[int, str, str]], model: str, read_at) -> None:
    if not rows:
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {TABLE} (paper_id, model, text_hash, embedded_at, embedding) "  # noqa: S608
            "VALUES (%s, %s, %s, %s, %s::vector) "
            "ON CONFLICT (paper_id, model) DO UPDATE SET "
            "text_hash = EXCLUDED.text_hash, embedded_at = EXCLUDED.embedded_at, "
            "embedding = EXCLUDED.embedding",
            [(pk, model, digest, read_at, vec) for pk, digest, vec in rows],
        )


# --- search -----------------------------------------------------------------------------------


def _candidates(
    *,
    within: QuerySet[Paper] | None,
    category: str,
    submitted_from: date | None,
    submitted_to: date | None,
) -> tuple[str, list]:
    """SQL ``p.id IN (...)`` restriction (with params) for the filters, public papers only."""
    papers = (within if within is not None else Paper.objects.all()).filter(deleted=False, hidden=False)
    if category:
        papers = papers.filter(category_q(category))
    if submitted_from:
        papers = papers.filter(submitted_at__date__gte=submitted_from)
    if submitted_to:
        papers = papers.filter(submitted_at__date__lte=submitted_to)
    # No ordering or annotations in the IN (...) subquery: a caller's sorted, ranked queryset
    # (e.g. the site's search) is accepted as it is.
    sql, params = papers.order_by().values("pk").query.sql_with_params()
    return sql, list(params)


def _has_search_vector() -> bool:
    # The site's stored, GIN-indexed tsvector (issue 7), once its migration has run.
    if "search_vector" not in {f.name for f in Paper._meta.get_fields()}:
        return False
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('papers_paper') "
            "AND attname = 'search_vector' AND NOT attisdropped"
        )
        return cursor.fetchone() is not None


# The index's best this many (at least) are read and filtered by the search's restriction; a
# narrower restriction that keeps too few of them is ranked by PostgreSQL instead.
INDEX_DEPTH = 500


def _index_ranking(*, query: str, limit: int, restrict: tuple[str, list]) -> list[tuple[int, float]] | None:
    """:func:`keyword_ranking` from the search index (:mod:`papers.search_index`, BM25 scores):
    its best ``max(limit * 5, INDEX_DEPTH)`` matches, those inside ``restrict`` kept in order.
    ``None`` when PostgreSQL must rank: no current copy of the index, or the restriction kept
    fewer than ``limit`` while the index holds more matches than it read."""
    copy = search_index.usable()
    if copy is None:
        return None
    depth = max(limit * 5, INDEX_DEPTH)
    hits = search_index.search(query, copy=copy, limit=depth)
    if not hits.ids:
        return []
    sql, params = restrict
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM papers_paper WHERE id = ANY(%s::bigint[]) AND id IN ({sql})",  # noqa: S608
            [int_array(hits.ids), *params],
        )
        inside = {pk for (pk,) in cursor.fetchall()}
    ranked = [(pk, score) for pk, score in zip(hits.ids, hits.scores, strict=True) if pk in inside]
    if len(ranked) < limit and hits.count > len(hits.ids):
        return None
    return ranked[:limit]


def keyword_ranking(*, query: str, limit: int, restrict: tuple[str, list]) -> list[tuple[int, float]]:
    """Full-text ranking: ``websearch_to_tsquery('english', query)``, best ``ts_rank_cd`` first
    (accents of ``query`` folded as the search vector's, :mod:`papers.search_fold`;
    hyphenated words as phrases, :func:`papers.search_filters.web_text`).

    Uses the papers' ``search_vector`` column (title A, authors B, abstract C) when it exists,
    else ``to_tsvector`` over title (A) and abstract (C) computed per row. Returns
    ``[(paper_id, rank)]``, at most ``limit``; ties go to the lower paper id.
    """
    if (ranked := _index_ranking(query=query, limit=limit, restrict=restrict)) is not None:
        return ranked
    sql, params = restrict
    if _has_search_vector():
        vector = "p.search_vector"
    else:
        vector = (
            "(setweight(to_tsvector('english', p.title), 'A') || "
            "setweight(to_tsvector('english', p.abstract), 'C'))"
        )
    statement = (
        f"SELECT p.id, ts_rank_cd({vector}, q) AS r FROM papers_paper p, "  # noqa: S608
        "websearch_to_tsquery('english', %s) q "
        f"WHERE {vector} @@ q AND p.id IN ({sql}) ORDER BY r DESC, p.id LIMIT %s"
    )
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(statement, [search_fold(web_text(query)), *params, limit])
        return [(pk, float(r)) for pk, r in cursor.fetchall()]


def _vector_ranking(
    *,
    target_sql: str,
    target_params: list,
    model: str,
    limit: int,
    restrict: tuple[str, list],
    exclude: int | None,
) -> list[tuple[int, float]]:
    # Only ``model``'s rows: while the archive is re-embedded a paper holds two models' vectors,
    # and cosines across models mean nothing.
    sql, params = restrict
    ef_search = max(settings.SEMANTIC_EF_SEARCH, limit)
    statement = (
        # The inner query walks the HNSW index (ORDER BY distance LIMIT); filters are applied
        # during the walk with pgvector's iterative scan, so a narrow filter still fills `limit`.
        f"SELECT id, 1 - d FROM (SELECT e.paper_id AS id, e.embedding <=> ({target_sql}) AS d "  # noqa: S608
        f"FROM {TABLE} e WHERE e.model = %s AND e.paper_id IN ({sql}) AND e.paper_id <> %s "
        "ORDER BY d LIMIT %s) hits ORDER BY d, id"
    )
    alias = read_alias()
    with transaction.atomic(using=alias), connections[alias].cursor() as cursor:
        cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef_search)])
        cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        cursor.execute(statement, [*target_params, model, *params, exclude or 0, limit])
        return [(pk, float(score)) for pk, score in cursor.fetchall()]


def semantic_ranking(
    *, query: str, limit: int, restrict: tuple[str, list], embedder: Embedder
) -> list[tuple[int, float]]:
    """Nearest papers to the query's embedding: ``[(paper_id, cosine similarity)]``, best first,
    at most ``limit``, none below the model's floor (:func:`semantic.embedders.min_similarity`),
    over the vectors of ``embedder``'s model only.

    Nearest neighbours always exist, so without a floor every query would list the whole
    archive. The floor is chosen on the hand-judged sample queries by
    ``bench/similarity_floor.py`` (the highest mean F1 of the set above it; BENCHMARKS.md).
    """
    vector = embedder.embed_query(query)
    hits = _vector_ranking(
        target_sql="%s::vector",
        target_params=[_vector_literal(vector)],
        model=embedder.name,
        limit=limit,
        restrict=restrict,
        exclude=None,
    )
    floor = min_similarity(embedder.name)
    return [(pk, score) for pk, score in hits if score >= floor]


_warned: set[str] = set()


def _warn_fallback(reason: str) -> None:
    # Once per process and reason: the log says why search answers in keyword mode.
    if reason not in _warned:
        _warned.add(reason)
        logger.warning("semantic search unavailable (%s): searching in keyword mode", reason)


def rrf_fuse(rankings: Sequence[Sequence[int]], *, k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion: score(d) = sum over rankings of 1 / (k + rank of d), rank 1-based.

    ``rankings`` are lists of ids, best first. Returns ``[(id, score)]`` by score descending;
    ties go to the id with the better best rank, then to the lower id (deterministic).
    """
    scores: dict[int, float] = {}
    best: dict[int, int] = {}
    for ranking in rankings:
        for rank, pk in enumerate(ranking, start=1):
            scores[pk] = scores.get(pk, 0.0) + 1.0 / (k + rank)
            best[pk] = min(best.get(pk, rank), rank)
    return sorted(scores.items(), key=lambda item: (-item[1], best[item[0]], item[0]))


@dataclass(frozen=True)
class SearchResult:
    """Papers a search found: ``hits`` ``[(paper_id, score)]`` best first, and ``complete``:
    False when more papers qualify than ``hits`` holds (a count must then say "at least")."""

    hits: list[tuple[int, float]]
    complete: bool = True
    mode: str = "keyword"


def rank_papers(
    *,
    query: str,
    mode: str = "hybrid",
    limit: int = 20,
    within: QuerySet[Paper] | None = None,
    category: str = "",
    submitted_from: date | None = None,
    submitted_to: date | None = None,
    candidates: int | None = None,
) -> SearchResult:
    """:func:`search_papers` with its completeness: the :class:`SearchResult` of ``query``.

    ``keyword`` finds the papers matching the words; ``semantic`` the papers at or above the
    similarity floor (:func:`semantic.embedders.min_similarity`); ``hybrid`` the union of both,
    ordered by reciprocal-rank fusion (k=60) of the two lists, each read to
    ``max(limit, candidates)`` (default ``settings.SEMANTIC_HYBRID_CANDIDATES``). Each list is
    read one row deeper than kept, so ``complete`` is exact: False when a list had more rows or
    the fused union is longer than ``limit``. ``mode`` in the result is the mode that ran.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    query = (query or "").strip()
    if not query or limit <= 0:
        return SearchResult(hits=[], mode=mode)
    restrict = _candidates(
        within=within, category=category, submitted_from=submitted_from, submitted_to=submitted_to
    )
    embedder = None
    if mode != "keyword":
        status = semantic_status()
        embedder = search_embedder() if status.available else None
        if embedder is None:
            _warn_fallback(status.reason)
            mode = "keyword"
    if mode == "keyword":
        hits = keyword_ranking(query=query, limit=limit + 1, restrict=restrict)
        return SearchResult(hits=hits[:limit], complete=len(hits) <= limit, mode=mode)
    if mode == "semantic":
        hits = semantic_ranking(query=query, limit=limit + 1, restrict=restrict, embedder=embedder)
        return SearchResult(hits=hits[:limit], complete=len(hits) <= limit, mode=mode)
    depth = max(limit, candidates or settings.SEMANTIC_HYBRID_CANDIDATES)
    keyword = keyword_ranking(query=query, limit=depth + 1, restrict=restrict)
    semantic = semantic_ranking(query=query, limit=depth + 1, restrict=restrict, embedder=embedder)
    fused = rrf_fuse([[pk for pk, _ in keyword[:depth]], [pk for pk, _ in semantic[:depth]]])
    complete = len(keyword) <= depth and len(semantic) <= depth and len(fused) <= limit
    return SearchResult(hits=fused[:limit], complete=complete, mode=mode)


def search_papers(
    *,
    query: str,
    mode: str = "hybrid",
    limit: int = 20,
    within: QuerySet[Paper] | None = None,
    category: str = "",
    submitted_from: date | None = None,
    submitted_to: date | None = None,
    candidates: int | None = None,
) -> list[tuple[int, float]]:
    """Search public papers; returns ``[(paper_id, score)]``, best first, at most ``limit``.

    ``mode``: ``keyword`` (PostgreSQL full text, score = ``ts_rank_cd``), ``semantic``
    (cosine similarity of title+abstract embeddings, score in [-1, 1], none below the floor)
    or ``hybrid`` (default: reciprocal-rank fusion, k=60, of the top ``candidates`` (default
    max(limit, 100)) of both; score = RRF sum). Without model or pgvector, ``semantic`` and
    ``hybrid`` quietly run as ``keyword`` (check :func:`semantic_status` to tell the visitor).
    Filters: ``within`` (any Paper queryset, e.g. the site's facet filters), ``category``
    (primary or cross-list), ``submitted_from``/``submitted_to`` (dates, inclusive). Hidden
    and deleted papers never appear. Raises ``ValueError`` for an unknown mode; an empty query
    returns ``[]``. :func:`rank_papers` also says whether more papers qualify.
    """
    return rank_papers(
        query=query,
        mode=mode,
        limit=limit,
        within=within,
        category=category,
        submitted_from=submitted_from,
        submitted_to=submitted_to,
        candidates=candidates,
    ).hits


def embedding_coverage() -> tuple[int, int]:
    """``(papers with a vector of the model searches read, public papers)``, for "2,100 of 2,800
    papers searchable by meaning". Two counts; on an archive of more than
    :data:`COVERAGE_CACHE_FROM` papers they are kept in Django's cache for a minute (they move
    only when the embeddings stage runs, and counting millions of rows per search is not
    free); a smaller archive counts afresh, so a note never lags its own papers."""
    from django.core.cache import cache

    model = search_model()
    key = f"wove:embedding-coverage:{_text_hash(model, '')[:16]}"  # no spaces in cache keys
    found = cache.get(key)
    if found is None:
        public = Paper.objects.filter(deleted=False, hidden=False)
        embedded = public.filter(embeddings__model=model).count()
        found = (embedded, public.count())
        if found[1] > COVERAGE_CACHE_FROM:
            cache.set(key, found, 60)
    return tuple(found)


COVERAGE_CACHE_FROM = 10_000


def similar_papers(
    *, paper_id: int, limit: int = 5, within: QuerySet[Paper] | None = None, category: str = ""
) -> list[int]:
    """Ids of the ``limit`` public papers nearest to ``paper_id``'s embedding, nearest first.

    Returns ``[]`` when semantic search is unavailable here or the paper has no vector yet
    (not embedded, or deleted); the paper itself is never listed.
    """
    if limit <= 0 or not vector_column_exists():
        return []
    model = search_model()
    if not PaperEmbedding.objects.filter(paper_id=paper_id, model=model).exists():
        return []  # not embedded yet: the worker's next embed_papers run will add it
    if model_index_missing(model):
        return []  # a large backlog is being written before its index build: no full scans
    restrict = _candidates(within=within, category=category, submitted_from=None, submitted_to=None)
    hits = _vector_ranking(
        target_sql=f"SELECT embedding FROM {TABLE} WHERE paper_id = %s AND model = %s",  # noqa: S608
        target_params=[paper_id, model],
        model=model,
        limit=limit,
        restrict=restrict,
        exclude=paper_id,
    )
    return [pk for pk, _ in hits]


def similar_papers_for_display(*, paper: Paper, limit: int = 5) -> list[Paper]:
    """The :func:`similar_papers` of ``paper`` as Paper objects in order (for templates)."""
    ids = similar_papers(paper_id=paper.pk, limit=limit)
    by_id = Paper.objects.public().only("pk", "arxiv_id", "slug", "title", "authors_text", "submitted_at")
    found = by_id.in_bulk(ids)
    return [found[pk] for pk in ids if pk in found]


__all__ = [
    "DIMENSIONS",
    "MODES",
    "EmbedResult",
    "SearchResult",
    "SemanticStatus",
    "embedding_coverage",
    "embeddings_update",
    "rank_papers",
    "rrf_fuse",
    "search_papers",
    "semantic_available",
    "semantic_status",
    "similar_papers",
    "similar_papers_for_display",
]
