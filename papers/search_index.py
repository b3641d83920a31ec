"""The search index beside PostgreSQL (issue 28): Tantivy (the ``tantivy`` registry package,
Python bindings of the Rust engine) holding every public paper's title, author names and
abstract, for keyword search that stays fast on common words. This module reads it;
:mod:`papers.search_index_sync` builds and updates it.

Why an index beside the database: PostgreSQL's GIN index finds the matches of a word but
cannot rank them; ``ts_rank`` reads every match, so "model" over a million papers read
~100,000 rows per search (BENCHMARKS.md "Search index"). Tantivy scores BM25 and ranks a
union of terms (one word in its fields) with block-max WAND, skipping the blocks that
cannot reach the page; a conjunction (several words) is ranked by reading its matches, and
a phrase among the papers holding its word pairs (:mod:`papers.search_terms`). A query whose
words are common is counted, with its facets, on a small second index in each copy holding
one paper in 64 (:func:`in_sample`), and says "about" (:data:`MIN_SAMPLE`); any other is
counted by reading its matches.

PostgreSQL stays the record. The index follows it through ``papers_searchchange``, a log the
``paper_search_*`` triggers write in the transaction that changes a paper (insert, delete, a
change to a field the index holds). Each copy of the index keeps, in ``applied.json`` beside
it, the last log id it applied; ``sync`` applies what follows and ``rebuild`` builds a copy
whole from PostgreSQL (a new directory, switched to when complete). The pipeline's
``search-index`` stage runs ``sync`` on the worker's host; another web host runs
``manage.py search_index --follow`` beside its own copy (SCALING.md "Past one machine").

Layout under ``settings.SEARCH_INDEX_DIR``: ``current`` (the name of the live directory),
``index-<stamp>/`` (Tantivy's files), ``index-<stamp>/sample/`` (the sample's) and
``index-<stamp>/applied.json``.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, connections, router

from .models import SearchChange
from .search_terms import (
    ANALYZER,
    PAIR_FIELDS,
    TEXT_FIELDS,
    QueryTerms,
    analyzer,
    query_terms,
)
from .selectors import category_codes

logger = logging.getLogger(__name__)

# Bumped when the fields or the analyzer change: a copy of another version is rebuilt.
# 3: each paper's researcher and institution ids (LINKED_FIELDS). 4: category_set.
# 5: the sample copy (SAMPLE_DIR). 6: each text field's word pairs (PAIR_FIELDS).
SCHEMA_VERSION = 6
# BM25 per field, boosted as PostgreSQL's ts_rank weighs title A (1.0), authors B (0.4),
# abstract C (0.2): chosen on the judged queries (bench/search_quality.py, BENCHMARKS.md).
FIELD_BOOSTS = {"title": 3.0, "authors": 1.5, "abstract": 1.0}
LOG_KEY = "log"
BATCH = 5_000
# Ids of the records linked to each paper, held for the search page's facets: field name ->
# SQL giving ``(paper_id, ids bigint[])`` for the paper ids bound as one array parameter.
# Registered by the apps that own those links (researchers, institutions: their ``ready``),
# which also log a paper here when its links change (their ``*_search_*`` triggers).
LINKED_FIELDS = ("researchers", "institutions")
_linked_sql: dict[str, str] = {}
_lock = threading.Lock()
_opened: dict[str, object] = {}


class SearchIndexUnavailable(RuntimeError):
    """The index cannot answer: not configured, not built, another schema version, or
    further behind the log than ``settings.SEARCH_INDEX_MAX_LAG`` changes."""


def _tantivy():
    import tantivy  # imported on first use: the web process pays for it only when searching

    return tantivy


def index_root() -> Path | None:
    """``settings.SEARCH_INDEX_DIR`` as a path, ``None`` when the index is off (empty)."""
    root = getattr(settings, "SEARCH_INDEX_DIR", "")
    return Path(root) if root else None


def _schema():
    tantivy = _tantivy()
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("id", stored=True, indexed=True, fast=True)
    for name in TEXT_FIELDS:
        builder.add_text_field(name, tokenizer_name=ANALYZER)
        # Its word pairs (papers.search_terms.word_pairs), papers only: a phrase's filter.
        builder.add_text_field(PAIR_FIELDS[name], tokenizer_name="whitespace", index_option="basic")
    # Category codes as written (raw): term filters and the facet counts read them.
    builder.add_text_field("categories", tokenizer_name="raw", fast=True)
    # The paper's category codes as one value ("astro-ph gr-qc", sorted): the category facet
    # counts these sets and splits them (a column of one value a paper reads ~15 x faster
    # than the several-valued one: 0.7 against 10.5 ms over 300,000 papers).
    builder.add_text_field("category_set", tokenizer_name="raw", fast=True)
    builder.add_integer_field("submitted", indexed=True, fast=True)  # seconds since the epoch, UTC
    builder.add_unsigned_field("year", indexed=True, fast=True)
    builder.add_unsigned_field("cited", fast=True)  # citation count + 1; 0 when unknown
    for name in LINKED_FIELDS:  # several values a paper; stored to read the first papers' own
        builder.add_unsigned_field(name, stored=True, indexed=True, fast=True)
    return builder.build()


# The sample: a second, small index in each copy (its SAMPLE_DIR) holding the papers of
# in_sample, about one in SAMPLE_EVERY, on which a common query is counted (search).
SAMPLE_DIR = "sample"
SAMPLE_EVERY = 64
_MASK64 = (1 << 64) - 1


def in_sample(paper_id: int) -> bool:
    """Whether paper ``paper_id`` is in the index's sample: SplitMix64's finaliser of the id
    (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014)
    divisible by :data:`SAMPLE_EVERY`, so that the sample is spread over the ids, and with
    them over years and categories, as evenly as a random draw."""
    z = (paper_id + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) % SAMPLE_EVERY == 0


def register_linked_ids(field_name: str, sql: str) -> None:
    """Hold ``field_name`` (one of :data:`LINKED_FIELDS`) for every paper, from ``sql``: a
    query with one parameter, an array of paper ids (``%s::bigint[]``), returning
    ``(paper_id, ids)`` rows (``ids`` a ``bigint[]``; a paper without a row holds none).
    Called from the owning app's ``AppConfig.ready``; the app's triggers must log a paper
    in ``papers_searchchange`` when those ids change. Raises ``ValueError`` for another name."""
    if field_name not in LINKED_FIELDS:
        raise ValueError(f"not a linked field of the search index: {field_name!r}")
    _linked_sql[field_name] = sql


def _register(index) -> None:
    """Our analyzer (:func:`papers.search_terms.analyzer`) under its name in ``index``."""
    index.register_tokenizer(ANALYZER, analyzer())


def database_key() -> str:
    """``host:port/name`` of the database the index follows: a copy built from another
    database (a bench corpus, a test run) is never read, whatever its directory."""
    db = connection.settings_dict
    return f"{db.get('HOST') or ''}:{db.get('PORT') or ''}/{db.get('NAME') or ''}"


@dataclass
class Copy:
    """One copy of the index on this host: its directory, the last log id applied, its
    schema version and the database it follows (:func:`database_key`)."""

    path: Path
    applied: int
    version: int
    database: str = ""

    @property
    def meta_path(self) -> Path:
        return self.path / "applied.json"


def _current() -> Copy | None:
    root = index_root()
    if root is None:
        return None
    try:
        name = (root / "current").read_text().strip()
        meta = json.loads((root / name / "applied.json").read_text())
    except (OSError, ValueError):
        return None
    copy = Copy(
        root / name, int(meta.get("applied", 0)), int(meta.get("version", 0)), meta.get("database", "")
    )
    return copy if copy.database == database_key() else None


def _current_any(root: Path) -> Path | None:
    """The live directory under ``root``, whichever database it follows (replaced by a rebuild)."""
    try:
        return root / (root / "current").read_text().strip()
    except OSError:
        return None


def _write_meta(copy: Copy) -> None:
    """Write ``applied.json`` atomically (a rename), after the Tantivy commit it describes:
    a crash between the two re-applies changes, which is idempotent."""
    tmp = copy.meta_path.with_suffix(".tmp")
    meta = {"applied": copy.applied, "version": SCHEMA_VERSION, "database": database_key()}
    tmp.write_text(json.dumps(meta))
    os.replace(tmp, copy.meta_path)


def _open(copy: Copy, *, sample: bool = False):
    """The process's open Tantivy index for ``copy`` (with ``sample``, its sample's,
    :data:`SAMPLE_DIR`), reloaded when ``applied.json`` moved (a new commit); opened once
    per directory."""
    tantivy = _tantivy()
    key = str(copy.path / SAMPLE_DIR if sample else copy.path)
    with _lock:
        entry = _opened.get(key)
        stamp = copy.meta_path.stat().st_mtime_ns
        if entry is None:
            if settings.SEARCH_INDEX_READ_AHEAD:
                threading.Thread(
                    target=read_ahead, args=(Path(key),), daemon=True, name="search-read-ahead"
                ).start()
            index = tantivy.Index(_schema(), path=key, reuse=True)
            _register(index)
            mine = (str(copy.path), str(copy.path / SAMPLE_DIR))
            for other in [k for k in _opened if k not in mine]:
                del _opened[other]  # a switched-to copy replaces the old one
            _opened[key] = (index, stamp)
            return index
        index, seen = entry
        if seen != stamp:
            index.reload()
            _opened[key] = (index, stamp)
        return index


def read_ahead(path: Path) -> int:
    """Ask the kernel to read every file directly in ``path`` (a copy's, or its sample's,
    directory) into the page cache: ``posix_fadvise(POSIX_FADV_WILLNEED)``, which starts the
    reads and returns (POSIX.1-2001; Linux reads ahead asynchronously). Returns the bytes
    asked for; 0 where the call does not exist or the directory is gone. A file gone meanwhile
    (a merge) is skipped.

    Why: a first view's search of a word nobody searched since the copy was written read its
    term dictionary and postings from disk (at 2.5 M papers 5-50 ms for a hyphenated word's
    pairs, 0.1 ms once read); the pages stay the kernel's to evict under pressure."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return 0
    asked = 0
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:  # the copy removed since (a rebuild switched and pruned it)
        return 0
    for entry in entries:
        if not entry.is_file():
            continue
        try:
            fd = os.open(entry.path, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            size = os.fstat(fd).st_size
            advise(fd, 0, size, os.POSIX_FADV_WILLNEED)
            asked += size
        finally:
            os.close(fd)
    return asked


def lag(copy: Copy, *, limit: int) -> int:
    """Log entries after ``copy.applied``, counted up to ``limit + 1`` (a bounded scan of
    the log's primary key)."""
    # Written out rather than through the ORM: asked on every keyword search, where compiling
    # the sliced count was about half a millisecond of a request (issue 28). The same plan
    # (an index range scan of the primary key, stopped at limit + 1).
    table = connection.ops.quote_name(SearchChange._meta.db_table)
    with connections[router.db_for_read(SearchChange)].cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE id > %s ORDER BY id LIMIT %s) AS logged",  # noqa: S608 (a model's table name)
            [copy.applied, limit + 1],
        )
        return cursor.fetchone()[0]


