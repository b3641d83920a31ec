"""Search counts say what was found (issue 28): a ranking's limit is never shown as a total,
the page and the API count the same papers, and semantic search says while papers are still
being embedded."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from semantic import services


def _status(response) -> str:
    return lxml_html.fromstring(response.content).xpath("string(//p[@role='status'])").strip()


def _listed(response) -> list[str]:
    page = lxml_html.fromstring(response.content)
    return [href.split("/papers/")[1].split("-")[0] for href in page.xpath("//main//article//h3//a/@href")]


def test_a_ranking_cut_at_its_limit_says_at_least(semantic_ready, tiny_papers, client, settings, monkeypatch):
    from pages import search as site_search

    services.embeddings_update()
    settings.SEMANTIC_MIN_SIMILARITY = -1.0  # every paper qualifies: six, more than the limit
    monkeypatch.setattr(site_search, "SEMANTIC_LIMIT", 2)
    response = client.get("/search", {"q": "carbon", "mode": "semantic"})
    assert len(_listed(response)) == 2
    assert _status(response) == "2+ papers: the 2 closest are listed; add words or filters to narrow"
    body = client.get("/api/v1/papers", {"q": "carbon", "mode": "semantic", "sort": "relevance"}).json()
    assert (body["count"], body["count_capped"]) == (2, True)
    # Within the limit the count is exact, and not capped.
    monkeypatch.setattr(site_search, "SEMANTIC_LIMIT", 6)
    response = client.get("/search", {"q": "carbon", "mode": "semantic"})
    assert _status(response) == "6 papers"
    body = client.get("/api/v1/papers", {"q": "carbon", "mode": "semantic", "sort": "relevance"}).json()
    assert (body["count"], body["count_capped"]) == (6, False)


def test_rank_papers_knows_when_more_papers_qualify(semantic_ready, tiny_papers, settings):
    services.embeddings_update()
    # "carbon" is in one of the six papers (0000.00004, "Band gaps of carbon nanotubes"; TINY).
    found = services.rank_papers(query="carbon", mode="keyword", limit=1)
    assert ([pk for pk, _ in found.hits], found.complete) == ([tiny_papers["0000.00004"].pk], True)
    settings.SEMANTIC_MIN_SIMILARITY = -1.0
    found = services.rank_papers(query="carbon", mode="semantic", limit=5)
    assert (len(found.hits), found.complete) == (5, False)
    found = services.rank_papers(query="carbon", mode="semantic", limit=6)
    assert (len(found.hits), found.complete) == (6, True)
    # Hybrid: the union of both lists; six papers cannot fit in a limit of three.
    found = services.rank_papers(query="carbon", mode="hybrid", limit=3, candidates=3)
    assert (len(found.hits), found.complete, found.mode) == (3, False, "hybrid")


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_the_page_and_the_api_count_the_same_papers(semantic_ready, tiny_papers, client, mode):
    services.embeddings_update()
    for q in ("graphene", "black hole stars", "carbon"):
        page = client.get("/search", {"q": q, "mode": mode})
        listed = _listed(page)
        body = client.get("/api/v1/papers", {"q": q, "mode": mode, "sort": "relevance"}).json()
        assert body["count"] == len(listed), (q, mode)
        assert [p["arxiv_id"] for p in body["items"]] == listed, (q, mode)
        count = "1 paper" if len(listed) == 1 else f"{len(listed)} papers"
        assert _status(page) == count if listed else True


def test_semantic_search_says_how_much_it_covers_while_embedding(semantic_ready, tiny_papers, client):
    first_four = ("0000.00001", "0000.00002", "0000.00003", "0000.00004")
    services.embeddings_update(paper_ids=[tiny_papers[a].pk for a in first_four])
    response = client.get("/search", {"q": "stars", "mode": "semantic"})
    text = " ".join(response.content.decode().split())
    assert "4 of 6 papers are searchable by meaning so far (the rest are being embedded)." in text
    hybrid = " ".join(client.get("/search", {"q": "stars"}).content.decode().split())
    assert "4 of 6 papers are searchable by meaning so far" in hybrid
    assert "keyword matches among them are listed too" in hybrid
    # Once every paper has its vector, the note goes.
    services.embeddings_update()
    assert "searchable by meaning so far" not in client.get("/search", {"q": "stars"}).content.decode()
