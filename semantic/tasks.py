"""Celery tasks for semantic search: the pipeline's embeddings stage."""

from __future__ import annotations

from collections.abc import Callable

from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute

from . import services


def embeddings_stage(*, trigger: str = "task", progress: Callable[[int], object] | None = None) -> dict:
    """The pipeline's embeddings stage: embed every paper :func:`semantic.services.embeddings_pending`
    holds, under the stage's lock; nothing (``available`` False) in keyword mode.

    What the task and the inline pipeline both run. Returns ``{"status": "ok"|"busy",
    "available", "embedded", "unchanged", "skipped", "seconds", "reason"}``.
    """

    work = lambda: _counts(services.embeddings_update(pending_only=True, progress=progress))  # noqa: E731
    return stage_execute("embeddings", work, trigger=trigger)


def _counts(result: services.EmbedResult) -> dict:
    return {
        "available": result.available,
        "embedded": result.embedded,
        "unchanged": result.unchanged,
        "skipped": result.skipped,
        "removed": result.removed,
        "seconds": round(result.seconds, 1),
        "reason": result.reason,
    }


@shared_task(
    base=StageTask,
    name="semantic.embed_papers",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=60,
    retry_backoff_max=3600,
    retry_jitter=True,
    max_retries=5,
)
def embed_papers(paper_ids: list[int] | None = None, batch_size: int = 64) -> dict:
    """The embeddings stage (see :func:`embeddings_stage`), or only ``paper_ids``.

    Safe to run twice and after every harvest: papers whose vector is current are skipped, so
    only new ones cost model time. Without model or pgvector nothing is done and
    ``available`` is False (not an error: the site runs in keyword mode).
    """
    if paper_ids is None:
        return embeddings_stage()
    return _counts(services.embeddings_update(paper_ids=paper_ids, batch_size=batch_size))
