"""On-demand fetches of papers not yet in the archive (the 404 page's "fetch it from arXiv")."""

from __future__ import annotations

from django.db import models


class ArxivFetch(models.Model):
    """One request to fetch a paper from the arXiv API, keyed by its normalised identifier.

    ``arxiv_id`` is unique, so asking twice (two visitors, a double click) shares one row
    and one task. ``status`` moves queued → running → done | missing | failed; ``missing``
    means arXiv answered without the paper, ``failed`` that it refused the request.
    ``attempts`` counts task runs, ``message`` is what the progress page shows.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        MISSING = "missing"
        FAILED = "failed"

    arxiv_id = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"{self.arxiv_id} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}
