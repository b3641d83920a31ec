"""Read-side queries for researchers."""

from __future__ import annotations

from django.db import models


class ResearcherQuerySet(models.QuerySet):
    """Public reads of researcher records."""

    def active(self) -> ResearcherQuerySet:
        """Records not merged away by an editor (a merged record only redirects)."""
        return self.filter(merged_into__isnull=True)

    def listed(self) -> ResearcherQuerySet:
        """Active researchers with at least one paper, most papers first."""
        return self.active().filter(paper_count__gt=0).order_by("-paper_count", "display_name", "id")

    def search(self, query: str) -> ResearcherQuerySet:
        """Researchers whose display name or any name variant contains ``query`` (case-insensitive)."""
        query = (query or "").strip()
        if not query:
            return self
        variants = models.Func(
            models.F("name_variants"),
            models.Value(" | "),
            function="array_to_string",
            output_field=models.TextField(),
        )
        return self.annotate(_variants=variants).filter(
            models.Q(display_name__icontains=query) | models.Q(_variants__icontains=query)
        )
