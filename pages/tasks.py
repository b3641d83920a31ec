"""Celery tasks of the public site: fetching a not-yet-archived paper from the arXiv API."""

from __future__ import annotations

import httpx
from celery import shared_task

from . import services


@shared_task(
    name="pages.fetch_paper",
    acks_late=True,
    autoretry_for=(httpx.TransportError, httpx.HTTPStatusError, TimeoutError),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def fetch_paper(arxiv_id: str) -> dict:
    """Fetch ``arxiv_id`` (normalised) through the arXiv API and archive it.

    Takes the identifier, never a model. Idempotent (see
    :func:`pages.services.arxiv_fetch_run`); retries with backoff on transport errors, 429
    and 5xx. Returns ``{"arxiv_id": str, "status": str}``.
    """
    fetch = services.arxiv_fetch_run(arxiv_id=arxiv_id)
    return {"arxiv_id": fetch.arxiv_id, "status": fetch.status}
