"""Celery tasks of the composition layer: beat's sweep of every pipeline stage."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

from .pipeline import STAGE_NAMES, pipeline_signature


@shared_task(name="wove.sweep_pipeline", acks_late=True)
def sweep_pipeline() -> list[str]:
    """Beat job (every 15 min): send every stage (:func:`wove.pipeline.pipeline_signature`).

    Each stage reads what is pending from the database, so a sweep finds exactly the work
    a failed or lost message left, and costs a few queries when there is none. Returns the
    stage names sent."""
    pipeline_signature().apply_async()
    return list(STAGE_NAMES)


@worker_ready.connect
def sweep_on_worker_start(sender=None, **kwargs) -> None:
    """Send one sweep when a worker starts (``PIPELINE_SWEEP_ON_WORKER_START``, set by ``make
    run``), so work waiting since the last run starts at once instead of at the next beat."""
    if settings.PIPELINE_SWEEP_ON_WORKER_START:
        sweep_pipeline.delay()
