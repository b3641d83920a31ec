"""The /search page runs hybrid search by default once papers have vectors, and says so
when it cannot (issue #10)."""

from __future__ import annotations

from lxml import html as lxml_html

from semantic import services


def _result_ids(response) -> list[str]:
    page = lxml_html.fromstring(response.content)
    return [href.split("/papers/")[1].split("-")[0] for href in page.xpath("//main//article//h3//a/@href")]


def test_hybrid_by_default_finds_a_paper_without_the_query_words(semantic_ready, tiny_papers, client):
    services.embeddings_update()
    response = client.get("/search", {"q": "planets orbiting other stars"})
    assert response.status_code == 200
    ids = _result_ids(response)
    assert ids[0] == "0000.00001"  # the extrasolar planet paper: no paper holds all three words
    assert b'aria-label="Search mode"' in response.content
    keyword = client.get("/search", {"q": "planets orbiting other stars", "mode": "keyword"})
    assert _result_ids(keyword) == []


def test_semantic_mode_ranks_by_meaning(semantic_ready, tiny_papers, client):
    services.embeddings_update()
    ids = _result_ids(client.get("/search", {"q": "key exchange with single photons", "mode": "semantic"}))
    assert set(ids[:2]) == {"0000.00005", "0000.00006"}


def test_without_vectors_the_page_says_it_shows_keyword_results(tiny_papers, client):
    response = client.get("/search", {"q": "graphene"})
    assert _result_ids(response) == ["0000.00003"]
    text = response.content.decode()
    assert "these are keyword results" in text


def test_api_hybrid_mode_and_header(semantic_ready, tiny_papers, client):
    services.embeddings_update()
    params = {"q": "planets orbiting other stars", "sort": "relevance"}
    body = client.get("/api/v1/papers", params)
    assert body["X-Search-Mode"] == "hybrid"
    assert body.json()["items"][0]["arxiv_id"] == "0000.00001"
    keyword = client.get("/api/v1/papers", {**params, "mode": "keyword"})
    assert keyword["X-Search-Mode"] == "keyword"
    assert keyword.json()["items"] == []


def test_api_falls_back_to_keyword_without_vectors(tiny_papers, client):
    response = client.get("/api/v1/papers", {"q": "graphene", "sort": "relevance"})
    assert response["X-Search-Mode"] == "keyword"
    assert [p["arxiv_id"] for p in response.json()["items"]] == ["0000.00003"]


def test_hybrid_lists_nothing_for_a_nonsense_word(semantic_ready, tiny_papers, client):
    # Bug: nearest neighbours always exist, so hybrid listed every paper for any query.
    services.embeddings_update()
    response = client.get("/search", {"q": "xyzzyqwerty"})
    assert _result_ids(response) == []
    assert b"No papers match" in response.content


def test_operators_run_as_keyword_search_and_counts_agree(semantic_ready, tiny_papers, client):
    # Bug: hybrid ignored "phrases" and -exclusions, and the tab count disagreed with the list.
    services.embeddings_update()
    response = client.get("/search", {"q": "graphene -nanotubes"})
    assert _result_ids(response) == ["0000.00003"]
    assert "Phrases, OR and -word need keyword search" in response.content.decode()
    response = client.get("/search", {"q": "carbon"})
    page = lxml_html.fromstring(response.content)
    shown = len(_result_ids(response))
    assert page.xpath("string(//p[@role='status'])").strip().startswith(f"{shown} paper")
