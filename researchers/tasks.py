"""Celery tasks for researchers: matching author slots to researcher identities."""

from __future__ import annotations

from dataclasses import asdict

import httpx
from celery import shared_task

from . import services
from .clients.base import SourceUnavailable


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
    return asdict(services.researchers_match_authors(sources=sources, limit=limit))
