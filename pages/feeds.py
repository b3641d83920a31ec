"""RSS 2.0 feeds (Django syndication): the latest papers, per category, per researcher.

Every string goes through :func:`feed_text`: TeX made readable and the control characters
XML 1.0 forbids removed, so no harvested title or abstract can break a feed.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.utils.feedgenerator import Rss201rev2Feed

from papers.models import Category, Paper
from papers.templatetags.wove import readable_text
from papers.text import byline, strip_control
from researchers.models import Researcher

FEED_SIZE = 50


def feed_text(value: str | None, *, limit: int | None = None) -> str:
    """Harvested text fit for XML: TeX decoded to Unicode, forbidden characters removed
    (C0 controls, lone surrogates, U+FFFE/U+FFFF), optionally cut to ``limit`` characters."""
    text = strip_control(readable_text(value))
    text = "".join(ch for ch in text if not (0xD800 <= ord(ch) <= 0xDFFF or ch in "\ufffe\uffff"))
    if limit and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


class _PaperFeed(Feed):
    """Shared item rendering: title, authors + abstract as description, arXiv id as GUID."""

    feed_type = Rss201rev2Feed
    language = "en"

    def item_title(self, item: Paper) -> str:
        return feed_text(item.title)

    def item_description(self, item: Paper) -> str:
        authors = feed_text(byline(item.authors_text), limit=300)
        abstract = feed_text(item.abstract, limit=1200)
        return f"{authors}\n\n{abstract}" if authors else abstract

    def item_link(self, item: Paper) -> str:
        return item.get_absolute_url()

    def item_guid(self, item: Paper) -> str:
        return f"{settings.SITE_URL}{item.get_absolute_url()}"

    item_guid_is_permalink = True

    def item_pubdate(self, item: Paper) -> datetime | None:
        return item.submitted_at

    def item_categories(self, item: Paper) -> list[str]:
        return [feed_text(c) for c in item.categories]

    def item_author_name(self, item: Paper) -> str:
        return feed_text(byline(item.authors_text), limit=200)

    def _papers(self):
        return (
            Paper.objects.public()
            .newest()
            .only("arxiv_id", "slug", "title", "abstract", "authors_text", "categories", "submitted_at")
        )


class LatestPapersFeed(_PaperFeed):
    """``/rss/latest.xml``: the 50 newest papers in the archive."""

    title = "wovepaper: latest papers"
    link = "/"
    description = "The newest arXiv papers in the wovepaper archive."

    def items(self):
        return self._papers()[:FEED_SIZE]


class CategoryFeed(_PaperFeed):
    """``/rss/category/<code>.xml``: the 50 newest papers listed in an arXiv category
    (primary or cross-list). 404 for an unknown code."""

    def get_object(self, request: HttpRequest, code: str) -> Category:
        category = Category.objects.filter(code=code).first()
        if category is None:
            raise Http404("unknown category")
        return category

    def title(self, obj: Category) -> str:
        return feed_text(f"wovepaper: {obj.name} ({obj.code})")

    def link(self, obj: Category) -> str:
        return f"/search?category={obj.code}&sort=newest"

    def description(self, obj: Category) -> str:
        return feed_text(f"The newest papers in {obj.code}, {obj.name}.")

    def items(self, obj: Category):
        return self._papers().in_category(obj.code)[:FEED_SIZE]


class ResearcherFeed(_PaperFeed):
    """``/rss/researchers/<id>.xml``: a researcher's 50 newest papers. A merged record's
    feed serves its survivor; 404 for an unknown id."""

    def get_object(self, request: HttpRequest, pk: int) -> Researcher:
        researcher = Researcher.objects.filter(pk=pk).first()
        while researcher is not None and researcher.merged_into_id:
            researcher = Researcher.objects.filter(pk=researcher.merged_into_id).first()
        if researcher is None:
            raise Http404("unknown researcher")
        return researcher

    def title(self, obj: Researcher) -> str:
        return feed_text(f"wovepaper: papers by {obj.display_name}")

    def link(self, obj: Researcher) -> str:
        return obj.get_absolute_url()

    def description(self, obj: Researcher) -> str:
        return feed_text(f"The newest papers by {obj.display_name} in the wovepaper archive.")

    def items(self, obj: Researcher):
        ids = [obj.pk, *obj.merged_from.values_list("pk", flat=True)]
        return self._papers().filter(authorships__researcher_id__in=ids).distinct()[:FEED_SIZE]
