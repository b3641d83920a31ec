"""Celery tasks for semantic search: embed papers that have no (current) vector yet."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import OperationalError

from . import services


@shared_task(
    name="semantic.embed_papers",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=60,
    retry_backoff_max=3600,
    max_retries=5,
)
def embed_papers(paper_ids: list[int] | None = None, batch_size: int = 64) -> dict:
    """Embed new or changed papers (all of them, or only ``paper_ids``), batched.

    Safe to run twice and after every harvest: papers whose vector is current are skipped, so
    only new ones cost model time. Returns ``{"available", "embedded", "unchanged",
    "skipped", "seconds", "reason"}``; without model or pgvector nothing is done and
    ``available`` is False (not an error: the site runs in keyword mode).
    """
    result = services.embeddings_update(paper_ids=paper_ids, batch_size=batch_size)
    return {
        "available": result.available,
        "embedded": result.embedded,
        "unchanged": result.unchanged,
        "skipped": result.skipped,
        "seconds": round(result.seconds, 1),
        "reason": result.reason,
    }


@worker_ready.connect
def embed_on_worker_start(sender=None, **kwargs) -> None:
    """Queue one ``semantic.embed_papers`` when a worker starts, so the sample gets its
    vectors in the background instead of lengthening ``make demo``. Cheap when all papers are
    current (hash comparison only). Only with ``SEMANTIC_EMBED_ON_WORKER_START=1`` (``make run``
    sets it), so the test suite's workers never receive a model-loading job."""
    if settings.TESTING or not settings.SEMANTIC_EMBED_ON_WORKER_START:
        return
    embed_papers.delay()
