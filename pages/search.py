"""Site search: PostgreSQL full-text search over papers, name search over researchers and
institutions, filters, sorts, facet counts and autocomplete suggestions.

Papers match ``websearch_to_tsquery('english', q)`` against the generated, GIN-indexed
``papers_paper.search_vector`` (title weight A, author names B, abstract C), so quoted
phrases, ``OR`` and ``-exclusion`` work as in web search engines; relevance is
``ts_rank`` over those weights.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank
from django.core.cache import caches
from django.db.models import Case, F, FloatField, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.http import QueryDict

from institutions.models import Institution
from institutions.ror import InvalidRorId, normalize_ror_id
from papers import search_index
from papers.models import Collaboration, Paper
from papers.querysets import PAPER_ORDERS
from papers.search_filters import SEARCH_CONFIG, filters_q, web_query, web_words, words_query
from papers.selectors import category_canonical
from researchers.models import Researcher
from researchers.orcid import InvalidOrcid, normalize_orcid
from researchers.querysets import fold_text, name_words
from researchers.selectors import researcher_resolve, researchers_counted, researchers_matching
from semantic.integration import Ranking, rank_if_ready
from semantic.search_model import search_model
from wove.bulk import int_array, unnested
from wove.compiled import CompiledQuery
from wove.counts import count_cached
from wove.ids import id_or_none
from wove.pagination import SortKey

from .facts import archive_facts

SORTS = {"relevance": "Relevance", "newest": "Newest", "cited": "Most cited"}
# Search modes (issue #10); hybrid is the default and falls back to keyword when semantic
# search cannot run. A semantic or hybrid result list holds at most SEMANTIC_LIMIT papers.
MODES = {"hybrid": "Hybrid", "keyword": "Keyword", "semantic": "Semantic"}
SEMANTIC_LIMIT = 200
# Keyword search reads at most MATCH_CAP matching papers (in the order the GIN bitmap scan
# returns them) and ranks, counts and facets those (issue #11): ranking every match of a
# common word over a million papers took seconds. Below the cap nothing changes; above it
# the page says "5,000+" and suggests narrowing the query.
MATCH_CAP = 5_000
# Where the search index answers, researchers and institutions are counted over the first
# PEOPLE_FACET_TOP papers of the list, its first five pages (the page says so), from the ids
# the index holds (pages.search_facets): over 5,000 papers, reading their authorships and
# affiliation links was most of a common word's search time.
PEOPLE_FACET_TOP = 100
# Papers on one page of the search page's list.
RESULTS_PAGE_SIZE = 20
TABS = ("papers", "researchers", "institutions")
YEAR_MIN, YEAR_MAX = 1986, 2100
# Private-use characters mark highlighted words in ts_headline output; they cannot occur in
# harvested text, and templates swap them for <mark> only after escaping (see ``highlight``).
MARK_START, MARK_STOP = "\ue000", "\ue001"


@dataclass
class PaperSearch:
    """A parsed paper search: query text, filters and sort.

    ``researcher``/``institution`` are resolved records (``None`` when absent or unknown);
    ``year_from``/``year_to`` are inclusive submission years (the page's filter),
    ``submitted_from``/``submitted_until`` inclusive UTC dates (the API's); ``sort`` is a key
    of :data:`SORTS` or, from the API, ``oldest`` (``relevance`` falls back to ``newest``
    without query text). ``include_merged_away``: the researcher filter also counts
    authorships still held by records merged into the researcher (the page's; the API
    counts the survivor's own, in one query less).
    """

    q: str = ""
    category: str = ""
    year_from: int | None = None
    year_to: int | None = None
    researcher: Researcher | None = None
    institution: Institution | None = None
    collaboration: Collaboration | None = None
    sort: str = "relevance"
    tab: str = "papers"
    mode: str = "hybrid"
    problems: list[str] = field(default_factory=list)
    submitted_from: date | None = None
    submitted_until: date | None = None
    include_merged_away: bool = True
    # Set by search_papers: the mode that actually ran, and why semantic did not.
    applied_mode: str = "keyword"
    # Set by tab_counts: the keyword matches reached MATCH_CAP, or more papers qualify for a
    # semantic or hybrid search than its SEMANTIC_LIMIT (counts are "at least").
    capped: bool = False
    semantic_note: str = ""
    ranked_ids: list[int] | None = None
    # Set by rank: False when more papers qualify for the semantic ranking than it holds.
    ranked_complete: bool = True
    # Set by tab_counts for a keyword search: (id, categories, submitted_at) of the capped
    # match set, which the result list and the facets then read instead of matching again.
    match_rows: list[tuple[int, list[str], datetime | None]] | None = None
    # Set by tab_counts: at least MATCH_CAP papers match (with or without query text).
    large: bool = False
    # Set by parse_search: some public paper has a citation count, so "Most cited" is offered.
    citations: bool = False
    # Set by tab_counts when the search index answered (papers.search_index): its
    # count, category and year facets over every match, and the ids in the list's order up
    # to the end of the page asked for (and the first PEOPLE_FACET_TOP, for the facets).
    index_hits: search_index.IndexHits | None = None
    # The page of the list asked for (``page``, 1 when absent or not a number): the index
    # reads its matches up to that page's end, not all MATCH_CAP it may list.
    page: int = 1

    @property
    def effective_sort(self) -> str:
        """The sort actually applied: relevance needs query text."""
        return "newest" if self.sort == "relevance" and not self.q else self.sort

    @property
    def has_filters(self) -> bool:
        return bool(
            self.category
            or self.year_from
            or self.year_to
            or self.submitted_from
            or self.submitted_until
            or self.researcher
            or self.institution
            or self.collaboration
        )


def _year(raw: str | None) -> int | None:
    year = id_or_none((raw or "")[:8])
    return year if year is not None and YEAR_MIN <= year <= YEAR_MAX else None


def _resolve_researcher(raw: str) -> Researcher | None:
    """An id (digits) or a name; a name resolves to the listed researcher with most papers."""
    raw = raw.strip()
    if not raw:
        return None
    if raw.isascii() and raw.isdigit():
        # An editor-merged record answers for its survivor.
        pk = id_or_none(raw)
        return researcher_resolve(pk)[0] if pk is not None else None
    return researchers_matching(raw).first()


def _resolve_institution(raw: str) -> Institution | None:
    """An internal id (digits), a ROR ID, or a name (the best-linked match)."""
    raw = raw.strip()
    if not raw:
        return None
    if raw.isascii() and raw.isdigit():
        return Institution.objects.filter(pk=id_or_none(raw)).first()
    ror = raw.rstrip("/").rsplit("/", 1)[-1].lower()
    found = Institution.objects.filter(ror_id=ror).first()
    return found or institutions_matching(raw).first()


def _resolve_collaboration(raw: str) -> Collaboration | None:
    """An id (digits) or a name as written (``ATLAS Collaboration``, any case)."""
    raw = raw.strip()
    if raw.isascii() and raw.isdigit():
        return Collaboration.objects.filter(pk=id_or_none(raw)).first()
    return Collaboration.objects.filter(name__iexact=raw).order_by("pk").first() if raw else None


def parse_search(params: QueryDict) -> PaperSearch:
    """Read ``q``, ``type``, ``category``, ``from``, ``to``, ``researcher``, ``institution``,
    ``collaboration``, ``sort`` and ``mode`` from a query string. Bad values are dropped (and named in
    ``problems``), never an error: a search page always renders. ``sort=cited`` while no paper
    has a citation count (:func:`citation_counts_exist`) sorts by relevance and says so."""
    search = PaperSearch(q=" ".join(params.get("q", "").split())[:500])
    tab = params.get("type", "papers")
    search.tab = tab if tab in TABS else "papers"
    code = params.get("category", "").strip()
    if code:
        # An alias (math.IT) searches the code its papers are filed under (cs.IT).
        if canonical := category_canonical(code):
            search.category = canonical
        else:
            search.problems.append(f"Unknown category “{code[:40]}”")
    search.year_from = _year(params.get("from"))
    search.year_to = _year(params.get("to"))
    if search.year_from and search.year_to and search.year_from > search.year_to:
        search.year_from, search.year_to = search.year_to, search.year_from
        search.problems.append(f"Years read as {search.year_from}–{search.year_to} (“from” was after “to”)")
    if params.get("researcher", "").strip():
        search.researcher = _resolve_researcher(params["researcher"])
        if search.researcher is None:
            search.problems.append("No researcher by that name or id")
    if params.get("institution", "").strip():
        search.institution = _resolve_institution(params["institution"])
        if search.institution is None:
            search.problems.append("No institution by that name or id")
    if params.get("collaboration", "").strip():
        search.collaboration = _resolve_collaboration(params["collaboration"])
        if search.collaboration is None:
            search.problems.append("No collaboration by that name or id")
    sort = params.get("sort", "relevance")
    search.sort = sort if sort in SORTS else "relevance"
    search.citations = citation_counts_exist()
    if search.sort == "cited" and not search.citations:
        # Every paper would tie: the list would be "newest" under another name.
        search.problems.append("No paper here has a citation count yet, so “Most cited” cannot sort")
        search.sort = "relevance"
    mode = params.get("mode", "hybrid")
    search.mode = mode if mode in MODES else "hybrid"
    page = params.get("page", "").strip()
    search.page = min(id_or_none(page[:8]) or 1, MATCH_CAP)
    return search


def citation_counts_exist() -> bool:
    """True when some public paper has a citation count (``Paper.cited_by_count``: Semantic
    Scholar's ``citationCount`` or OpenAlex's ``cited_by_count``, recorded when that registry's
    record of the paper is matched to its authors, see ``researchers.services``; or set by an
    editor). The page offers "Most cited" only then. One probe of ``paper_cited_idx``; a yes
    is kept by each process for :data:`CITATIONS_SECONDS` (every search page asks, and an
    archive with counts keeps them), a no is asked again (the first count shows at once)."""
    if caches["process"].get("citation-counts-exist"):
        return True
    found = Paper.objects.public().filter(cited_by_count__isnull=False).exists()
    if found:
        caches["process"].set("citation-counts-exist", True, CITATIONS_SECONDS)
    return found


# How long a process trusts a yes from citation_counts_exist (seconds).
CITATIONS_SECONDS = 60


def semantic_ranking(search: PaperSearch) -> Ranking | None:
    """The :class:`semantic.integration.Ranking` of ``search`` by ``search.mode`` (``hybrid``:
    reciprocal-rank fusion of full-text and vector results; ``semantic``: vectors alone),
    within the search's filters, at most :data:`SEMANTIC_LIMIT` papers; ``None`` when
    keyword search applies: keyword mode, no query text, a query with keyword operators, or
    semantic search unavailable (``search.semantic_note`` says why). Sets
    ``search.applied_mode`` to the mode that ran. The sort does not decide the mode: the
    page sorts the ranked papers by date or citations when asked (issue 32)."""
    if not search.q or search.mode == "keyword":
        return None
    within = Paper.objects.public().filter(_filters(search))
    facts = archive_facts()
    coverage = None
    # The kept counts first: search_model() reads two rows on every request of an archive
    # with no vectors yet (it keeps no answer until the first vectors decide).
    if facts is not None and facts["embedded"] == facts["papers"] and facts["model"] == search_model():
        # Every paper had its vector at the last count: no count now. While the stage is
        # still embedding, the note counts live (cached a minute on a large archive), as the
        # kept number moves only every sweep.
        coverage = (facts["embedded"], facts["papers"])
    ranking = rank_if_ready(
        query=search.q, mode=search.mode, within=within, limit=SEMANTIC_LIMIT, coverage=coverage
    )
    search.semantic_note = ranking.note
    if ranking.results is None:
        return None
    search.applied_mode = ranking.mode
    return ranking


def _filters(search: PaperSearch, *, skip: str = "") -> Q:
    """The filter conditions of ``search`` as one ``Q`` (:func:`papers.search_filters.filters_q`),
    leaving out the facet ``skip`` (``category`` or ``year``) so its own counts show the
    alternatives."""
    ids: list[int] = []
    if search.researcher is not None:
        ids = [search.researcher.pk]
        if search.include_merged_away:
            ids += search.researcher.merged_from.values_list("pk", flat=True)
    years = skip != "year"
    return filters_q(
        category=search.category if skip != "category" else "",
        year_from=search.year_from if years else None,
        year_to=search.year_to if years else None,
        submitted_from=search.submitted_from if years else None,
        submitted_until=search.submitted_until if years else None,
        researcher_ids=ids,
        institution_id=search.institution.pk if search.institution is not None else None,
        collaboration_id=search.collaboration.pk if search.collaboration is not None else None,
    )


def full_text(queryset: QuerySet[Paper], q: str) -> tuple[QuerySet[Paper], SearchQuery, object]:
    """Filter ``queryset`` to papers matching ``q`` (``websearch_to_tsquery('english', q)``)
    on the stored, GIN-indexed ``search_vector`` (title A, authors B, abstract C).
    Returns ``(queryset, query, vector)`` for ranking."""
    query = web_query(q)
    return queryset.filter(search_vector=query), query, F("search_vector")


def keyset_papers(
    search: PaperSearch, *, depth: int = MATCH_CAP
) -> tuple[QuerySet[Paper], str, list[SortKey]]:
    """Papers matching ``search`` for keyset paging (the API's lists): ``(queryset, order
    name, sort keys)``, keys from :data:`papers.querysets.PAPER_ORDERS`. Where the search
    index answers, the queryset holds its first ``depth`` (at most :data:`MATCH_CAP`)
    matches: a page needs the rows up to its end, not all that can be listed.

    The filters and the semantic ranking are the search page's (:func:`_filters`,
    :func:`semantic_ranking`, applied with ``sort=relevance`` only); the order name is then
    ``hybrid`` or ``semantic`` and papers sort by their fused score. Otherwise query text
    matches every paper by full text (no :data:`MATCH_CAP`: the API caps its count instead)
    and ``relevance`` sorts by ``ts_rank``; without query text ``relevance`` is ``newest``.
    The search vector is deferred.
    """
    papers = Paper.objects.public().filter(_filters(search)).select_related("primary_category")
    papers = papers.defer("search_vector")  # the tsvector is large and never shown
    # The API ranks by meaning only for sort=relevance: its default sort is newest, and a
    # newest-first list of every full-text match must stay that (not the top 200 by meaning).
    ranking = semantic_ranking(search) if search.effective_sort == "relevance" else None
    if ranking is not None:
        search.ranked_complete = ranking.complete
        score = Case(
            *[When(pk=pk, then=Value(value)) for pk, value in ranking.results],
            default=Value(0.0),
            output_field=FloatField(),
        )
        keys = [SortKey("k_rank", score, True, "float"), *PAPER_ORDERS["newest"]]
        return papers.filter(pk__in=ranking.ids), ranking.mode, keys
    sort = search.sort
    if search.q and (hits := index_search(search, limit=min(depth, MATCH_CAP), facets=False)) is not None:
        # The search index's first MATCH_CAP ids in the sort asked for; relevance keeps the
        # index's BM25 order (its position, as a float key for cursors).
        search.index_hits = hits
        papers = papers.filter(_ids_q(hits.ids))
        if sort == "relevance":
            position = RawSQL("-array_position(%s::bigint[], papers_paper.id)", (int_array(hits.ids),))
            keys = [SortKey("k_rank", Cast(position, FloatField()), True, "float"), *PAPER_ORDERS["newest"]]
            return papers, "relevance", keys
        return papers, sort, PAPER_ORDERS[sort]
    if search.q:
        papers, query, vector = full_text(papers, search.q)
        if sort == "relevance":
            rank = Cast(SearchRank(vector, query), FloatField())  # float8: exact in cursors
            keys = [SortKey("k_rank", rank, True, "float"), *PAPER_ORDERS["newest"]]
            return papers, "relevance", keys
    if sort == "relevance":
        sort = "newest"
    return papers, sort, PAPER_ORDERS[sort]


def rank(search: PaperSearch) -> PaperSearch:
    """Decide once per request whether semantic ranking applies and keep its ids on
    ``search``, so the result list, tab counts and facets all count the same papers."""
    ranking = semantic_ranking(search)
    search.ranked_ids = None if ranking is None else ranking.ids
    search.ranked_complete = True if ranking is None else ranking.complete
    return search


def _matching(search: PaperSearch, cond: Q) -> QuerySet[Paper]:
    """Public papers matching ``search`` and ``cond``; with query text, at most
    :data:`MATCH_CAP` of them (the cap applies after ``cond``, so filters never lose matches
    the cap would have kept)."""
    if search.ranked_ids is not None:
        return Paper.objects.public().filter(cond, pk__in=search.ranked_ids)
    papers = Paper.objects.public().filter(cond)
    if search.q:
        query = web_query(search.q)
        capped = papers.filter(search_vector=query).order_by().values("pk")[:MATCH_CAP]
        papers = Paper.objects.filter(pk__in=capped)
    return papers


def _columns(papers: QuerySet[Paper], *, items: bool) -> QuerySet[Paper]:
    """``papers`` reading the list item's columns with the abstract
    (:meth:`~papers.querysets.PaperQuerySet.as_items`) when ``items``, else every column
    but the search vector (large, never shown)."""
    if items:
        return papers.as_items(abstract=True)
    return papers.select_related("primary_category").defer("search_vector")


def search_papers(search: PaperSearch, *, items: bool = False) -> QuerySet[Paper]:
    """Papers matching ``search``, filtered and sorted, with ``rank`` annotated (0 without
    query text) and, with query text, ``title_marked``/``snippet``: ``ts_headline`` of the
    title and abstract with matches between :data:`MARK_START` and :data:`MARK_STOP`
    (evaluated only for the rows of the page shown). The search vector is deferred; with
    ``items`` (the search page) only the columns a list item shows are read.

    With a semantic ranking (``search.ranked_ids``) the list is the ranked papers: in
    ranking order for ``relevance``, else the same papers by ``newest`` or ``cited``."""
    ranked_ids = search.ranked_ids
    if search.index_hits is not None:
        return IndexedPapers(search, search.index_hits, items=items)
    if search.match_rows is not None:
        papers = Paper.objects.filter(_ids_q([row[0] for row in search.match_rows]))
    else:
        papers = _matching(search, _filters(search))
    papers = _columns(papers, items=items)
    if search.q:
        query = web_query(search.q)
        papers = _marked(papers.annotate(rank=SearchRank(F("search_vector"), query)), query)
    else:
        papers = papers.annotate(rank=Value(0.0))
    sort = search.effective_sort
    if ranked_ids is not None and sort == "relevance":
        position = Case(
            *[When(pk=pk, then=Value(i)) for i, pk in enumerate(ranked_ids)], default=Value(len(ranked_ids))
        )
        return papers.order_by(position, "-arxiv_id")
    if sort == "relevance":
        return papers.order_by("-rank", "-submitted_at", "-arxiv_id")
    if sort == "cited":
        return papers.order_by(F("cited_by_count").desc(nulls_last=True), "-submitted_at", "-arxiv_id")
    return papers.order_by("-submitted_at", "-arxiv_id")


def _ids_q(ids: list[int]) -> Q:
    """``id IN (SELECT unnest('{...}'::bigint[]))``: thousands of ids as one array parameter,
    not one bound parameter each (see :func:`wove.bulk.int_array`)."""
    return Q(pk__in=unnested(int_array(ids)))


def institutions_matching(text: str) -> QuerySet[Institution]:
    """Institutions with a name (display, label, alias, acronym) containing ``text``
    (accents and case folded), most linked papers first, then by name; ``paper_count`` and
    ``researcher_count`` counted as the institution's page and list count them
    (:meth:`~institutions.querysets.InstitutionQuerySet.with_counts`)."""
    words = name_words(text)
    if not words:
        return Institution.objects.none()
    return Institution.objects.search(" ".join(words)).with_counts().order_by("-paper_count", "name")


def identifier_target(text: str) -> Institution | Researcher | None:
    """The institution whose ROR ID, or the active researcher whose ORCID iD, is the whole of
    ``text`` (any accepted form: ``https://ror.org/042nb2s44``, ``042nb2s44``,
    ``https://orcid.org/0000-0002-5250-9277``); ``None`` when ``text`` is neither or we do
    not hold it. Check digits are verified, so ordinary words are never taken for ids."""
    text = text.strip()
    try:
        ror_id = normalize_ror_id(text)
    except InvalidRorId:
        pass
    else:
        return Institution.objects.filter(ror_id=ror_id).first()
    try:
        orcid = normalize_orcid(text)
    except InvalidOrcid:
        return None
    return Researcher.objects.filter(orcid=orcid, merged_into__isnull=True).first()


FacetRow = tuple[int, list[str], datetime | None]


def _facet_rows(search: PaperSearch, cond: Q) -> list[FacetRow]:
    """``(id, categories, submitted_at)`` of the papers the facets count under ``cond``:
    with query text the capped match set (:func:`_matching`); without it, the newest
    :data:`MATCH_CAP` papers of the filtered archive (browsing a million papers must not
    aggregate all of them on every view)."""
    columns = ("id", "categories", "submitted_at")
    if search.q or search.ranked_ids is not None:
        if search.q and search.ranked_ids is None:
            query = web_query(search.q)
            rows = Paper.objects.public().filter(cond, search_vector=query).order_by()
            return list(rows.values_list(*columns)[:MATCH_CAP])
        return list(_matching(search, cond).order_by().values_list(*columns))
    rows = Paper.objects.public().filter(cond).order_by("-submitted_at", "-arxiv_id")
    return list(rows.values_list(*columns)[:MATCH_CAP])


def _index_range(search: PaperSearch) -> tuple[date | None, date | None]:
    """The search's submission days as one inclusive range (years from the page, days
    from the API), the narrower bound winning."""
    low = date(search.year_from, 1, 1) if search.year_from else None
    high = date(search.year_to, 12, 31) if search.year_to else None
    if search.submitted_from and (low is None or search.submitted_from > low):
        low = search.submitted_from
    if search.submitted_until and (high is None or search.submitted_until < high):
        high = search.submitted_until
    return low, high


def index_search(
    search: PaperSearch, *, limit: int = MATCH_CAP, facets: bool = True, linked: int = 0
) -> search_index.IndexHits | None:
    """``search``'s keyword matches from the search index (:func:`papers.search_index.search`):
    the count (exact, or estimated on a sample: ``IndexHits.estimated``), the first ``limit``
    ids in the list's order (relevance: BM25; newest, oldest, cited: by that field) and, with
    ``facets``, category and year counts over every match (or the same sample); with
    ``linked`` N, researcher and institution counts over the first N. ``None`` when
    PostgreSQL answers instead: the index is off, not built or behind
    (:func:`papers.search_index.usable`), or a researcher, institution or collaboration
    filter applies (their papers are few, and the index does not hold authorships)."""
    if search.researcher is not None or search.institution is not None or search.collaboration is not None:
        return None
    copy = search_index.usable()
    if copy is None:
        return None
    low, high = _index_range(search)
    return search_index.search(
        search.q,
        copy=copy,
        category=search.category,
        submitted_from=low,
        submitted_until=high,
        sort=search.effective_sort,
        limit=limit,
        facets=facets,
        linked=linked,
    )


def _indexed_page(words: str, ids: str, *, items: bool) -> QuerySet[Paper]:
    """The papers of ``ids`` (an array literal, :func:`wove.bulk.int_array`) as
    :class:`IndexedPapers` lists them: :func:`_columns`, ``rank`` 0 (the index scored them)
    and ``ts_headline`` of the title and abstract for ``words`` (:func:`web_words`)."""
    papers = _columns(Paper.objects.filter(pk__in=unnested(ids)), items=items)
    return _marked(papers.annotate(rank=Value(0.0)), words_query(words))


def _marked(papers: QuerySet[Paper], query: SearchQuery) -> QuerySet[Paper]:
    """``papers`` with ``title_marked`` and ``snippet``: ``ts_headline`` of the title and of
    the abstract for ``query``, its matches between :data:`MARK_START` and :data:`MARK_STOP`."""
    marks = {"start_sel": MARK_START, "stop_sel": MARK_STOP, "config": SEARCH_CONFIG}
    return papers.annotate(
        title_marked=SearchHeadline("title", query, highlight_all=True, **marks),
        snippet=SearchHeadline("abstract", query, max_words=48, min_words=24, max_fragments=2, **marks),
    )


# A page of indexed results, compiled once per process for each column set (wove.compiled;
# issue 28): the ORM spent longer writing this read than PostgreSQL spent on its 20 rows.
_INDEXED_PAGE = {
    items: CompiledQuery(functools.partial(_indexed_page, items=items), sentinels=("\ue002words", "{-1}"))
    for items in (False, True)
}


class IndexedPapers:
    """The search page's result list when the search index answered: as long as the matches
    it may list (at most :data:`MATCH_CAP`), holding the ids the index read (up to the page
    asked for); each page's papers read from PostgreSQL by id when the paginator slices it,
    with the same annotations as :func:`search_papers` (``rank`` 0: the index scored them).
    A slice past the ids held (a page number past the end, which the paginator turns into
    the last page) reads the index again, to that depth."""

    def __init__(self, search: PaperSearch, hits: search_index.IndexHits, *, items: bool = False):
        self.search = search
        self.items = items
        self.ids = hits.ids
        self.total = min(hits.count, MATCH_CAP)

    def __len__(self) -> int:
        return self.total

    def count(self) -> int:
        return self.total

    def __getitem__(self, key):
        if not isinstance(key, slice):
            return self[key : key + 1][0]
        stop = self.total if key.stop is None else min(key.stop, self.total)
        if stop > len(self.ids) and (deeper := index_search(self.search, limit=stop, facets=False)):
            self.ids = deeper.ids
        ids = self.ids[key]
        papers = _INDEXED_PAGE[self.items].all(web_words(self.search.q), int_array(ids)) if ids else []
        by_id = {paper.pk: paper for paper in papers}
        return [by_id[pk] for pk in ids if pk in by_id]


def name_tab_counts(q: str) -> dict[str, int]:
    """``{"researchers": n, "institutions": n}``: the names holding ``q``'s words, as the
    Researchers and Institutions tabs list them (:func:`researchers_matching`,
    :func:`institutions_matching`); 0 each for blank ``q``. Counted for the tab opened, and
    for the others by ``/search/counts`` after the page has loaded (:func:`pages.views.search_counts`):
    at a million papers "wang" matches 15,650 researchers, 0.4 s to count cold through the
    researchers' table; researchers are counted from the name-word index alone."""
    if not q:
        return {"researchers": 0, "institutions": 0}
    return {"researchers": researchers_counted(q), "institutions": institutions_matching(q).count()}


def tab_counts(search: PaperSearch) -> dict[str, int | None]:
    """Result counts for the three tabs: papers (with filters), and researchers or
    institutions for the tab opened; ``None`` for a name tab not opened (the page asks
    ``/search/counts`` for it once it has loaded, off the page's own time)."""
    # The ids up to the end of the page asked for, and at least the facets' first ones.
    depth = min(max(search.page * RESULTS_PAGE_SIZE, PEOPLE_FACET_TOP), MATCH_CAP)
    keyword = search.q and search.ranked_ids is None
    hits = index_search(search, limit=depth, linked=PEOPLE_FACET_TOP) if keyword else None
    if hits is not None:
        search.index_hits = hits
        counts = {"papers": hits.count}
    elif search.q and search.ranked_ids is None:
        search.match_rows = _facet_rows(search, _filters(search))
        counts = {"papers": len(search.match_rows)}
    else:
        counts = {"papers": count_cached(_matching(search, _filters(search)))}
    if search.index_hits is not None:
        search.capped = False  # the count is the index's (not capped); the list holds the first MATCH_CAP
    elif search.ranked_ids is None:
        search.capped = bool(search.q) and counts["papers"] >= MATCH_CAP
    else:
        search.capped = not search.ranked_complete
    search.large = counts["papers"] >= MATCH_CAP
    counts["researchers"] = counts["institutions"] = None
    if search.tab == "researchers":
        counts["researchers"] = researchers_counted(search.q) if search.q else 0
    elif search.tab == "institutions":
        counts["institutions"] = institutions_matching(search.q).count() if search.q else 0
    return counts


def suggest(*, text: str, kind: str, limit: int = 8) -> list[dict[str, Any]]:
    """Autocomplete: up to ``limit`` researchers or institutions whose name has a word
    starting with ``text`` (at least 2 characters), best-known first.

    Returns ``[{"id": int, "name": str, "url": str, "detail": str}]``; ``kind`` is
    ``researcher`` or ``institution`` (anything else gives ``[]``).
    """
    text = " ".join((text or "").split())[:100]
    if len(text) < 2:
        return []
    pattern = r"\m" + re.escape(text)
    if kind == "researcher":
        # A word start in the display name: the part of the stored folded names before the
        # first " | " (the variants follow it); trigram-indexed where pg_trgm exists.
        folded = r"^[^|]*\m" + re.escape(fold_text(text))
        rows = Researcher.objects.listed().filter(names_folded__regex=folded)[:limit]
        return [
            {
                "id": r.pk,
                "name": r.display_name,
                "url": r.get_absolute_url(),
                "detail": f"{r.paper_count} paper{'s' if r.paper_count != 1 else ''}",
            }
            for r in rows
        ]
    if kind == "institution":
        rows = (
            Institution.objects.filter(Q(name__iregex=pattern) | Q(names__value__iregex=pattern))
            .distinct()
            .order_by("name")[:limit]
        )
        return [
            {
                "id": i.pk,
                "name": i.name,
                "url": i.get_absolute_url(),
                "detail": ", ".join(p for p in (i.city, i.country_name) if p),
            }
            for i in rows
        ]
    return []
