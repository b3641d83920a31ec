"""The search page's own bugs of issue 32, on the real sample: the Mode switch under every
sort, the highlighted mode being the mode that ran, page numbers out of range, and "Most
cited" offered only when citation counts exist (search and researcher pages)."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from lxml import html as lxml_html

from pages import search as site_search
from papers.models import Paper
from researchers import summaries
from semantic import services
from tests.semantic.conftest import model_installed, pgvector_available
from wove.paginator import SitePaginator

pytestmark = pytest.mark.django_db

# The sample papers matching "dark energy" by full text (43, read with the keyword search),
# plus the 40 first papers by identifier: the papers given vectors here.
QUERY = "dark energy"


def _page(response):
    return lxml_html.fromstring(response.content)


def _result_ids(response) -> list[str]:
    hrefs = _page(response).xpath("//main//article//h3//a/@href")
    return [href.split("/papers/")[1].split("-")[0] for href in hrefs]


def _current_mode(response) -> list[str]:
    return _page(response).xpath("//nav[@aria-label='Search mode']//*[@aria-current='true']/text()")


def _sort_labels(response) -> list[str]:
    nav = _page(response).xpath("//nav[@aria-label='Sort']")[0]
    return [node.text for node in nav.xpath("./a|./span[@aria-current]")]


@pytest.fixture
def vectors(site_sample):
    """Vectors for the "dark energy" papers of the sample and 40 others (minilm); skips
    without the model or pgvector. Rolled back with the test."""
    if not model_installed() or not pgvector_available():
        pytest.skip("semantic extra or pgvector not installed")
    matching = site_search.parse_search(QueryDict(f"q={QUERY}&mode=keyword"))
    ids = list(site_search.search_papers(matching).values_list("pk", flat=True))
    assert len(ids) == 43
    ids += list(Paper.objects.order_by("arxiv_id").values_list("pk", flat=True)[:40])
    assert services.embeddings_update(paper_ids=ids).embedded == 83


def _ranked(mode: str) -> list[Paper]:
    search = site_search.rank(site_search.parse_search(QueryDict(f"q={QUERY}&mode={mode}")))
    assert search.applied_mode == mode
    return list(site_search.search_papers(search))


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_sorting_by_newest_keeps_the_mode_and_its_papers(vectors, client, mode):
    # Bug: sort=newest ran keyword search and hid the Mode switch.
    ranked = _ranked(mode)
    newest = sorted(ranked, key=lambda p: (p.submitted_at, p.arxiv_id), reverse=True)
    response = client.get("/search", {"q": QUERY, "mode": mode, "sort": "newest"})
    assert _current_mode(response) == [site_search.MODES[mode]]
    assert _result_ids(response) == [p.arxiv_id for p in newest[:20]]
    dates = [p.submitted_at for p in newest[:20]]
    assert dates == sorted(dates, reverse=True)
    text = response.content.decode()
    assert f"{len(ranked)} papers" in text  # the same result set as under relevance
    assert f"The {mode} results, newest first." in text
    # Under relevance the same papers come in ranking order.
    relevance = client.get("/search", {"q": QUERY, "mode": mode})
    assert _result_ids(relevance) == [p.arxiv_id for p in ranked[:20]]
    assert f"{len(ranked)} papers" in relevance.content.decode()


def test_a_phrase_runs_keyword_search_and_keyword_is_highlighted(vectors, client):
    # Bug: "phrase", OR and -word ran keyword search while "Semantic" stayed highlighted.
    for q in (f'"{QUERY}"', "dark OR energy", "dark -energy"):
        response = client.get("/search", {"q": q, "mode": "semantic"})
        assert _current_mode(response) == ["Keyword"], q
        note = _page(response).xpath("string(//p[contains(@class, 'semantic-note')])")
        assert note == "Phrases, OR and -word need keyword search: showing keyword results.", q
    phrase = client.get("/search", {"q": f'"{QUERY}"', "mode": "semantic"})
    keyword = client.get("/search", {"q": f'"{QUERY}"', "mode": "keyword"})
    assert _result_ids(phrase) == _result_ids(keyword)
    # The API says the same in its header.
    api = client.get("/api/v1/papers", {"q": f'"{QUERY}"', "mode": "semantic", "sort": "relevance"})
    assert api["X-Search-Mode"] == "keyword"


def test_without_vectors_keyword_is_highlighted_with_the_reason(site_sample, client):
    # The sample has no vectors here: hybrid (the default) cannot run.
    response = client.get("/search", {"q": QUERY})
    assert _current_mode(response) == ["Keyword"]
    assert "Semantic search is not ready yet (no paper vectors)" in response.content.decode()
    assert len(_result_ids(response)) == 20


@pytest.mark.parametrize("raw", ["-1", "0", "abc", "2.5", ""])
def test_a_page_below_one_or_not_a_number_is_page_one(site_sample, client, raw):
    # Bug: page=-1 showed the last page ("dark": 99 papers, 5 pages of 20).
    first = client.get("/search", {"q": "dark", "mode": "keyword"})
    response = client.get("/search", {"q": "dark", "mode": "keyword", "page": raw})
    status = _page(response).xpath("string(//p[@role='status'])")
    assert status == "99 papers · page 1 of 5"
    assert _result_ids(response) == _result_ids(first)


def test_a_page_past_the_end_is_the_last_page(site_sample, client):
    # 99 papers match "dark" (websearch_to_tsquery, English stemming): 4 pages of 20 and 19.
    last = client.get("/search", {"q": "dark", "mode": "keyword", "page": "5"})
    assert len(_result_ids(last)) == 19
    response = client.get("/search", {"q": "dark", "mode": "keyword", "page": "999"})
    assert _page(response).xpath("string(//p[@role='status'])") == "99 papers · page 5 of 5"
    assert _result_ids(response) == _result_ids(last)


def test_site_paginator_rule():
    paginator = SitePaginator(range(45), 20)
    got = {raw: paginator.get_page(raw).number for raw in ("-1", "0", "x", None, "1", "3", "4", "10**9", 2)}
    assert got == {"-1": 1, "0": 1, "x": 1, None: 1, "1": 1, "3": 3, "4": 3, "10**9": 1, 2: 2}
    assert paginator.get_page("99999999999999999999").number == 3


def test_most_cited_is_offered_only_with_citation_counts(site_sample, client):
    # The sample has no citation count: sorting by them would be newest first under a new name.
    assert not Paper.objects.filter(cited_by_count__isnull=False).exists()
    response = client.get("/search", {"q": "black hole"})
    assert _sort_labels(response) == ["Relevance", "Newest"]
    asked = client.get("/search", {"q": "black hole", "sort": "cited"})
    assert _page(asked).xpath("//nav[@aria-label='Sort']/span[@aria-current]/text()") == ["Relevance"]
    assert "so “Most cited” cannot sort" in asked.content.decode()
    assert "Citation counts from" not in asked.content.decode()

    Paper.objects.filter(arxiv_id="0801.4118").update(cited_by_count=120)
    response = client.get("/search", {"q": "black hole"})
    assert _sort_labels(response) == ["Relevance", "Newest", "Most cited"]
    cited = client.get("/search", {"q": "black hole", "sort": "cited"})
    assert _result_ids(cited)[0] == "0801.4118"
    assert "Citation counts from Semantic Scholar or OpenAlex" in cited.content.decode()


def test_researcher_page_offers_most_cited_and_the_citations_chart_only_with_counts(site_sample, client):
    strominger = site_sample["strominger"]  # one paper, 0801.4566, no citation count
    response = client.get(strominger.get_absolute_url())
    page = _page(response)
    assert page.xpath("//select[@name='sort']/option/text()") == ["Newest", "Oldest"]
    assert page.xpath("string(//h2[@id='years-h'])") == "papers per year"
    assert "Citation counts from" not in response.content.decode()
    asked = client.get(strominger.get_absolute_url(), {"sort": "cited"})
    assert "so “Most cited” cannot sort: newest first" in asked.content.decode()

    Paper.objects.filter(arxiv_id="0801.4566").update(cited_by_count=12)
    # The page reads its kept summary (issue 28); the pipeline's summaries stage sees the
    # paper changed after the summary was computed and refreshes it.
    assert summaries.summaries_stale().filter(pk=strominger.pk).exists()
    summaries.summaries_refresh(researcher_ids=[strominger.pk])
    page = _page(client.get(strominger.get_absolute_url()))
    assert page.xpath("//select[@name='sort']/option/text()") == ["Newest", "Oldest", "Most cited"]
    assert page.xpath("string(//h2[@id='years-h'])") == "papers and citations per year"
    assert "Citation counts from Semantic Scholar or OpenAlex" in page.text_content()
    assert "2008: 1 paper · 12 citations" in " ".join(
        page.xpath("string(//ol[@class='bars years-bars'])").split()
    )


def test_years_given_the_wrong_way_round_are_read_and_said(client, db):
    # Issue 32: /search?from=2030&to=1990 quietly searched 1990-2030.
    html = " ".join(client.get("/search", {"from": "2030", "to": "1990"}).content.decode().split())
    assert "Years read as 1990–2030 (“from” was after “to”)" in html


def test_the_bare_search_page_counts_no_researchers_or_institutions(client, db):
    # Issue 32: without query text the tabs said "Researchers 0 · Institutions 0" beside all papers.
    html = " ".join(client.get("/search").content.decode().split())
    assert "Researchers</a>" in html and "Institutions</a>" in html
    assert 'Researchers<span class="n">' not in html
