"""Celery tasks for provenance: signing new and changed papers."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from . import services


@shared_task(
    name="provenance.sign_records",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=5,
)
def sign_records(paper_ids: list[int] | None = None, batch_size: int = 500) -> dict:
    """Sign every paper changed since it was last signed (or only ``paper_ids``).

    Batched and idempotent: a rerun writes nothing new, and two workers at once write each
    event once (see :func:`provenance.services.records_sign`). Returns the run's counts.
    """
    result = services.records_sign(paper_ids=paper_ids, batch_size=batch_size)
    return vars(result)
