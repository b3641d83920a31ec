"""Read-side queries for curation records."""

from __future__ import annotations

from django.db import models


class CurationRecordQuerySet(models.QuerySet):
    """Reads of the curation log."""

    def for_researcher(self, researcher_id: int) -> CurationRecordQuerySet:
        """Records involving ``researcher_id`` (as survivor, source, target or merged record)."""
        return self.filter(researcher_ids__contains=[researcher_id])

    def undoable(self) -> CurationRecordQuerySet:
        """Merges, splits, confirmations and reassignments not undone yet."""
        return self.filter(kind__in=["merge", "split", "confirm", "reassign"], undone_by__isnull=True)
