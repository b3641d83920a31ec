"""Read-side queries for institutions."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Coalesce

from papers.affiliations import normalize
from papers.models import Paper


class InstitutionQuerySet(models.QuerySet):
    """Public reads of institutions (every ROR record is public, whatever its status)."""

    def active(self) -> InstitutionQuerySet:
        """Institutions ROR lists as active (not inactive or withdrawn)."""
        return self.filter(status="active")

    def listed(self) -> InstitutionQuerySet:
        """The institutions ``/institutions`` lists and the home page counts: every record
        except a withdrawn or inactive one that leads to an active successor
        (``superseded_by``), whose links, follows and URLs all go to that successor (listing
        both would show one institution twice)."""
        return self.filter(superseded_by__isnull=True)

    def with_counts(self) -> InstitutionQuerySet:
        """Annotated with what an institution's badges say, counted as its page counts them:
        ``paper_count`` (public papers with an author slot linked to it: the page's "Papers
        (N)") and ``researcher_count`` (researchers, not merged away, with a linked slot:
        the page's "Researchers (N)"). Correlated subqueries, evaluated for the rows a page
        shows only (after ORDER BY ... LIMIT), not for the whole registry."""
        links = self.model.author_links.rel.related_model.objects.filter(institution=models.OuterRef("pk"))
        papers = (
            links.filter(slot__paper__in=Paper.objects.public())
            .order_by()
            .values("institution")
            .annotate(n=models.Count("slot__paper", distinct=True))
            .values("n")
        )
        researchers = (
            links.filter(slot__authorship__researcher__merged_into__isnull=True)
            .order_by()
            .values("institution")
            .annotate(n=models.Count("slot__authorship__researcher", distinct=True))
            .values("n")
        )
        return self.annotate(
            paper_count=Coalesce(models.Subquery(papers), 0),
            researcher_count=Coalesce(models.Subquery(researchers), 0),
        )

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