def usable() -> Copy | None:
    """The copy searches may read, or ``None`` (:class:`SearchIndexUnavailable`'s cases)."""
    copy = _current()
    if copy is None or copy.version != SCHEMA_VERSION:
        return None
    max_lag = settings.SEARCH_INDEX_MAX_LAG
    if lag(copy, limit=max_lag) > max_lag:
        return None
    return copy


# ---------------------------------------------------------------------------- searching


def _match_bound(searcher, terms: QueryTerms, codes: list[str]) -> int:
    """At least as many papers as match ``terms`` (:func:`papers.search_terms.query_terms`)
    within the categories ``codes`` (any; none: every category): the fewest papers holding one required
    part, a word's being those holding its term in any text field (Tantivy's document
    frequencies, summed over the fields), a phrase's those of its rarest word or word pair
    (:data:`PAIR_FIELDS`), and parts joined by ``OR`` summed. Several reads of the term
    dictionary, no posting read."""
    words = analyzer()
    bounds: list[int] = []
    joined = False
    for i, part in enumerate(terms.parts):
        if part == "OR":
            joined = True
            continue
        stems = [] if part.startswith("-") else words.analyze(part.strip('"'))
        if stems:  # not an exclusion, nor only stop words (which the query drops)
            held = min(sum(searcher.doc_freq(name, stem) for name in TEXT_FIELDS) for stem in stems)
            for pair in terms.phrases.get(i, ()):
                held = min(held, sum(searcher.doc_freq(name, pair) for name in PAIR_FIELDS.values()))
            if joined and bounds:
                bounds[-1] += held
            else:
                bounds.append(held)
        joined = False
    if codes:
        bounds.append(sum(searcher.doc_freq("categories", code) for code in codes))
    return min(bounds, default=searcher.num_docs)


