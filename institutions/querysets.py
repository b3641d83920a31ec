"""Read-side queries for institutions."""

from __future__ import annotations

from django.db import models

from papers.affiliations import normalize


class InstitutionQuerySet(models.QuerySet):
    """Public reads of institutions (every ROR record is public, whatever its status)."""

    def active(self) -> InstitutionQuerySet:
        """Institutions ROR lists as active (not inactive or withdrawn)."""
        return self.filter(status="active")

    def in_country(self, code: str) -> InstitutionQuerySet:
        """Institutions whose first location is in ``code`` (ISO 3166-1 alpha-2, any case)."""
        return self.filter(country_code=code.upper())

    def search(self, text: str) -> InstitutionQuerySet:
        """Institutions with a name (display, label, alias, acronym) containing ``text``,
        compared after :func:`papers.affiliations.normalize` (accents and case folded)."""
        key = normalize(text)
        if not key:
            return self
        return self.filter(
            models.Exists(
                self.model.names.rel.related_model.objects.filter(
                    institution=models.OuterRef("pk"), normalized__contains=key
                )
            )
        )
