"""Celery tasks of the public site: fetching a not-yet-archived paper from the arXiv API."""

from __future__ import annotations

import httpx
from celery import shared_task

from . import services

RETRYABLE = (httpx.TransportError, httpx.HTTPStatusError, TimeoutError)


@shared_task(bind=True, name="pages.fetch_paper", acks_late=True, max_retries=5)
def fetch_paper(self, arxiv_id: str) -> dict:
    """Fetch ``arxiv_id`` (normalised) through the arXiv API and archive it.

    Takes the identifier, never a model. Idempotent (see
    :func:`pages.services.arxiv_fetch_run`); retries with exponential backoff (5 s doubling,
    at most 300 s) on transport errors, 429 and 5xx, saying so on the progress page; when
    the retries run out the fetch is marked failed, so the page stops waiting. Returns
    ``{"arxiv_id": str, "status": str}``.
    """
    try:
        fetch = services.arxiv_fetch_run(arxiv_id=arxiv_id)
    except RETRYABLE as exc:
        if self.request.retries >= self.max_retries:
            fetch = services.arxiv_fetch_give_up(
                arxiv_id=arxiv_id,
                message=f"arXiv could not be reached ({type(exc).__name__}); try again later.",
            )
            return {"arxiv_id": fetch.arxiv_id, "status": fetch.status}
        services.arxiv_fetch_note(arxiv_id=arxiv_id, message="arXiv did not answer; trying again…")
        raise self.retry(exc=exc, countdown=min(5 * 2**self.request.retries, 300)) from exc
    return {"arxiv_id": fetch.arxiv_id, "status": fetch.status}
