"""Celery tasks for papers: the daily OAI-PMH harvest (the pipeline's first stage) and the
fetch of one paper not archived yet from the arXiv API."""

from __future__ import annotations

import logging

import httpx
from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from wove.backlog import Backlog
from wove.stages import StageTask, stage_execute

from . import search_index, search_index_sync
from .bulk import HarvestBusy
from .fetch_run import arxiv_fetch_give_up, arxiv_fetch_note, arxiv_fetch_run
from .harvest import harvest_oai
from .models import HarvestRun
from .oai import OaiClient
from .signals import harvest_finished

logger = logging.getLogger(__name__)

RETRYABLE = (httpx.TransportError, httpx.HTTPStatusError, TimeoutError)


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


@shared_task(bind=True, name="papers.fetch_paper", acks_late=True, max_retries=5)
def fetch_paper(self, arxiv_id: str) -> dict:
    """Fetch ``arxiv_id`` (normalised) through the arXiv API and archive it.

    Takes the identifier, never a model. Idempotent (see
    :func:`papers.fetch_run.arxiv_fetch_run`, which also asks again, within the run, when
    arXiv answers with an empty list); retries with exponential backoff (5 s doubling,
    at most 300 s) on transport errors, 429 and 5xx, saying so on the progress page; when
    the retries run out the fetch is marked failed, so the page stops waiting. Returns
    ``{"arxiv_id": str, "status": str}``.
    """
    try:
        fetch = arxiv_fetch_run(arxiv_id=arxiv_id)
    except RETRYABLE as exc:
        if self.request.retries >= self.max_retries:
            fetch = arxiv_fetch_give_up(
                arxiv_id=arxiv_id,
                message=f"arXiv could not be reached ({type(exc).__name__}); try again later.",
            )
            return {"arxiv_id": fetch.arxiv_id, "status": fetch.status}
        arxiv_fetch_note(arxiv_id=arxiv_id, message="arXiv did not answer; trying again…")
        raise self.retry(exc=exc, countdown=min(5 * 2**self.request.retries, 300)) from exc
    return {"arxiv_id": fetch.arxiv_id, "status": fetch.status}


def search_index_stage(*, trigger: str = "task", progress=None) -> dict:
    """The pipeline's search-index stage: this host's copy of the keyword search index
    follows the papers' change log (:func:`papers.search_index_sync.sync`, building the copy
    whole when there is none), then prunes log entries older than the keep window.
    Returns ``{"status", "changes", "applied", "rebuilt"}``, or ``{"status": "ok",
    "index": "off"}`` when ``SEARCH_INDEX_DIR`` is empty."""
    if search_index.index_root() is None:
        return {"status": "ok", "index": "off"}

    def work() -> dict:
        result = search_index_sync.sync(progress=progress)
        result["pruned"] = search_index_sync.prune_changes()
        return result

    return stage_execute("search-index", work, trigger=trigger)


def search_index_backlog() -> Backlog:
    """Changes this host's copy of the search index has yet to apply (``waiting=0`` with a
    note when the index is off)."""
    waiting = search_index_sync.backlog_waiting()
    if waiting is None:
        return Backlog(waiting=0, unit="changes", note="search index off (SEARCH_INDEX_DIR empty)")
    return Backlog(waiting=waiting, unit="changes")


@shared_task(
    base=StageTask,
    name="papers.sync_search_index",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def sync_search_index() -> dict:
    """Bring this host's search index up to the change log (:func:`search_index_stage`).
    Idempotent: a change applied twice leaves the same index."""
    return search_index_stage()