@dataclass
class IndexHits:
    """One search of the index: ``ids`` (paper ids of the page asked for, in order),
    ``count`` (every public paper matching, exact), ``scores`` (their BM25 scores, by
    relevance only), and, when asked, ``categories`` and
    ``years`` (``[(value, count)]`` over every match, most first, and by year)."""

    ids: list[int]
    count: int
    # The count and facets were estimated on the index's sample (search's MIN_SAMPLE): "about".
    estimated: bool = False
    scores: list[float] = field(default_factory=list)  # BM25, beside ids, for sort="relevance"
    categories: list[tuple[str, int]] = field(default_factory=list)
    years: list[tuple[int, int]] = field(default_factory=list)
    # With ``linked``: {field of LINKED_FIELDS: {id: papers}} over the first hits asked for.
    linked: dict[str, dict[int, int]] = field(default_factory=dict)


SORT_FIELDS = {"newest": ("submitted", False), "oldest": ("submitted", True), "cited": ("cited", False)}


def _bound(day: date | None, *, end: bool) -> int | None:
    if day is None:
        return None
    moment = datetime(day.year, day.month, day.day, tzinfo=UTC) + (timedelta(days=1) if end else timedelta())
    return int(moment.timestamp()) - (1 if end else 0)


def search(
    q: str,
    *,
    copy: Copy | None = None,
    category: str = "",
    submitted_from: date | None = None,
    submitted_until: date | None = None,
    sort: str = "relevance",
    offset: int = 0,
    limit: int = 20,
    facets: bool = False,
    facet_size: int = 12,
    linked: int = 0,
) -> IndexHits:
    """Public papers matching ``q`` (web search syntax, :func:`papers.search_terms.query_text`) in every text
    field (BM25, :data:`FIELD_BOOSTS`), within ``category`` (primary or cross-listed) and
    the inclusive UTC days ``submitted_from``..``submitted_until``; ``sort`` ``relevance``,
    ``newest``, ``oldest`` or ``cited``; the hits ``offset``..``offset + limit``. With
    ``facets``, category and year counts over every match; with ``linked`` N, the papers of
    each researcher and institution among the first N of those hits (``IndexHits.linked``,
    read from the stored ids of those N papers).
    Raises :class:`SearchIndexUnavailable` when no copy is usable (:func:`usable`)."""
    copy = copy or usable()
    if copy is None:
        raise SearchIndexUnavailable("the search index is off, not built or behind")
    terms = query_terms(q)
    if not terms.parts:
        return IndexHits([], 0)
    codes = category_codes(category) if category else []
    low, high = _bound(submitted_from, end=False), _bound(submitted_until, end=True)
    index = _open(copy)
    schema = index.schema
    query = _query(index, terms, codes, low, high)
    if query is None:
        logger.info("search index: query %r did not parse", q[:80])
        return IndexHits([], 0)
    searcher = index.searcher()
    # A common query's count and facets from the sample, when it answers (_estimate).
    estimate = None
    if _match_bound(searcher, terms, codes) >= SAMPLE_FROM:
        estimate = _estimate(copy, searcher, terms, codes, low, high, facets, facet_size)
    # The facets read every match once more: counted on another thread while this one ranks
    # (Tantivy lets go of the GIL), so a common word's search costs one pass, not two.
    counting = None
    if facets and estimate is None:
        counting = _facet_pool().submit(_facet_counts, searcher, query, facet_size)
    wanted, limit = limit, max(limit, 1)  # Tantivy's collector needs a limit of at least 1
    if sort in SORT_FIELDS:
        name, ascending = SORT_FIELDS[sort]
        found, count = _in_field_order(
            searcher, schema, query, copy, name, ascending, offset=offset, limit=limit, count=estimate is None
        )
    else:
        # Without a count, Tantivy ranks a union of terms (one word in its fields) by
        # block-max WAND, skipping the blocks that cannot reach the page.
        found = searcher.search(query, limit, count=estimate is None, offset=offset)
        found, count = found.hits, found.count
    addresses = [address for _key, address in found][:wanted]
    hits = IndexHits(searcher.fast_field_values("id", addresses) if addresses else [], count or 0)
    if sort not in SORT_FIELDS:
        hits.scores = [float(score) for score, _address in found[:wanted]]
    if linked:
        hits.linked = _linked_counts(searcher, [address for _key, address in found[:linked]])
    if estimate is not None:
        hits.count, hits.categories, hits.years = estimate
        hits.estimated = True
    elif counting is not None:
        _matches, hits.categories, hits.years = counting.result()
    return hits


