"""Keyword search ranks, counts and facets at most MATCH_CAP matches, and says so."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from pages import search as site_search
from pages import search_facets

pytestmark = pytest.mark.django_db


def _search(query: str) -> site_search.PaperSearch:
    return site_search.rank(site_search.parse_search(QueryDict(query)))


def test_below_the_cap_nothing_changes(site_sample):
    search = _search('q="dark matter"&mode=keyword')
    assert site_search.tab_counts(search)["papers"] == 58  # as in test_search.py
    assert not search.capped


def test_a_match_set_over_the_cap_is_cut_to_the_cap_and_marked(site_sample, monkeypatch, client):
    everything = set(
        site_search.search_papers(_search('q="dark matter"&mode=keyword')).values_list("pk", flat=True)
    )
    monkeypatch.setattr(site_search, "MATCH_CAP", 20)
    search = _search('q="dark matter"&mode=keyword')
    assert site_search.tab_counts(search)["papers"] == 20
    assert search.capped
    found = list(site_search.search_papers(search).values_list("pk", flat=True))
    assert len(found) == 20 and set(found) <= everything
    facets = search_facets.paper_facets(search)
    assert sum(f.count for f in facets["years"]) == 20
    html = client.get("/search", {"q": '"dark matter"', "mode": "keyword"}).content.decode()
    assert "20+ papers: the first 20 matches are ranked" in html


def test_filters_apply_before_the_cap(site_sample, monkeypatch):
    unfiltered = _search('q="dark matter"&mode=keyword&category=astro-ph')
    expected = site_search.tab_counts(unfiltered)["papers"]
    assert 5 < expected < 58
    monkeypatch.setattr(site_search, "MATCH_CAP", 5)
    search = _search('q="dark matter"&mode=keyword&category=astro-ph')
    found = site_search.search_papers(search)
    assert found.count() == 5
    assert all("astro-ph" in p.categories for p in found)


def test_facets_of_a_capped_search_come_from_the_cache_on_the_next_view(site_sample, monkeypatch, client):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    cache.clear()
    monkeypatch.setattr(site_search, "MATCH_CAP", 20)
    query = {"q": '"dark matter"', "mode": "keyword"}
    with CaptureQueriesContext(connection) as first:
        html = client.get("/search", query).content.decode()
    with CaptureQueriesContext(connection) as second:
        again = client.get("/search", query).content.decode()
    # The three facet queries (category names; researcher and institution counts, over the
    # first 20 matches, which hold no linked author here, so no names are read; categories
    # and years are counted from the match rows the tab count read) are not run again.
    assert len(first) - len(second) == 3
    assert again == html
    # Below the cap facets stay exact and fresh: nothing is skipped.
    monkeypatch.setattr(site_search, "MATCH_CAP", 5_000)
    with CaptureQueriesContext(connection) as small_first:
        client.get("/search", query)
    with CaptureQueriesContext(connection) as small_second:
        client.get("/search", query)
    assert len(small_first) == len(small_second)


def test_browsing_without_words_counts_facets_over_the_newest_papers(site_sample, monkeypatch, client):
    from papers.models import Paper

    monkeypatch.setattr(site_search, "MATCH_CAP", 20)
    search = _search("sort=newest")
    counts = site_search.tab_counts(search)
    assert counts["papers"] == Paper.objects.public().count() == 2800
    facets = search_facets.paper_facets(search)
    assert facets["newest_only"] == 20
    newest = Paper.objects.public().order_by("-submitted_at", "-arxiv_id")[:20]
    years: dict[str, int] = {}
    for paper in newest:
        years[str(paper.submitted_at.year)] = years.get(str(paper.submitted_at.year), 0) + 1
    assert {f.value: f.count for f in facets["years"]} == years
    html = client.get("/search", {"sort": "newest"}).content.decode()
    assert "Counts over the newest 20 papers." in html
    # A filtered set under the cap is counted whole, without the note.
    from researchers.models import Researcher

    strominger = Researcher.objects.get(display_name="Andrew Strominger")  # linked on 0801.4566
    small = search_facets.paper_facets(_search(f"sort=newest&researcher={strominger.pk}"))
    assert small["newest_only"] == 0
    assert [(f.value, f.count) for f in small["years"]] == [("2008", 1)]
