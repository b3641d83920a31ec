"""Kept archive-wide facts (issue 28): what the home page and browsing count, stored by the
pipeline's archive-facts stage so no request counts millions of rows."""

from __future__ import annotations

from django.db import models


class ArchiveFacts(models.Model):
    """One row per kind of fact (``key``; today only ``"archive"``): ``data`` is a JSON object
    with a ``version`` (see :mod:`pages.facts` for its fields), ``computed_at`` when the
    stage wrote it."""

    key = models.CharField(max_length=40, primary_key=True)
    computed_at = models.DateTimeField()
    data = models.JSONField(default=dict)

    class Meta:
        verbose_name = "archive facts"
        verbose_name_plural = "archive facts"

    def __str__(self) -> str:
        return f"{self.key} ({self.computed_at:%Y-%m-%d %H:%M})"
