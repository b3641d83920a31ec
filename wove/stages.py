"""Running one pipeline stage: its lock, its run row, its outcome (shared by every app)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Task
from celery.exceptions import Retry
from django.db import DatabaseError
from django.utils import timezone

from .locks import advisory_lock
from .models import StageRun

logger = logging.getLogger(__name__)


# A stage that failed this many times running is flagged on the Pipeline page.
FAILING_AFTER = 3
# At most this many passes of one run (see _work_until_nothing_asked).
MAX_PASSES = 5


def _work_until_nothing_asked(stage: str, work: Callable[[], dict[str, Any]], *, since) -> dict[str, Any]:
    """Call ``work`` again while another trigger found the stage busy after the current pass
    began (a harvest that ended while a long embeddings run was under way): that harvest's
    papers were not pending yet when the pass read its work, and without another pass they
    would wait for beat's next sweep. At most :data:`MAX_PASSES` passes; numeric counts add
    up over the passes, the others keep the last pass's value."""
    counts: dict[str, Any] = {}
    for _ in range(MAX_PASSES):
        for key, value in dict(work()).items():
            summable = isinstance(value, int | float) and not isinstance(value, bool)
            counts[key] = counts.get(key, 0) + value if summable and key in counts else value
        asked = StageRun.objects.filter(stage=stage, outcome=StageRun.Outcome.BUSY, started_at__gte=since)
        if not asked.exists():
            break
        since = timezone.now()
    return counts


def stage_execute(stage: str, work: Callable[[], dict[str, Any]], *, trigger: str = "task") -> dict[str, Any]:
    """Run ``work`` as one run of ``stage``, holding the stage's advisory lock.

    Returns ``{"status": "ok", **counts}`` with ``work()``'s counts, or ``{"status":
    "busy"}`` without calling it when another process holds the stage's lock (a broker
    redelivery, a second worker, a command beside the worker): the holder does the same
    work, and runs it once more when its pass began before the busy call (every stage reads
    what is pending from the database, so nothing waits for the next sweep).
    Writes a :class:`wove.models.StageRun` row either way. An exception from ``work`` marks
    the row ``failed`` with its message and is raised again (Celery's retry decides what
    follows). ``trigger`` names who started it (``task``, ``inline``).
    """
    name = f"stage:{stage}"
    with advisory_lock(name) as held:
        if held:
            return _run_holding(stage, work, trigger=trigger)
    now = timezone.now()
    busy = StageRun.objects.create(
        stage=stage, trigger=trigger, outcome=StageRun.Outcome.BUSY, started_at=now, finished_at=now
    )
    # The holder looks for this row after each pass; if it let go before the row existed,
    # the lock is free now and this call does the work itself.
    with advisory_lock(name) as held:
        if held:
            busy.delete()
            return _run_holding(stage, work, trigger=trigger)
    logger.info("stage %s is running elsewhere; it will run once more for this call", stage)
    return {"status": "busy"}


def _run_holding(stage: str, work: Callable[[], dict[str, Any]], *, trigger: str) -> dict[str, Any]:
    """:func:`stage_execute` once the stage's lock is held: the run row, the passes, the outcome."""
    now = timezone.now()
    # We hold the lock, so a row still "running" is a run whose process died.
    StageRun.objects.filter(stage=stage, outcome=StageRun.Outcome.RUNNING).update(
        outcome=StageRun.Outcome.INTERRUPTED, finished_at=now
    )
    run = StageRun.objects.create(stage=stage, trigger=trigger, started_at=now)
    try:
        counts = _work_until_nothing_asked(stage, work, since=now)
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


class StageTask(Task):
    """Celery base class of the pipeline's stage tasks (``@shared_task(base=StageTask)``).

    Once a stage's retries are spent, or on an error it does not retry, the task returns
    ``{"status": "failed", "error": "..."}`` instead of raising, so the chain's later stages
    still run: each reads its own pending work, and a broken signing key must not stop
    embeddings, summaries and digests. The stage's run row says ``failed`` (three in a row
    flag it FAILING) and beat's next sweep sends it again. Retries raise as usual.
    """

    def __call__(self, *args, **kwargs):
        try:
            return super().__call__(*args, **kwargs)
        except Retry:
            raise
        except Exception as exc:
            logger.exception("task %s failed for good; the chain's later stages still run", self.name)
            return {"status": "failed", "error": f"{type(exc).__name__}: {exc}"[:500]}
