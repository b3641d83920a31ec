"""RSS 2.0 feeds (Django syndication): the latest papers, per category, per researcher.

Each is a :class:`papers.feeds.PaperFeed`, whose :func:`~papers.feeds.feed_text` every string
goes through.
"""

from __future__ import annotations

from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Greatest
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import reverse

from papers.feeds import PaperFeed, feed_text
from papers.models import Category
from papers.selectors import category_canonical
from researchers.models import Researcher

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
