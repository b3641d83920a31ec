"""The pipeline's run log: one row per run of one stage, for operators."""

from __future__ import annotations

from django.db import models


class StageRun(models.Model):
    """One run of one pipeline stage (``affiliations``, ``authors``, ``signing``, ...).

    Written by :func:`wove.stages.stage_execute` whichever way the stage was started (a
    Celery task from a chain or beat's sweep, or inline by a command): ``running`` when it
    starts, then ``ok``, ``failed`` (with ``error``) or ``busy`` (another run held the
    stage's lock, so this one did nothing). A row left ``running`` by a killed worker is
    marked ``interrupted`` by the stage's next run. ``counts`` holds the stage's own result
    counts (JSON object of numbers and short strings).
    """

    class Outcome(models.TextChoices):
        RUNNING = "running"
        OK = "ok"
        FAILED = "failed"
        BUSY = "busy"
        INTERRUPTED = "interrupted"

    stage = models.CharField(max_length=32)
    trigger = models.CharField(max_length=32, blank=True, help_text="task, inline or command")
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RUNNING)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["stage", "-started_at"], name="stagerun_stage_started_idx")]
        verbose_name = "pipeline stage run"

    def __str__(self) -> str:
        return f"{self.stage} {self.outcome} at {self.started_at:%Y-%m-%d %H:%M:%S}"

    @property
    def seconds(self) -> float | None:
        """Wall time of a finished run in seconds, else None."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()
