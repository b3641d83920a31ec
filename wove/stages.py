"""Running one pipeline stage: its lock, its run row, its outcome (shared by every app)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError
from django.utils import timezone

from .locks import advisory_lock
from .models import StageRun

logger = logging.getLogger(__name__)


# A stage that failed this many times running is flagged on the Pipeline page.
FAILING_AFTER = 3


def stage_execute(stage: str, work: Callable[[], dict[str, Any]], *, trigger: str = "task") -> dict[str, Any]:
    """Run ``work`` as one run of ``stage``, holding the stage's advisory lock.

    Returns ``{"status": "ok", **counts}`` with ``work()``'s counts, or ``{"status":
    "busy"}`` without calling it when another process holds the stage's lock (a broker
    redelivery, a second worker, a command beside the worker): the holder is doing the same
    work, and every stage reads what is pending from the database, so nothing is lost.
    Writes a :class:`wove.models.StageRun` row either way. An exception from ``work`` marks
    the row ``failed`` with its message and is raised again (Celery's retry decides what
    follows). ``trigger`` names who started it (``task``, ``inline``).
    """
    with advisory_lock(f"stage:{stage}") as held:
        now = timezone.now()
        if not held:
            StageRun.objects.create(
                stage=stage, trigger=trigger, outcome=StageRun.Outcome.BUSY, started_at=now, finished_at=now
            )
            logger.info("stage %s is running elsewhere; this run does nothing", stage)
            return {"status": "busy"}
        # We hold the lock, so a row still "running" is a run whose process died.
        StageRun.objects.filter(stage=stage, outcome=StageRun.Outcome.RUNNING).update(
            outcome=StageRun.Outcome.INTERRUPTED, finished_at=now
        )
        run = StageRun.objects.create(stage=stage, trigger=trigger, started_at=now)
        try:
            counts = dict(work())
        except BaseException as exc:
            try:
                StageRun.objects.filter(pk=run.pk).update(
                    outcome=StageRun.Outcome.FAILED,
                    finished_at=timezone.now(),
                    error=f"{type(exc).__name__}: {exc}"[:4000],
                )
            except DatabaseError:  # the database itself failed: the next run marks it interrupted
                logger.warning("stage %s failed and its run row could not be updated", stage)
            raise
        StageRun.objects.filter(pk=run.pk).update(
            outcome=StageRun.Outcome.OK, finished_at=timezone.now(), counts=counts
        )
    return {"status": "ok", **counts}
