"""Celery tasks for researchers: the pipeline's authors and researcher-summaries stages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

import httpx
from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute
from wove.statistics import tables_settle

from . import services
from .clients.base import SourceUnavailable
from .models import ResearcherSummary
from .summaries import summaries_refresh

# Transport errors and registries that kept answering 429/5xx (SourceUnavailable, after the
# client's own retries), and a database that dropped the connection: retried with backoff.
TRANSIENT = (httpx.TransportError, SourceUnavailable, OperationalError, InterfaceError)


def authors_stage(
    *,
    trigger: str = "task",
    sources: list[str] | None = None,
    limit: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict:
    """The pipeline's authors stage: every unmatched person slot of a live paper, through the
    configured registries (``settings.RESEARCHER_SOURCES``, or ``sources``), then local
    evidence (:func:`researchers.services.researchers_match_authors`), under the stage's lock.

    What the task and the inline pipeline both run. Returns ``{"status": "ok"|"busy",
    **MatchSummary}`` (counts and seconds).
    """

    def work() -> dict:
        summary = services.researchers_match_authors(sources=sources, limit=limit, progress=progress)
        counts = asdict(summary)
        counts.pop("paper_ids")
        counts["seconds"] = round(counts["seconds"], 2)
        return counts

    return stage_execute("authors", work, trigger=trigger)


# Summary batches the stage computes at once, each on its own connection: the reads wait on
# PostgreSQL (a quarter of the wall time is this process's), so a second connection keeps the
# second core busy: 2,337 -> 3,687 summaries/s on a 100 k corpus (BENCHMARKS.md, issue 29).
SUMMARY_STAGE_CONNECTIONS = 2


def researcher_summaries_stage(*, trigger: str = "task", progress=None) -> dict:
    """The pipeline's researcher-summaries stage (:func:`researchers.summaries.summaries_refresh`
    under the stage's lock, :data:`SUMMARY_STAGE_CONNECTIONS` batches at once). Returns
    ``{"status", "computed"}``."""

    def work() -> dict:
        computed = summaries_refresh(workers=SUMMARY_STAGE_CONNECTIONS)
        # Settled for what reads them next (pages, the next sweep's staleness query): fresh
        # statistics, and after a first load's hundreds of thousands, hint bits set once.
        tables_settle([ResearcherSummary._meta.db_table], computed)
        return {"computed": computed}

    return stage_execute("researcher-summaries", work, trigger=trigger)


@shared_task(
    base=StageTask,
    name="researchers.match_authors",
    acks_late=True,
    autoretry_for=TRANSIENT,
    retry_backoff=60,
    retry_backoff_max=3600,
    retry_jitter=True,
    max_retries=5,
)
def match_authors(sources: list[str] | None = None, limit: int | None = None) -> dict:
    """The authors stage as a task (see :func:`authors_stage`). Safe to run twice: matched
    slots are skipped, a second copy finds the stage busy, and every matching write is
    serialised by one advisory lock."""
    return authors_stage(sources=sources, limit=limit)


@shared_task(
    base=StageTask,
    name="researchers.refresh_summaries",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def refresh_summaries() -> dict:
    """Recompute stale researcher summaries (:func:`researcher_summaries_stage`): missing, of
    changed ``paper_count`` or papers, or older than a day. Idempotent."""
    return researcher_summaries_stage()