def _query(index, terms: QueryTerms, codes: list[str], low: int | None, high: int | None):
    """Tantivy's query for ``terms`` (:func:`papers.search_terms.query_terms`) in ``index``: every text field
    (:data:`FIELD_BOOSTS`), within the categories ``codes`` (any of them) and the submission
    times ``low``..``high`` (seconds, inclusive; ``None``: open); ``None`` when it does not
    parse. A required phrase with word pairs is searched field by field, each field's phrase
    among the papers holding its pairs there (:data:`PAIR_FIELDS`): the same matches and
    scores as the phrase alone, without reading positions of papers that cannot hold it."""
    tantivy = _tantivy()
    schema = index.schema
    parts, phrases = terms.parts, terms.phrases
    rest = [part for i, part in enumerate(parts) if i not in phrases]
    clauses = []
    try:
        if any(not part.startswith("-") for part in rest):
            clauses.append((tantivy.Occur.Must, _parsed(index, " ".join(rest), TEXT_FIELDS)))
        else:  # only exclusions beside the phrases: each one excluded
            clauses += [(tantivy.Occur.MustNot, _parsed(index, part[1:], TEXT_FIELDS)) for part in rest]
        for i, pairs in phrases.items():
            clauses.append((tantivy.Occur.Must, _phrase_by_field(index, parts[i], pairs)))
    except ValueError:
        return None
    if codes:
        # An archive divided into classes (math) matches any of them (category_codes).
        terms = [
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "categories", code)) for code in codes
        ]
        clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(terms)))
    if low is not None or high is not None:
        within = tantivy.Query.range_query(schema, "submitted", tantivy.FieldType.Integer, low, high)
        clauses.append((tantivy.Occur.Must, within))
    return tantivy.Query.boolean_query(clauses) if len(clauses) > 1 else clauses[0][1]


