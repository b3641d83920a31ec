"""Each model's vectors have their own HNSW index, and a large backlog is indexed once after
it is written (issue 29): searches never scan millions of vectors meanwhile, a model change
never touches the index searches walk, and a killed run loses nothing."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from semantic import schema, services
from semantic import search_model as search_model_module
from semantic.embedders import get_embedder, reset_embedders
from semantic.models import PaperEmbedding
from semantic.schema import model_index_exists, model_index_name
from semantic.search_model import forget_search_model

QUERY = "secret keys sent with single photons"


class Killed(BaseException):
    """A worker killed mid-run (not an Exception: the per-paper retry must not catch it)."""


class Spy:
    """The real embedder, noting before each batch whether its model's index exists and
    what a search would do; raises :class:`Killed` at batch ``kill_at`` (1-based)."""

    def __init__(self, real, kill_at: int | None = None):
        self.real, self.name, self.kill_at = real, real.name, kill_at
        self.seen: list[tuple[bool, bool, str]] = []

    def embed_passages(self, texts):
        status = services.semantic_status()
        self.seen.append((model_index_exists(self.name), status.available, status.reason))
        if self.kill_at is not None and len(self.seen) == self.kill_at:
            raise Killed
        return self.real.embed_passages(texts)

    def embed_query(self, text):
        return self.real.embed_query(text)


def _indexes() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexdef LIKE %s",
            [schema.TABLE, "%USING hnsw%"],
        )
        return {row[0] for row in cursor.fetchall()}


def _exact_order(embedder, papers) -> list[int]:
    query = embedder.embed_query(QUERY)
    texts = [services.paper_text(title=p.title, abstract=p.abstract) for p in papers]
    cosines = embedder.embed_passages(texts) @ query
    return [papers[i].pk for i in np.argsort(-cosines, kind="stable")]


@pytest.fixture
def clean_models():
    yield
    reset_embedders()
    forget_search_model()


def test_a_large_backlog_is_written_without_an_index_and_indexed_once(
    semantic_ready, tiny_papers, settings, monkeypatch
):
    settings.SEMANTIC_MIN_SIMILARITY = -1.0  # every paper a neighbour: the order is checked
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 4)  # six papers count as a large backlog
    monkeypatch.setattr(schema, "EXACT_SCAN_BYTES", -1)  # and the table as too large to scan
    spy = Spy(semantic_ready)

    result = services.embeddings_update(batch_size=2, embedder=spy)

    assert (result.embedded, result.index_built) == (6, True)
    # All three batches were written with no index, and meanwhile searches ran by keyword,
    # saying why, instead of scanning every vector.
    assert spy.seen == [(False, False, "the semantic index is being built")] * 3
    assert _indexes() == {model_index_name(semantic_ready.name)}
    assert services.semantic_status().available
    hits = services.search_papers(query=QUERY, mode="semantic", limit=10)
    papers = sorted(tiny_papers.values(), key=lambda p: p.pk)
    assert [pk for pk, _ in hits] == _exact_order(semantic_ready, papers)
    assert hits[0][0] == tiny_papers["0000.00006"].pk  # "Eavesdropping on quantum cryptography ..."


def test_a_small_backlog_is_written_into_the_index(semantic_ready, tiny_papers):
    spy = Spy(semantic_ready)
    result = services.embeddings_update(batch_size=2, embedder=spy)
    assert (result.embedded, result.index_built) == (6, False)
    # Built (over no rows) before the first vector was written; searches ran all along.
    assert spy.seen == [(True, True, "")] * 3


def test_a_run_killed_before_its_index_build_loses_nothing(semantic_ready, tiny_papers, monkeypatch):
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 4)
    monkeypatch.setattr(schema, "EXACT_SCAN_BYTES", -1)
    with pytest.raises(Killed):
        services.embeddings_update(batch_size=2, embedder=Spy(semantic_ready, kill_at=2))
    assert PaperEmbedding.objects.count() == 2  # the first batch, committed
    assert not model_index_exists(semantic_ready.name)
    assert not services.semantic_status().available  # keyword mode, not a full scan

    # The next stage run: four papers left, fewer than BULK_INDEX_FROM would need at the
    # default; here 4 >= 4 and >= the 2 stored, so it writes them unindexed and builds once.
    result = services.embeddings_update(pending_only=True, batch_size=2, embedder=Spy(semantic_ready))
    assert (result.embedded, result.index_built) == (4, True)
    assert PaperEmbedding.objects.count() == 6
    assert PaperEmbedding.objects.values("paper").distinct().count() == 6
    assert services.semantic_status().available


def test_a_killed_runs_vectors_are_indexed_before_a_small_run_writes(
    semantic_ready, tiny_papers, monkeypatch
):
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 4)
    with pytest.raises(Killed):
        services.embeddings_update(batch_size=2, embedder=Spy(semantic_ready, kill_at=2))
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 20_000)
    spy = Spy(semantic_ready)
    result = services.embeddings_update(pending_only=True, batch_size=2, embedder=spy)
    assert result.embedded == 4
    assert spy.seen == [(True, True, "")] * 2  # the two stored vectors indexed first


def test_a_model_change_builds_its_own_index_and_drops_the_old_one(
    semantic_ready, tiny_papers, settings, monkeypatch, clean_models
):
    settings.SEMANTIC_MODEL = "minilm"
    reset_embedders()
    forget_search_model()
    old = get_embedder()
    services.embeddings_update()
    assert _indexes() == {model_index_name(old.name)}

    settings.SEMANTIC_MODEL = "minilm-int8"
    reset_embedders()
    forget_search_model()
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 4)
    monkeypatch.setattr(schema, "EXACT_SCAN_BYTES", -1)
    spy = Spy(get_embedder())
    result = services.embeddings_update(pending_only=True, batch_size=3, embedder=spy)
    # The new model's vectors went in with no index of their own, while searches read the old
    # model's through its index, untouched.
    assert spy.seen == [(False, True, "")] * 2
    assert result.index_built and result.switch["switched"]
    assert _indexes() == {model_index_name(old.name), model_index_name(spy.name)}

    monkeypatch.setattr(search_model_module, "SWITCH_GRACE", 0)
    services.embeddings_update(pending_only=True)
    assert _indexes() == {model_index_name(spy.name)}
    assert set(PaperEmbedding.objects.values_list("model", flat=True)) == {spy.name}


def test_searches_use_the_models_partial_index(semantic_ready, tiny_papers):
    services.embeddings_update()
    vector = services._vector_literal(semantic_ready.embed_query(QUERY))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            f"EXPLAIN SELECT paper_id FROM {schema.TABLE} WHERE model = %s "  # noqa: S608
            "ORDER BY embedding <=> %s::vector LIMIT 10",
            [semantic_ready.name, vector],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert model_index_name(semantic_ready.name) in plan


def test_the_migration_gives_each_stored_model_its_index(semantic_ready, tiny_papers):
    """0003 on an archive embedded before it: one index of all models becomes one per model."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("semantic.migrations.0003_index_per_model")
    services.embeddings_update()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {model_index_name(semantic_ready.name)}")
        cursor.execute(
            f"CREATE INDEX {schema.LEGACY_INDEX} ON {schema.TABLE} USING hnsw (embedding vector_cosine_ops)"
        )
    with connection.schema_editor() as editor:
        migration.per_model(apps, editor)
    assert _indexes() == {model_index_name(semantic_ready.name)}
    with connection.schema_editor() as editor:
        migration.one_index(apps, editor)
    assert _indexes() == {schema.LEGACY_INDEX}


def test_a_full_run_over_an_embedded_archive_keeps_the_index(semantic_ready, tiny_papers, monkeypatch):
    """`manage.py embed_papers` (a full run reading every paper) on an archive whose vectors
    are current: nothing waits, so the searched index is neither dropped nor rebuilt, even
    though every paper is read."""
    services.embeddings_update()
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)::oid", [model_index_name(semantic_ready.name)])
        before = cursor.fetchone()[0]
    monkeypatch.setattr(services, "BULK_INDEX_FROM", 4)  # six papers read would be a "large backlog"
    tiny_papers["0000.00001"].title = "A hot Jupiter seen in transit photometry"
    tiny_papers["0000.00001"].save()
    spy = Spy(semantic_ready)
    result = services.embeddings_update(batch_size=2, embedder=spy)
    assert (result.embedded, result.unchanged, result.index_built) == (1, 5, False)
    assert spy.seen == [(True, True, "")]
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)::oid", [model_index_name(semantic_ready.name)])
        assert cursor.fetchone()[0] == before
