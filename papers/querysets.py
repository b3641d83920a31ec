"""Read-side queries for papers."""

from __future__ import annotations

from django.db import models


class PaperQuerySet(models.QuerySet):
    """Permission-free public reads of papers."""

    def public(self) -> PaperQuerySet:
        """Papers a visitor may list: not deleted, not hidden by an editor."""
        return self.filter(deleted=False, hidden=False)

    def newest(self) -> PaperQuerySet:
        """Newest submission first, ties broken by identifier for a stable order."""
        return self.order_by("-submitted_at", "-arxiv_id")

    def in_category(self, code: str) -> PaperQuerySet:
        """Papers listed in ``code`` as primary or cross-list category (GIN-indexed)."""
        return self.filter(categories__contains=[code])
