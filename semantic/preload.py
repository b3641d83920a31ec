"""Pay semantic search's once-per-process costs (model load, first encode) before any request."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from django.db import connection

from . import services
from .embedders import embedder_error
from .search_model import search_embedder

logger = logging.getLogger(__name__)

# Embedded once per process by the preload: any short text runs the same code paths.
WARM_UP_QUERY = "semantic search warm-up"


@dataclass(frozen=True)
class PreloadResult:
    """What :func:`semantic_preload` did: ``loaded`` (model in memory and one query embedded),
    ``seconds`` (wall time of the whole preload), ``model`` (its name) and ``reason`` (why
    not loaded, or what part of the warm-up failed; '' when all of it ran)."""

    loaded: bool
    seconds: float
    model: str = ""
    reason: str = ""


def semantic_preload() -> PreloadResult:
    """Load this process's embedder and pay every first-use cost a semantic query would.

    Runs, in order: :func:`~semantic.search_model.search_embedder` (the model searches read:
    the configured one, or the previous one while the archive is re-embedded; an OpenVINO
    model loads in about a second, the PyTorch model in 10-17 s on two busy cores), one
    ``embed_query`` (the runtime's thread pool, tokenizer and kernels start on the first call),
    then one nearest-neighbour search through
    :func:`semantic.services.search_papers` (the vector-column check, the filter SQL, the
    HNSW walk) on this thread's database connection, which is closed afterwards unless a
    transaction is open on it (request threads open their own). Call it in a worker process
    after any fork (torch's threads do not survive one), e.g. from gunicorn's
    ``post_worker_init`` (``wove/gunicorn_conf.py``).

    Never raises: without the model the result says why (search then answers in keyword
    mode, as it would have); a failing database step is logged and leaves the model loaded.
    """
    started = time.monotonic()
    try:
        return _preload(started)
    finally:
        if not connection.in_atomic_block:  # a caller's transaction (a test's) is left open
            connection.close()


def _preload(started: float) -> PreloadResult:
    try:
        embedder = search_embedder()
    except Exception as exc:  # the database is down at boot: the name of the model is unknown
        logger.warning("semantic preload: could not read the search model (%s)", exc)
        return PreloadResult(False, time.monotonic() - started, reason=f"search model unknown: {exc}")
    if embedder is None:
        return PreloadResult(False, time.monotonic() - started, reason=embedder_error())
    try:
        embedder.embed_query(WARM_UP_QUERY)
    except Exception as exc:  # the request path would fail the same way; say so at boot
        logger.exception("semantic preload: the first query embedding failed")
        return PreloadResult(False, time.monotonic() - started, embedder.name, f"first encode failed: {exc}")
    reason = ""
    try:
        services.search_papers(query=WARM_UP_QUERY, mode="semantic", limit=1)
    except Exception as exc:  # e.g. the database is down at boot: pages answer 503 until it is back
        logger.warning("semantic preload: the warm-up search failed (%s); the model is loaded", exc)
        reason = f"warm-up search failed: {exc.__class__.__name__}"
    return PreloadResult(True, time.monotonic() - started, embedder.name, reason)
