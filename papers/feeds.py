"""The one base of every paper feed (RSS 2.0 through Django's syndication framework).

The public feeds (``pages.feeds``) and a user's private feed (``accounts``) subclass
:class:`PaperFeed`. Every string goes through :func:`feed_text`: TeX made readable and the
control characters XML 1.0 forbids removed, so no harvested title or abstract can break a
feed (https://www.w3.org/TR/xml/#charsets).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.utils.feedgenerator import Rss201rev2Feed

from .models import Paper
from .templatetags.wove import readable_text
from .text import byline, strip_control


def feed_text(value: str | None, *, limit: int | None = None) -> str:
    """Harvested text fit for XML: TeX decoded to Unicode, forbidden characters removed
    (C0 controls, lone surrogates, U+FFFE/U+FFFF), optionally cut to ``limit`` characters."""
    text = strip_control(readable_text(value))
    text = "".join(ch for ch in text if not (0xD800 <= ord(ch) <= 0xDFFF or ch in "\ufffe\uffff"))
    if limit and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


class PaperFeed(Feed):
    """A feed of papers: title, authors and abstract as the description, the paper page as
    link and GUID, the v1 submission time as the date, arXiv categories. Subclasses give
    ``title``, ``link``, ``description`` and ``items``."""

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

    def item_updateddate(self, item: Paper) -> datetime | None:
        # Django's Feed sends Last-Modified (and RSS lastBuildDate) as the newest item date,
        # pubdate or updateddate. With the v1 submission time alone, a re-harvested title or
        # abstract kept the feed's Last-Modified, so a reader sending If-Modified-Since got
        # 304 and never saw the change. modified_at moves with every write to the row.
        # A feed whose own title can change (a researcher's name) annotates the later of the
        # two as feed_changed_at (pages.feeds.ResearcherFeed).
        return getattr(item, "feed_changed_at", item.modified_at)

    def item_categories(self, item: Paper) -> list[str]:
        return [feed_text(c) for c in item.categories]

    def item_author_name(self, item: Paper) -> str:
        return feed_text(byline(item.authors_text), limit=200)

    def _papers(self):
        """Public papers newest first, with only the fields an item shows."""
        return (
            Paper.objects.public()
            .newest()
            .only(
                "arxiv_id",
                "slug",
                "title",
                "abstract",
                "authors_text",
                "categories",
                "submitted_at",
                "modified_at",
            )
        )
