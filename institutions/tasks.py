"""Celery tasks for institutions: affiliation matching and ROR loading."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from . import services
from .summaries import summaries_refresh


@shared_task(
    name="institutions.match_affiliations",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def match_affiliations(slot_ids: list[int] | None = None) -> dict[str, int]:
    """Match affiliation strings of ``slot_ids`` (default: all slots) to institutions.

    Safe to run twice (the service is idempotent). Returns the run's counts.
    """
    result = services.affiliations_match(slot_ids=slot_ids)
    summaries_refresh()  # institution pages read fresh aggregates from now on
    return {
        "slots": result.slots,
        "strings": result.strings,
        "matched": result.strings_matched,
        "created": result.created,
        "updated": result.updated,
        "removed": result.removed,
    }


@shared_task(name="institutions.refresh_summaries", acks_late=True)
def refresh_summaries() -> int:
    """Recompute stale institution summaries (:func:`institutions.summaries.summaries_refresh`).
    Idempotent; returns how many were computed."""
    return summaries_refresh()


@shared_task(
    name="institutions.link_ror_ids",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def link_ror_ids(pairs: list[tuple[int, str]], source: str = "openalex") -> dict[str, int]:
    """Link ``(PaperAuthor id, ROR ID)`` pairs (e.g. from OpenAlex authorships). Idempotent."""
    result = services.affiliations_link_ror_ids(pairs=[tuple(p) for p in pairs], source=source)
    return {"created": result.created, "updated": result.updated, "unknown": len(result.unknown_ror_ids)}


@shared_task(
    name="institutions.load_ror",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def load_ror(paths: list[str]) -> dict[str, int]:
    """Load ROR records from files on the worker's disk, then re-match affiliation strings."""
    result = services.institutions_load(paths=paths)
    if result.created or result.updated:
        match_affiliations.delay()
    return {"seen": result.seen, "created": result.created, "updated": result.updated}
