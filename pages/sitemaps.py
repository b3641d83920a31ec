"""The sitemap index (``/sitemap.xml``) and its sections: pages, papers, researchers,
institutions, collaborations. Django splits each section into files of at most ``limit`` = 50,000 URLs
(the sitemaps.org maximum); every public object appears exactly once, and the index lists
only files that hold at least one URL (BUGS.md MAP-01)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import SitemapIndexItem
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Exists, Max, OuterRef, QuerySet
from django.http import Http404
from django.urls import reverse

from institutions.models import Institution
from papers.models import Collaboration, Paper, PaperCollaboration
from researchers.models import Researcher

# XML-escape quotes too: sitemaps.org asks for every entity escaped in a <loc>.
_QUOTES = {'"': "&quot;", "'": "&apos;"}


class _SiteSitemap(Sitemap):
    """Absolute URLs on ``settings.SITE_URL`` (this project runs without django.contrib.sites).

    An empty section has no pages: its first file answers 404 rather than an empty
    ``<urlset>``, and :func:`sitemap_index_entries` leaves it out. A section of model rows
    gives their ``modified_at`` as ``lastmod``.
    """

    limit = 50_000

    def get_domain(self, site=None) -> str:
        return urlsplit(settings.SITE_URL).netloc

    def get_protocol(self, protocol=None) -> str:
        return urlsplit(settings.SITE_URL).scheme or "https"

    @property
    def paginator(self) -> Paginator:
        return Paginator(self._items(), self.limit, allow_empty_first_page=False)

    def get_latest_lastmod(self):
        """The section's newest ``lastmod`` in one query: Django's default calls ``lastmod``
        on every item, which for the index meant reading every paper."""
        items = self.items()
        if not hasattr(self, "lastmod") or not isinstance(items, QuerySet):
            return super().get_latest_lastmod()
        return items.order_by().aggregate(latest=Max("modified_at"))["latest"]


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


class CollaborationSitemap(_SiteSitemap):
    """Every collaboration named on at least one public paper (issue 19)."""

    changefreq = "weekly"

    def items(self):
        on_public = PaperCollaboration.objects.filter(
            collaboration=OuterRef("pk"), paper__deleted=False, paper__hidden=False
        )
        return Collaboration.objects.filter(Exists(on_public)).order_by("pk").only("pk", "slug")


SITEMAPS = {
    "pages": StaticSitemap,
    "papers": PaperSitemap,
    "researchers": ResearcherSitemap,
    "institutions": InstitutionSitemap,
    "collaborations": CollaborationSitemap,
}


def sitemap_index_entries(*, sitemaps: dict[str, type[Sitemap]] = SITEMAPS) -> list[SitemapIndexItem]:
    """The files of the sitemap index, in section order: each section's first file, then
    ``?p=2`` … for its further pages, as absolute URLs on ``settings.SITE_URL`` with the
    section's newest ``lastmod`` (an aware datetime, or ``None``). A section with no URL is
    left out, so the index never names an empty or 404 file (sitemaps.org protocol; each
    file holds at most ``limit`` = 50,000 URLs, far under 50 MiB at this URL length)."""
    entries: list[SitemapIndexItem] = []
    for section, sitemap_class in sitemaps.items():
        site = sitemap_class()
        pages = site.paginator.num_pages
        if not pages:
            continue
        url = f"{site.get_protocol()}://{site.get_domain()}"
        url += reverse("pages:sitemap_section", kwargs={"section": section})
        lastmod = site.get_latest_lastmod()
        entries.append(SitemapIndexItem(url, lastmod))
        entries += [SitemapIndexItem(f"{url}?p={page}", lastmod) for page in range(2, pages + 1)]
    return entries


def w3c_datetime(value: date | datetime) -> str:
    """A W3C Datetime (the form sitemaps.org asks of ``lastmod``): ``2026-12-01T12:30:00Z``
    for an aware datetime (to the second, in UTC), ``2026-12-01`` for a date."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return value.isoformat()


def urlset_xml(urls: Iterable[dict]) -> str:
    """A sitemaps.org 0.9 ``<urlset>`` of the URL dicts Django's ``Sitemap.get_urls`` gives
    (``location``, ``lastmod``, ``changefreq``, ``priority``), written directly: Django's
    template engine took about 10 s for a full file of 50,000 URLs, this about one."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    ]
    for url in urls:
        parts.append(f"<url><loc>{escape(url['location'], _QUOTES)}</loc>")
        if url.get("lastmod"):
            parts.append(f"<lastmod>{w3c_datetime(url['lastmod'])}</lastmod>")
        if url.get("changefreq"):
            parts.append(f"<changefreq>{url['changefreq']}</changefreq>")
        if url.get("priority"):
            parts.append(f"<priority>{url['priority']}</priority>")
        parts.append("</url>\n")
    parts.append("</urlset>\n")
    return "".join(parts)


def sitemap_index_xml(*, sitemaps: dict[str, type[Sitemap]] = SITEMAPS) -> str:
    """The sitemaps.org 0.9 ``<sitemapindex>`` of :func:`sitemap_index_entries`."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    ]
    for entry in sitemap_index_entries(sitemaps=sitemaps):
        parts.append(f"<sitemap><loc>{escape(entry.location, _QUOTES)}</loc>")
        if entry.last_mod:
            parts.append(f"<lastmod>{w3c_datetime(entry.last_mod)}</lastmod>")
        parts.append("</sitemap>\n")
    parts.append("</sitemapindex>\n")
    return "".join(parts)


def sitemap_file(*, section: str, page: str | int = 1, sitemaps: dict[str, type[Sitemap]] = SITEMAPS) -> str:
    """The XML of one sitemap file: page ``page`` (1-based) of ``section``, at most
    ``limit`` = 50,000 URLs. Raises :class:`Http404` for an unknown section, a page that is
    not a number, or one past the end (an empty section has no page at all)."""
    if section not in sitemaps:
        raise Http404(f"No sitemap section {section!r}")
    try:
        return urlset_xml(sitemaps[section]().get_urls(page=page))
    except (EmptyPage, PageNotAnInteger) as exc:
        raise Http404(f"No page {page!r} of sitemap section {section!r}") from exc
