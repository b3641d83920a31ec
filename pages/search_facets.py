"""The search page's facets: counts of the matching papers by category, submission year,
researcher and institution (split from :mod:`pages.search`, which finds the papers).

Where the search index answered (:func:`pages.search.index_search`), categories and years
are counted by the index over every match, and researchers and institutions over the first
:data:`PEOPLE_FACET_TOP` papers listed, from the ids the index holds for each paper (no
authorship or affiliation row is read: at a million papers those cold reads were most of a
common word's search time). Otherwise PostgreSQL counts the capped match set.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from django.db import connections

from papers import search_index
from papers.selectors import category_names
from wove.bulk import int_array
from wove.counts import cached_when_large
from wove.replicas import read_alias

from . import search as site_search
from .search import PaperSearch, _facet_rows, _filters, _index_range

# Facet values shown per kind of person or place.
PEOPLE_SHOWN = 8


@dataclass
class Facet:
    """One facet value: the value put in the query string, a label and a paper count."""

    value: str
    label: str
    count: int
    title: str = ""


# The names of the facets' researchers and institutions: (table, name column, condition).
_NAMED = {
    "researchers": ("researchers_researcher", "display_name", "AND merged_into_id IS NULL"),
    "institutions": ("institutions_institution", "name", ""),
}


def _top_named(kind: str, counts: dict[int, int]) -> list[Facet]:
    """The :data:`PEOPLE_SHOWN` ids of ``counts`` (``{id: papers}``) with most papers, then
    by name, then id, as :class:`Facet` ``(id, name, papers)``; ``kind`` is ``researchers``
    or ``institutions`` (:data:`_NAMED`). One query: names are read for the ids above the
    count of the last one shown and, of those tied with it, the lowest ids with spares for
    records merged away (with one paper each, "tied" is every co-author of the papers)."""
    if not counts:
        return []
    ordered = sorted(counts.values(), reverse=True)
    floor = ordered[PEOPLE_SHOWN - 1] if len(ordered) > PEOPLE_SHOWN else 0
    candidates = [pk for pk, n in counts.items() if n > floor]
    tied = sorted(pk for pk, n in counts.items() if n == floor)
    candidates += tied[: max(0, PEOPLE_SHOWN - len(candidates)) + 16]
    table, column, condition = _NAMED[kind]
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            f"SELECT id, {column} FROM {table} WHERE id = ANY(%s::bigint[]) {condition}",  # noqa: S608 (constants)
            [int_array(candidates)],
        )
        named = sorted((counts[pk], name, pk) for pk, name in cursor.fetchall())
        named.sort(key=lambda r: (-r[0], r[1], r[2]))
    return [Facet(str(pk), name, n) for n, name, pk in named[:PEOPLE_SHOWN]]


def _people_counts(ids: str) -> dict[str, dict[int, int]]:
    """``{"researchers": {id: papers}, "institutions": {id: papers}}`` among the papers
    ``ids`` (an ``int_array`` literal), from their authorships and affiliation links."""
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT researcher_id, count(DISTINCT paper_id) FROM researchers_authorship"
            " WHERE paper_id = ANY(%s::bigint[]) GROUP BY researcher_id",
            [ids],
        )
        researchers = dict(cursor.fetchall())
        cursor.execute(
            """
            SELECT f.institution_id, count(DISTINCT s.paper_id)
              FROM institutions_authoraffiliation f
              JOIN papers_paperauthor s ON s.id = f.slot_id
             -- The slot ids as one array (an InitPlan): links are then read through their
             -- slot index, not by hashing every link of the archive.
             WHERE f.slot_id = ANY(ARRAY(
                   SELECT id FROM papers_paperauthor WHERE paper_id = ANY(%s::bigint[])))
             GROUP BY f.institution_id
            """,
            [ids],
        )
        institutions = dict(cursor.fetchall())
    return {"researchers": researchers, "institutions": institutions}


def paper_facets(search: PaperSearch, *, limit: int = 12) -> dict[str, Any]:
    """Counts of matching papers by category (primary or cross-list), submission year,
    researcher and institution. Each facet leaves its own filter out, so the alternatives
    stay visible. Returns ``{"categories", "years", "researchers", "institutions"}`` (lists
    of :class:`Facet`) and ``"newest_only"``: :data:`~pages.search.MATCH_CAP` when, without
    query text, more papers match and the counts cover the newest that many of them, else 0;
    ``"people_among"``: :data:`PEOPLE_FACET_TOP` when the search index answered and more
    papers match, researchers and institutions then counted over the first that many
    listed (categories and years always over every match), else 0.

    The matching papers are read once (the rows :func:`pages.search.tab_counts` kept, else
    one query); categories and years are counted from those rows, researchers and
    institutions in one query each over their ids (issue #11: four queries each re-ran the
    full-text match, and browsing without query text aggregated the whole archive). Where
    the index answered, it counted everything but the names (issue 28).
    """
    estimated = False
    if search.index_hits is not None:
        top, years, people, estimated = _index_facets(search, limit=limit)
        listed_count = search.index_hits.count
    else:
        base = search.match_rows if search.match_rows is not None else _facet_rows(search, _filters(search))
        by_category = _facet_rows(search, _filters(search, skip="category")) if search.category else base
        by_year = (
            _facet_rows(search, _filters(search, skip="year")) if search.year_from or search.year_to else base
        )
        counted: Counter[str] = Counter(code for _id, codes, _at in by_category for code in codes or ())
        top = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        years = Counter(at.astimezone(UTC).year for _id, _codes, at in by_year if at is not None)
        people = _people_counts(int_array(row[0] for row in base))
        listed_count = len(base)
    names = dict(category_names([c for c, _n in top]))  # kept per process: no query
    browsing = not search.q and search.ranked_ids is None
    return {
        "categories": [Facet(code, code, n, title=names.get(code, code)) for code, n in top],
        "years": [Facet(str(y), str(y), n) for y, n in sorted(years.items(), reverse=True)],
        "researchers": _top_named("researchers", people["researchers"]),
        "institutions": _top_named("institutions", people["institutions"]),
        # Categories and years counted on the index's sample (papers.search_index).
        "estimated": estimated,
        "newest_only": site_search.MATCH_CAP if browsing and listed_count >= site_search.MATCH_CAP else 0,
        # Researchers and institutions counted over the first N listed papers only.
        "people_among": (
            site_search.PEOPLE_FACET_TOP
            if search.index_hits is not None and listed_count > site_search.PEOPLE_FACET_TOP
            else 0
        ),
    }


def _index_facets(
    search: PaperSearch, *, limit: int
) -> tuple[list[tuple[str, int]], Counter[int], dict[str, dict[int, int]], bool]:
    """Category and year counts over every match from the search index (each leaving its own
    filter out, as :func:`paper_facets` does, in one more index search), the researcher
    and institution counts over the first :data:`PEOPLE_FACET_TOP` listed papers, which the
    index read with the list (:func:`pages.search.index_search`), and whether a category or
    year count was estimated on the index's sample (``IndexHits.estimated``)."""
    hits = search.index_hits
    assert hits is not None
    by_category, by_year = hits, hits
    if search.category:
        low, high = _index_range(search)
        by_category = search_index.search(
            search.q,
            category="",
            submitted_from=low,
            submitted_until=high,
            limit=0,
            facets=True,
            facet_size=limit,
        )
    if search.year_from or search.year_to:
        by_year = search_index.search(search.q, category=search.category, limit=0, facets=True)
    top = sorted(by_category.categories, key=lambda kv: (-kv[1], kv[0]))[:limit]
    people = {name: hits.linked.get(name, {}) for name in search_index.LINKED_FIELDS}
    return top, Counter(dict(by_year.years)), people, by_category.estimated or by_year.estimated


