"""Celery tasks for accounts: the digest beat job and one digest per user."""

from __future__ import annotations

import smtplib

from celery import shared_task

from . import services


@shared_task(name="accounts.send_digests", acks_late=True)
def send_digests() -> int:
    """Beat job (hourly): queue :func:`send_digest` for every user a digest is due to.

    Returns the number of users queued. Safe to run twice: each user's task builds at most
    one digest per interval and never repeats a paper.
    """
    user_ids = services.digest_due_user_ids()
    for user_id in user_ids:
        send_digest.delay(user_id=user_id)
    return len(user_ids)


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
