"""QuerySets of provenance records and events."""

from __future__ import annotations

from django.db import models


class RecordQuerySet(models.QuerySet):
    """Lookups of records by pith number, body, short form or arXiv identifier."""

    def latest_first(self) -> RecordQuerySet:
        """Newest version first, then newest record of that version."""
        return self.order_by("-source_version", "-created_at")


class EventQuerySet(models.QuerySet):
    """Events in log order: ``created_at`` then content hash (the merge order)."""

    def in_log_order(self) -> EventQuerySet:
        return self.order_by("created_at", "content_sha256")