def facets_for_page(search: PaperSearch) -> dict[str, Any]:
    """:func:`paper_facets` for the search page. A large search (at least
    :data:`~pages.search.MATCH_CAP` matches, see :func:`pages.search.tab_counts`) is the
    expensive case: aggregates over thousands of papers, two of them joined to authorships.
    Its facets are kept in Django's cache for ``wove.counts.COUNT_CACHE_SECONDS`` (5 minutes)
    through :func:`wove.counts.cached_when_large`, keyed by the query text and filters;
    every other search computes them afresh, and so does one the search index answered: the
    index counted its facets with the list (:func:`pages.search.tab_counts`), and the cache's
    read and write cost more than the names left to read (1.9 ms a large search at 1 M
    papers, against 0.5 ms; issue 28)."""
    if search.index_hits is not None:
        return paper_facets(search)
    cap = site_search.MATCH_CAP  # read at call time: tests lower it
    compute = lambda: paper_facets(search)  # noqa: E731 (read once, by the cache on a miss)
    return cached_when_large(facets_cache_key(search), compute, size=cap if search.large else 0, minimum=cap)


def facets_cache_key(search: PaperSearch) -> str:
    """The cache key of ``search``'s facets (:func:`facets_for_page`): its query text and
    filters, and :data:`~pages.search.MATCH_CAP`."""
    parts = (
        search.q,
        search.category,
        search.year_from,
        search.year_to,
        search.researcher.pk if search.researcher else None,
        search.institution.pk if search.institution else None,
        site_search.MATCH_CAP,
    )
    return "wove:facets:" + hashlib.sha256(repr(parts).encode()).hexdigest()