def _parsed(index, text: str, fields):
    """Tantivy's parse of query text ``text`` over ``fields`` (boosted by :data:`FIELD_BOOSTS`),
    every word required; raises ``ValueError`` when it does not parse."""
    boosts = {name: FIELD_BOOSTS[name] for name in fields}
    return index.parse_query(text, list(fields), field_boosts=boosts, conjunction_by_default=True)


def _phrase_by_field(index, phrase: str, pairs: list[str]):
    """``phrase`` (quoted query text) in any text field, each field's phrase query required
    to hold ``pairs`` in that field's :data:`PAIR_FIELDS` (scored 0: the phrase's score is
    unchanged). Tantivy then leads each field's intersection with the pairs' short postings."""
    tantivy = _tantivy()
    schema = index.schema
    by_field = []
    for name in TEXT_FIELDS:
        needed = [
            (
                tantivy.Occur.Must,
                tantivy.Query.const_score_query(
                    tantivy.Query.term_query(schema, PAIR_FIELDS[name], pair), 0.0
                ),
            )
            for pair in pairs
        ]
        needed.append((tantivy.Occur.Must, _parsed(index, phrase, (name,))))
        by_field.append((tantivy.Occur.Should, tantivy.Query.boolean_query(needed)))
    return tantivy.Query.boolean_query(by_field)


