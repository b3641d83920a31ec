"""Semantic and hybrid search on the six hand-written papers."""

from __future__ import annotations

from semantic import services
from semantic.services import rrf_fuse


def _ids(hits, papers):
    by_pk = {p.pk: a for a, p in papers.items()}
    return [by_pk[pk] for pk, _ in hits]


def test_semantic_finds_papers_without_the_query_words(semantic_ready, tiny_papers):
    services.embeddings_update()
    query = "planets orbiting other stars"
    # Keyword search needs all of planet, orbit, star: no paper has all three.
    assert services.search_papers(query=query, mode="keyword") == []
    semantic = services.search_papers(query=query, mode="semantic", limit=3)
    assert _ids(semantic, tiny_papers)[0] == "0000.00001"  # the extrasolar planet paper
    assert all(-1.0 <= score <= 1.0 for _, score in semantic)
    hybrid = services.search_papers(query=query, mode="hybrid", limit=3)
    assert _ids(hybrid, tiny_papers)[0] == "0000.00001"


def test_hybrid_is_the_fusion_of_keyword_and_semantic(semantic_ready, tiny_papers):
    services.embeddings_update()
    query = "key exchange with single photons"
    keyword = services.search_papers(query=query, mode="keyword", limit=100)
    semantic = services.search_papers(query=query, mode="semantic", limit=100)
    # Only paper 6 has key, exchange, single and photon (stemmed) in its text.
    assert _ids(keyword, tiny_papers) == ["0000.00006"]
    assert set(_ids(semantic[:2], tiny_papers)) == {"0000.00005", "0000.00006"}
    hybrid = services.search_papers(query=query, mode="hybrid", limit=6)
    assert hybrid == rrf_fuse([[pk for pk, _ in keyword], [pk for pk, _ in semantic]])[:6]
    # Paper 6 is in both lists, so it leads whatever its semantic rank.
    assert _ids(hybrid, tiny_papers)[0] == "0000.00006"


def test_filters_and_hidden_papers(semantic_ready, tiny_papers, settings):
    settings.SEMANTIC_MIN_SIMILARITY = -1.0  # every paper is a neighbour: this tests filters only
    from papers.models import Paper

    services.embeddings_update()
    Paper.objects.filter(arxiv_id="0000.00003").update(categories=["cond-mat.mes-hall"])
    Paper.objects.filter(arxiv_id="0000.00004").update(hidden=True)
    hits = services.search_papers(query="carbon electronics", mode="semantic", limit=6)
    assert "0000.00004" not in _ids(hits, tiny_papers)  # hidden by an editor
    only = services.search_papers(query="carbon electronics", mode="hybrid", category="cond-mat.mes-hall")
    assert _ids(only, tiny_papers) == ["0000.00003"]
    within = services.search_papers(
        query="carbon electronics",
        mode="semantic",
        within=Paper.objects.filter(arxiv_id__startswith="0000.0000"),
    )
    assert len(within) == 5


def test_similar_papers_on_the_tiny_corpus(semantic_ready, tiny_papers):
    services.embeddings_update()
    graphene = tiny_papers["0000.00003"]
    similar = services.similar_papers(paper_id=graphene.pk, limit=2)
    assert graphene.pk not in similar
    assert similar[0] == tiny_papers["0000.00004"].pk  # the other carbon-electronics paper


def test_similar_papers_of_a_paper_without_vector_is_empty(semantic_ready, tiny_papers):
    services.embeddings_update(paper_ids=[tiny_papers["0000.00001"].pk])
    assert services.similar_papers(paper_id=tiny_papers["0000.00002"].pk) == []
    assert services.similar_papers(paper_id=tiny_papers["0000.00001"].pk) == []  # nothing else embedded


def test_similar_papers_box_escapes_and_links(semantic_ready, tiny_papers):
    from django.template import Context, Template

    from papers.models import Paper

    Paper.objects.filter(arxiv_id="0000.00004").update(title="Band gaps of <b>carbon</b> nanotubes")
    services.embeddings_update()
    html = Template("{% load semantic %}{% similar_papers paper 1 %}").render(
        Context({"paper": tiny_papers["0000.00003"]})
    )
    assert "Similar papers" in html
    assert "Band gaps of &lt;b&gt;carbon&lt;/b&gt; nanotubes" in html  # harvested text escaped
    assert 'href="/papers/0000.00004' in html
