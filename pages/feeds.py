"""RSS 2.0 feeds (Django syndication): the latest papers, per category, per researcher, and
per search (any query and filters the search page takes).

Each is a :class:`papers.feeds.PaperFeed`, whose :func:`~papers.feeds.feed_text` every string
goes through.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Greatest
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import reverse

from papers.feeds import PaperFeed, feed_text
from papers.models import Category
from papers.search_filters import describe_terms, terms_query_string
from papers.selectors import category_canonical
from researchers.models import Researcher

from . import search as site_search

FEED_SIZE = 50


class LatestPapersFeed(PaperFeed):
    """``/rss/latest.xml``: the 50 newest papers in the archive."""

    title = "wovepaper: latest papers"
    link = "/"
    description = "The newest arXiv papers in the wovepaper archive."

    def items(self):
        return self._papers()[:FEED_SIZE]


class CategoryFeed(PaperFeed):
    """``/rss/category/<code>.xml``: the 50 newest papers listed in an arXiv category
    (primary or cross-list). 404 for an unknown code; an alias (``math.IT``) answers 301 to
    its canonical code's feed (``cs.IT``, BUGS.md CAT-01)."""

    def __call__(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        canonical = category_canonical(kwargs["code"])
        if canonical is not None and canonical != kwargs["code"]:
            return HttpResponsePermanentRedirect(reverse("pages:feed_category", kwargs={"code": canonical}))
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request: HttpRequest, code: str) -> Category:
        category = Category.objects.filter(code=code).first()
        if category is None:
            raise Http404("unknown category")
        return category

    def title(self, obj: Category) -> str:
        return feed_text(f"wovepaper: {obj.name} ({obj.code})")

    def link(self, obj: Category) -> str:
        return f"/papers/?category={obj.code}"

    def description(self, obj: Category) -> str:
        return feed_text(f"The newest papers in {obj.code}, {obj.name}.")

    def items(self, obj: Category):
        return self._papers().in_category(obj.code)[:FEED_SIZE]


class ResearcherFeed(PaperFeed):
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
        # The title names the researcher: a rename (or a merge, which moves the survivor's
        # modified_at) must move Last-Modified too, not only a change to one of the papers.
        changed = Greatest(F("modified_at"), Value(obj.modified_at, output_field=DateTimeField()))
        papers = self._papers().filter(authorships__researcher_id__in=ids).distinct()
        return papers.annotate(feed_changed_at=changed)[:FEED_SIZE]


class SearchFeed(PaperFeed):
    """``/search/feed.xml?<the search page's query string>``: the 50 newest papers the search
    page lists for the same query and filters (``q``, ``category``, ``from``, ``to``,
    ``researcher``, ``institution``, ``mode``), so that anyone can follow any search (issue
    31). Semantic and hybrid searches list the papers above the similarity floor, as the page
    does; ``sort``, ``page`` and ``type`` are ignored (a feed is newest first, and of papers).
    The channel title and description say what is searched, and which mode ran."""

    def get_object(self, request: HttpRequest) -> site_search.PaperSearch:
        search = site_search.parse_search(request.GET)
        search.sort, search.tab, search.page = "newest", "papers", 1
        site_search.rank(search)
        site_search.tab_counts(search)  # the index's matches, read by search_papers
        return search

    def title(self, obj: site_search.PaperSearch) -> str:
        return feed_text(f"wovepaper search: {describe_search(obj)}")

    def link(self, obj: site_search.PaperSearch) -> str:
        return f"/search?{search_query_string(obj)}"

    def description(self, obj: site_search.PaperSearch) -> str:
        mode = obj.applied_mode if obj.q else "keyword"
        text = f"The newest papers for {describe_search(obj)} ({mode} search"
        if obj.q and obj.mode != "keyword" and mode == "keyword":
            text += f"; {obj.mode} search unavailable, the keyword search of the same words"
        return feed_text(text + ").")

    def items(self, obj: site_search.PaperSearch) -> list:
        return list(site_search.search_papers(obj)[:FEED_SIZE])


def search_query_string(search: site_search.PaperSearch) -> str:
    """The query string naming ``search``'s words and filters, for its page and its feed:
    ``q=dark+matter&category=astro-ph.CO&from=2020``, in that order, empty values left out
    (:func:`papers.search_filters.terms_query_string`; the mode when not the default)."""
    return terms_query_string(search, mode=search.mode if search.mode != "hybrid" else "")


def search_feed_url(search: site_search.PaperSearch) -> str:
    """The path of ``search``'s feed: ``/search/feed.xml?q=…`` (no ``?`` without words or filters)."""
    return f"/search/feed.xml?{search_query_string(search)}".rstrip("?")


def search_feed_link(search: site_search.PaperSearch) -> str:
    """An HTTP ``Link`` header value (RFC 8288) naming ``search``'s feed, for the API's search
    answers: ``<https://…/search/feed.xml?q=…>; rel="alternate"; type="application/rss+xml"``.
    The API's submission dates are left out: a feed follows what is new."""
    return f'<{settings.SITE_URL}{search_feed_url(search)}>; rel="alternate"; type="application/rss+xml"'


def describe_search(search: site_search.PaperSearch) -> str:
    """``search`` in words: ``“dark matter” in astro-ph.CO by Ada Lovelace, 2020–2024``;
    ``all papers`` without words or filters (:func:`papers.search_filters.describe_terms`)."""
    return describe_terms(search)
