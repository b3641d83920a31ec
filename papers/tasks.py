"""Celery tasks for papers: the daily OAI-PMH harvest, the pipeline's first stage."""

from __future__ import annotations

import logging

import httpx
from celery import shared_task
from django.conf import settings

from .bulk import HarvestBusy
from .harvest import harvest_oai
from .models import HarvestRun
from .oai import OaiClient
from .signals import harvest_finished

logger = logging.getLogger(__name__)


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

    Ends by sending :data:`papers.signals.harvest_finished` (the pipeline's next stages go
    to the workers). Safe to run twice: an interrupted run resumes from its saved resumptionToken and the
    upserts are idempotent; a copy delivered while the harvest still runs (the broker's
    visibility timeout ran out) finds it busy and returns ``{"status": "busy"}``. Returns
    the run's counts as a dict.
    """
    prefix = metadata_prefix or settings.ARXIV_OAI_DEFAULT_PREFIX
    with OaiClient(
        settings.ARXIV_OAI_ENDPOINT,
        min_interval=settings.ARXIV_OAI_MIN_INTERVAL,
        timeout=settings.ARXIV_OAI_TIMEOUT,
        user_agent=settings.WOVE_USER_AGENT,
    ) as client:
        try:
            run = harvest_oai(client=client, metadata_prefix=prefix, set_spec=set_spec)
        except HarvestBusy as exc:
            logger.info("%s; this copy of the task stops", exc)
            return {"run": None, "status": "busy"}
    harvest_finished.send(sender=HarvestRun, run=run, inline=False)  # the next stages, to the workers
    return {
        "run": run.pk,
        "status": run.status,
        "seen": run.records_seen,
        "written": run.records_written,
        "skipped": run.records_skipped,
    }
