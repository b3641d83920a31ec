"""Celery tasks for papers: the daily OAI-PMH harvest."""

from __future__ import annotations

import httpx
from celery import shared_task
from django.conf import settings

from . import services
from .oai import OaiClient


@shared_task(
    name="papers.harvest_arxiv",
    acks_late=True,
    autoretry_for=(httpx.TransportError, httpx.HTTPStatusError),
    retry_backoff=60,
    retry_backoff_max=3600,
    max_retries=5,
)
def harvest_arxiv(metadata_prefix: str | None = None, set_spec: str = "") -> dict:
    """Incremental OAI-PMH harvest (from the last complete run's responseDate).

    Safe to run twice: an interrupted run resumes from its saved resumptionToken and the
    upserts are idempotent. Returns the run's counts as a dict.
    """
    with OaiClient(
        settings.ARXIV_OAI_ENDPOINT,
        min_interval=settings.ARXIV_OAI_MIN_INTERVAL,
        timeout=settings.ARXIV_OAI_TIMEOUT,
        user_agent=settings.WOVE_USER_AGENT,
    ) as client:
        run = services.harvest_oai(
            client=client,
            metadata_prefix=metadata_prefix or settings.ARXIV_OAI_DEFAULT_PREFIX,
            set_spec=set_spec,
        )
    return {
        "run": run.pk,
        "status": run.status,
        "seen": run.records_seen,
        "written": run.records_written,
        "skipped": run.records_skipped,
    }
