"""gunicorn's post_worker_init loads the embedding model only when SEMANTIC_PRELOAD is on."""

from __future__ import annotations

import pytest

from semantic import embedders, preload
from semantic.embedders import DIMENSIONS, reset_embedders
from wove.gunicorn_conf import post_worker_init

from .conftest import needs_model, pgvector_available


class FakeEmbedder:
    """A model that loads instantly and counts what it is asked."""

    name = "fake-embedder"
    loads = 0

    def __init__(self) -> None:
        FakeEmbedder.loads += 1
        self.queries: list[str] = []

    def embed_passages(self, texts):
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text):
        self.queries.append(text)
        return [1.0] + [0.0] * (DIMENSIONS - 1)


class FakeLog:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def info(self, msg, *args):
        self.lines.append(("info", msg % args))

    def warning(self, msg, *args):
        self.lines.append(("warning", msg % args))


class FakeWorker:
    """What the hook reads from gunicorn's worker: its ``log``."""

    def __init__(self) -> None:
        self.log = FakeLog()


@pytest.fixture
def fake_model(settings, monkeypatch):
    """SEMANTIC_MODEL names FakeEmbedder; no model is loaded when the test starts."""
    monkeypatch.setitem(embedders.BACKENDS, "fake", FakeEmbedder)
    monkeypatch.setattr(FakeEmbedder, "loads", 0)
    settings.SEMANTIC_MODEL = "fake"
    reset_embedders()
    yield
    reset_embedders()


def test_preload_off_loads_no_model(db, settings, fake_model):
    settings.SEMANTIC_PRELOAD = False
    worker = FakeWorker()
    post_worker_init(worker)
    assert FakeEmbedder.loads == 0
    [(_, line)] = worker.log.lines  # the URL conf and templates are warmed all the same
    templates = len(list((settings.BASE_DIR / "templates").rglob("*.html")))
    assert line.startswith(f"warm-up: URL conf and {templates} templates in ")


def test_preload_on_loads_the_model_and_embeds_one_query(db, settings, fake_model):
    settings.SEMANTIC_PRELOAD = True
    worker = FakeWorker()
    post_worker_init(worker)
    assert FakeEmbedder.loads == 1
    embedder = embedders.get_embedder()  # the process-wide one the hook loaded: no second load
    assert FakeEmbedder.loads == 1
    # The first encode, then the warm-up search's query (keyword mode, no embedding, on a
    # server without pgvector).
    searches = 1 if pgvector_available() else 0
    assert embedder.queries == [preload.WARM_UP_QUERY] * (1 + searches)
    warm_up, (level, line) = worker.log.lines
    assert warm_up[1].startswith("warm-up: URL conf and ")
    assert level == "info"
    assert line.startswith("semantic preload: fake-embedder ready in ")


def test_preload_outside_gunicorn_needs_no_worker(db, settings, fake_model):
    settings.SEMANTIC_PRELOAD = True
    post_worker_init(None)
    assert FakeEmbedder.loads == 1


def test_a_failing_warm_up_search_keeps_the_model(db, settings, fake_model, monkeypatch):
    # E.g. the database is down while the worker boots: the worker still starts, model loaded.
    from django.db import OperationalError

    from semantic import services

    def down(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(services, "search_papers", down)
    settings.SEMANTIC_PRELOAD = True
    result = preload.semantic_preload()
    assert result.loaded is True
    assert result.model == "fake-embedder"
    assert result.reason == "warm-up search failed: OperationalError"
    assert FakeEmbedder.loads == 1


def test_preload_without_a_model_says_why(db, settings, no_model):
    settings.SEMANTIC_PRELOAD = True
    worker = FakeWorker()
    post_worker_init(worker)
    [_, (level, line)] = worker.log.lines
    assert level == "info"
    assert line.startswith("semantic preload: no model (semantic search is turned off (SEMANTIC_MODEL=none))")


@needs_model
def test_preload_loads_the_real_model(db, settings):
    settings.SEMANTIC_MODEL = "minilm"
    settings.SEMANTIC_PRELOAD = True
    reset_embedders()  # torch stays imported: this reload reads the weights only
    post_worker_init(None)
    assert isinstance(embedders._loaded.get("minilm"), embedders.MiniLMEmbedder)


@needs_model
def test_preload_off_leaves_the_real_model_unloaded(db, settings):
    settings.SEMANTIC_MODEL = "minilm"
    settings.SEMANTIC_PRELOAD = False
    reset_embedders()
    post_worker_init(None)
    assert "minilm" not in embedders._loaded
