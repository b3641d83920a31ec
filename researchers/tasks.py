"""Celery tasks for researchers: matching author slots to researcher identities."""

from __future__ import annotations

from dataclasses import asdict

import httpx
from celery import shared_task

from . import services
from .clients.base import SourceUnavailable
from .summaries import summaries_refresh


@shared_task(
    name="researchers.match_authors",
    acks_late=True,
    autoretry_for=(httpx.TransportError, SourceUnavailable),
    retry_backoff=60,
    retry_backoff_max=3600,
    max_retries=5,
)
def match_authors(sources: list[str] | None = None, limit: int | None = None) -> dict:
    """Match every unmatched author slot, newest papers first (``settings.RESEARCHER_SOURCES``
    unless ``sources`` is given; local evidence for the rest).

    Safe to run twice: matched slots are skipped and local runs are serialised by an
    advisory lock. Returns the :class:`researchers.services.MatchSummary` as a dict.
    """
    result = asdict(services.researchers_match_authors(sources=sources, limit=limit))
    # The pages of researchers whose papers changed read fresh summaries from now on.
    result["summaries_refreshed"] = summaries_refresh()
    return result


@shared_task(name="researchers.refresh_summaries", acks_late=True)
def refresh_summaries() -> int:
    """Recompute stale researcher summaries (:func:`researchers.summaries.summaries_refresh`):
    missing, of changed ``paper_count``, or older than six hours. Idempotent; returns how
    many were computed."""
    return summaries_refresh()