# Counting on the sample (issue 28: "keyword counts are exact, or 'about N' with the
# estimate documented"). A query that may match SAMPLE_FROM papers or more (_match_bound) is
# counted on the sample (in_sample, one paper in about SAMPLE_EVERY): when at least
# MIN_SAMPLE of the sample's papers match and they stand for at least ESTIMATE_FROM, the
# count and the facets are theirs times the archive's papers over the sample's, rounded to
# two significant digits (about); else every match is counted. With n of the sample
# matching, the count's relative standard error is about 1 / sqrt(n): 5 % at 400.
MIN_SAMPLE = 400
SAMPLE_FROM = MIN_SAMPLE * SAMPLE_EVERY
# Twice the most the lists show (pages.search.MATCH_CAP): an estimated count never decides
# how many pages a list has.
ESTIMATE_FROM = 10_000


def about(n: float) -> int:
    """``n`` rounded to two significant digits (12,345 -> 12,000; 987 -> 990)."""
    n = round(n)
    if n < 100:
        return n
    unit = 10 ** (len(str(n)) - 2)
    return round(n / unit) * unit


def _estimate(copy: Copy, searcher, terms: QueryTerms, codes, low, high, facets: bool, facet_size: int):
    """``(count, categories, years)`` of the query estimated on ``copy``'s sample (see
    :data:`MIN_SAMPLE`), facets empty unless ``facets``; ``None`` when every match is to be
    counted (the sample too thin, or the estimate under :data:`ESTIMATE_FROM`)."""
    sample = _open(copy, sample=True)
    query = _query(sample, terms, codes, low, high)
    sampled = sample.searcher()
    if query is None or not sampled.num_docs:
        return None
    scale = searcher.num_docs / sampled.num_docs
    if facets:
        matched, categories, years = _facet_counts(sampled, query, facet_size, scale=scale)
    else:
        matched, categories, years = _count_matches(sampled, query), [], []
    if matched < MIN_SAMPLE or matched * scale < ESTIMATE_FROM:
        return None
    return about(matched * scale), categories, years


# Seconds of submission time a newest- or oldest-first search reads before every match.
# Ordering by a field reads the field for every match: 9 ms for a word in a third of a
# million papers at 1 M, where its papers of the last 30 days, 0.4 ms, hold the first pages
# (issue 28, the API's default sort). A rarer word's window holds too few: its matches,
# few, are then all ordered. 0 turns the window off.
SORT_WINDOW = 30 * 86_400
# Seconds a process keeps the archive's newest and oldest submission times (the window is
# open on the far side, so a paper added since is still inside it).
EDGE_SECONDS = 3600
_edges: dict[tuple[str, bool], tuple[int, float]] = {}


def _in_field_order(
    searcher,
    schema,
    query,
    copy: Copy,
    name: str,
    ascending: bool,
    *,
    offset: int,
    limit: int,
    count: bool = True,
):
    """``(hits, count)``: the matches of ``query`` at ``offset``..``offset + limit`` by the
    fast field ``name`` (ascending or descending; Tantivy's ``(value, address)`` pairs) and
    the number of matches (``None`` when not ``count``). By submission time, when the
    matches within :data:`SORT_WINDOW` of the archive's newest (oldest) submission number
    ``offset + limit`` or more, they answer: the window is open on the side the order starts
    from, so every match outside it comes after every match inside, and the hits are those
    of every match ordered (a paper without a submission time comes last either way);
    otherwise every match is ordered."""
    tantivy = _tantivy()
    order = tantivy.Order.Asc if ascending else tantivy.Order.Desc
    edge = _edge(searcher, copy, ascending) if name == "submitted" and SORT_WINDOW else None
    if edge is not None:
        low, high = (None, edge + SORT_WINDOW) if ascending else (edge - SORT_WINDOW, None)
        within = tantivy.Query.range_query(schema, name, tantivy.FieldType.Integer, low, high)
        windowed = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, within)])
        found = searcher.search(windowed, limit, count=True, order_by_field=name, offset=offset, order=order)
        if found.count >= offset + limit:
            if not count:
                return found.hits, None
            return found.hits, _count_matches(searcher, query)
    found = searcher.search(query, limit, count=count, order_by_field=name, offset=offset, order=order)
    return found.hits, found.count


