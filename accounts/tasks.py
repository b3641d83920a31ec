"""Celery tasks for accounts: the pipeline's digests stage and one digest per user."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute

from . import services


def digests_stage(*, trigger: str = "task", progress=None) -> dict:
    """The pipeline's digests stage: every user a digest is due to
    (:func:`accounts.services.digest_due_user_ids`), under the stage's lock. As a task it
    queues :func:`send_digest` per user (so one failing mailbox retries alone); inline
    (``trigger="inline"``) it builds and sends them here. Returns ``{"status", "users",
    "papers"}`` (papers: announced by the digests sent here; 0 when queued)."""

    def work() -> dict:
        user_ids = services.digest_due_user_ids()
        papers = 0
        for user_id in user_ids:
            if trigger == "inline":
                papers += services.digest_run(user_id=user_id)
            else:
                send_digest.delay(user_id=user_id)
        return {"users": len(user_ids), "papers": papers}

    return stage_execute("digests", work, trigger=trigger)


@shared_task(
    base=StageTask,
    name="accounts.send_digests",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def send_digests() -> int:
    """The digests stage as a task: queue :func:`send_digest` for every user a digest is due
    to; returns how many (0 when the stage was busy elsewhere). Safe to run twice: each
    user's task builds at most one digest per interval and never repeats a paper."""
    return digests_stage().get("users", 0)


@shared_task(
    name="accounts.send_digest",
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=60,
    retry_backoff_max=3600,
    max_retries=8,
)
def send_digest(user_id: int) -> int:
    """Build and send one user's digest; returns the number of papers it announced.

    Retries on SMTP and socket errors; a retry re-sends the same unsent digest, and a
    paper already announced to the user is never announced again.
    """
    return services.digest_run(user_id=user_id)
