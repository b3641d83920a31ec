"""Celery tasks for institutions: the pipeline's affiliations stage, summaries, ROR loading."""

from __future__ import annotations

from collections.abc import Callable

from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute

from . import services
from .summaries import summaries_refresh

# A database that restarts or drops the connection: the stage is retried, and being
# idempotent it redoes only what is still pending.
TRANSIENT = (OperationalError, InterfaceError)


def _counts(result: services.MatchResult) -> dict:
    return {
        "slots": result.slots,
        "strings": result.strings,
        "matched": result.strings_matched,
        "created": result.created,
        "updated": result.updated,
        "removed": result.removed,
    }


def affiliations_stage(*, trigger: str = "task", progress: Callable[[int], object] | None = None) -> dict:
    """The pipeline's affiliations stage: match the strings of every pending author slot
    (:func:`institutions.selectors.affiliations_pending`) under the stage's lock.

    What the task and the inline pipeline both run. Returns ``{"status": "ok"|"busy",
    "slots", "strings", "matched", "created", "updated", "removed"}``.
    """
    work = lambda: _counts(services.affiliations_match(pending_only=True, progress=progress))  # noqa: E731
    return stage_execute("affiliations", work, trigger=trigger)


def institution_summaries_stage(*, trigger: str = "task", progress=None) -> dict:
    """The pipeline's institution-summaries stage (:func:`institutions.summaries.summaries_refresh`
    under the stage's lock). Returns ``{"status", "computed"}``."""
    return stage_execute("institution-summaries", lambda: {"computed": summaries_refresh()}, trigger=trigger)


@shared_task(
    base=StageTask,
    name="institutions.match_affiliations",
    acks_late=True,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def match_affiliations(slot_ids: list[int] | None = None) -> dict:
    """The affiliations stage as a task (see :func:`affiliations_stage`), or a run over
    ``slot_ids`` only (outside the stage; returns the counts without ``status``). Safe to
    run twice: a second copy finds the stage busy or nothing pending."""
    if slot_ids is not None:
        return _counts(services.affiliations_match(slot_ids=slot_ids))
    return affiliations_stage()


@shared_task(
    base=StageTask,
    name="institutions.refresh_summaries",
    acks_late=True,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def refresh_summaries() -> dict:
    """Recompute stale institution summaries (:func:`institution_summaries_stage`). Idempotent."""
    return institution_summaries_stage()


@shared_task(
    name="institutions.link_ror_ids",
    acks_late=True,
    autoretry_for=TRANSIENT,
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
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    max_retries=3,
)
def load_ror(paths: list[str]) -> dict[str, int]:
    """Load ROR records from files on the worker's disk. A load that changed institutions
    clears the affiliation marks (every slot is pending again) and sends the affiliations
    stage; beat's sweep would find the work too."""
    result = services.institutions_load(paths=paths)
    if result.created or result.updated:
        match_affiliations.delay()
    return {"seen": result.seen, "created": result.created, "updated": result.updated}
