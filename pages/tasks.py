"""Celery task for the public site: the pipeline's archive-facts stage (issue 28)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute

from .facts import archive_facts_refresh

# A database that restarts or drops the connection: the stage is retried; it recounts whole.
TRANSIENT = (OperationalError, InterfaceError)


def archive_facts_stage(*, trigger: str = "task", progress=None) -> dict:
    """The pipeline's archive-facts stage (:func:`pages.facts.archive_facts_refresh` under the
    stage's lock). Returns ``{"status", "papers", "researchers"}``: the counts it kept."""

    def work() -> dict:
        data = archive_facts_refresh()
        return {"papers": data["papers"], "researchers": data["researchers"]}

    return stage_execute("archive-facts", work, trigger=trigger)


@shared_task(
    base=StageTask,
    name="pages.refresh_archive_facts",
    acks_late=True,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=5,
)
def refresh_archive_facts() -> dict:
    """Recount the archive's kept facts (:func:`archive_facts_stage`). Idempotent."""
    return archive_facts_stage()
