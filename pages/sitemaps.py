"""The sitemap index (``/sitemap.xml``) and its sections: pages, papers, researchers,
institutions. Django splits each section into files of at most ``limit`` = 50,000 URLs
(the sitemaps.org maximum); every public object appears exactly once."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap

from institutions.models import Institution
from papers.models import Paper
from researchers.models import Researcher


class _SiteSitemap(Sitemap):
    """Absolute URLs on ``settings.SITE_URL`` (this project runs without django.contrib.sites)."""

    limit = 50_000

    def get_domain(self, site=None) -> str:
        return urlsplit(settings.SITE_URL).netloc

    def get_protocol(self, protocol=None) -> str:
        return urlsplit(settings.SITE_URL).scheme or "https"


class StaticSitemap(_SiteSitemap):
    """Home, search, the lists and the CMS pages."""

    changefreq = "daily"

    def items(self) -> list[str]:
        return [
            "/", "/search", "/papers/", "/researchers", "/institutions",
            "/about", "/contact", "/privacy", "/developers", "/llms.txt",
        ]  # fmt: skip

    def location(self, item: str) -> str:
        return item


class PaperSitemap(_SiteSitemap):
    """Every public paper (not deleted, not hidden), by id for stable paging."""

    changefreq = "monthly"

    def items(self):
        return Paper.objects.public().order_by("pk").only("arxiv_id", "slug", "modified_at")

    def lastmod(self, item: Paper):
        return item.modified_at


class ResearcherSitemap(_SiteSitemap):
    """Every listed researcher: not merged away, with at least one paper."""

    changefreq = "weekly"

    def items(self):
        return Researcher.objects.listed().order_by("pk").only("pk", "slug", "modified_at")

    def lastmod(self, item: Researcher):
        return item.modified_at


class InstitutionSitemap(_SiteSitemap):
    """Every institution but a withdrawn or inactive one with an active successor (its page
    stays, with a banner, but its ROR ID and names lead to the successor's page)."""

    changefreq = "monthly"

    def items(self):
        current = Institution.objects.filter(superseded_by__isnull=True)
        return current.order_by("pk").only("pk", "slug", "modified_at")

    def lastmod(self, item: Institution):
        return item.modified_at


SITEMAPS = {
    "pages": StaticSitemap,
    "papers": PaperSitemap,
    "researchers": ResearcherSitemap,
    "institutions": InstitutionSitemap,
}