# An aggregation counting the documents of a query: its id column, which every one holds.
_MATCHES = {"matches": {"value_count": {"field": "id"}}}


def _count_matches(searcher, query) -> int:
    """Every match of ``query`` counted without ranking or ordering them: an aggregation over
    the id column, which every document holds (2.0 ms for 'field' where a counting
    search is 2.9)."""
    return int(searcher.aggregate(query, _MATCHES)["matches"]["value"])


def _edge(searcher, copy: Copy, ascending: bool) -> int | None:
    """The oldest (``ascending``) or newest submission time in ``copy`` (seconds since the
    epoch, UTC), kept :data:`EDGE_SECONDS`; ``None`` when it holds no paper."""
    key = (str(copy.path), ascending)
    known = _edges.get(key)
    if known is not None and time.monotonic() - known[1] < EDGE_SECONDS:
        return known[0]
    tantivy = _tantivy()
    order = tantivy.Order.Asc if ascending else tantivy.Order.Desc
    found = searcher.search(tantivy.Query.all_query(), 1, order_by_field="submitted", order=order)
    if not found.hits:
        return None
    edge = int(found.hits[0][0])
    _edges[key] = (edge, time.monotonic())
    return edge


@functools.cache
def _facet_pool() -> ThreadPoolExecutor:
    # One per process, shared by its request threads: a thread started per search costs
    # about as much as the counting it overlaps on a rare word.
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="search-facets")


# Distinct category sets a facet count reads in one pass; more (never on arXiv's ~150
# categories so far) and the several-valued column is counted instead.
CATEGORY_SETS_MAX = 65_535


def _facet_counts(
    searcher, query, facet_size: int, *, scale: float | None = None
) -> tuple[int | None, list[tuple[str, int]], list[tuple[int, int]]]:
    """``(matches, categories, years)`` over every match of ``query``: the ``facet_size``
    categories with most papers (primary or cross-listed; then by code) and every year,
    newest first, each as ``(value, papers)``. Exact: the category sets are counted whole
    and split. With ``scale`` (``query`` a sample's), the facets' counts are multiplied by it
    and rounded (:func:`about`), and ``matches`` is how many of the sample's papers match,
    counted in the same pass; without, ``None`` (the caller counted them)."""
    spec = {
        "sets": {
            "terms": {"field": "category_set", "size": CATEGORY_SETS_MAX, "segment_size": CATEGORY_SETS_MAX}
        },
        "years": {"terms": {"field": "year", "size": 200}},
        **(_MATCHES if scale is not None else {}),
    }
    result = searcher.aggregate(query, spec)
    counted: dict[str, int] = {}
    if result["sets"].get("sum_other_doc_count", 0) == 0:
        for bucket in result["sets"]["buckets"]:
            for code in bucket["key"].split():
                counted[code] = counted.get(code, 0) + bucket["doc_count"]
    else:  # more sets than one pass holds: every category's own count
        many = {"terms": {"field": "categories", "size": 1000, "segment_size": 1000}}
        counted = {b["key"]: b["doc_count"] for b in searcher.aggregate(query, {"c": many})["c"]["buckets"]}
    categories = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[:facet_size]
    years = sorted(((int(b["key"]), b["doc_count"]) for b in result["years"]["buckets"]), reverse=True)
    if scale is None:
        return None, categories, years
    categories = [(code, about(n * scale)) for code, n in categories]
    years = [(year, about(n * scale)) for year, n in years]
    return int(result["matches"]["value"]), categories, years


def _linked_counts(searcher, addresses: list) -> dict[str, dict[int, int]]:
    """``{field: {id: papers}}`` of :data:`LINKED_FIELDS` over the documents at ``addresses``
    (their stored values: a paper holds each id once)."""
    counts: dict[str, dict[int, int]] = {name: {} for name in LINKED_FIELDS}
    for address in addresses:
        doc = searcher.doc(address).to_dict()
        for name in LINKED_FIELDS:
            held = counts[name]
            for value in doc.get(name, ()):
                held[value] = held.get(value, 0) + 1
    return counts
