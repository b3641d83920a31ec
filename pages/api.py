"""Search across kinds: papers (full text), researchers and institutions (names) in one call."""

from __future__ import annotations

from typing import Literal

from django.conf import settings
from django.contrib.postgres.search import SearchRank
from django.db.models import FloatField
from django.db.models.functions import Cast
from django.http import HttpRequest, HttpResponse
from ninja import Query, Router, Schema
from pydantic import Field

from institutions.models import Institution
from institutions.schemas import InstitutionOut
from papers.models import Paper
from papers.schemas import PaperOut
from researchers.schemas import ResearcherOut
from researchers.selectors import researchers_matching
from wove.errors import Error

from .feeds import search_feed_link, search_feed_url
from .search import MATCH_CAP, PaperSearch, full_text, index_search

router = Router(tags=["search"])
Kind = Literal["papers", "researchers", "institutions"]


class SearchParams(Schema):
    """``q`` (required) and the kinds to search (default all three), ``limit`` hits each."""

    q: str = Field(min_length=1, max_length=500, description="Words to find")
    kinds: list[Kind] = Field(
        default_factory=lambda: ["papers", "researchers", "institutions"],
        description="Repeat to choose kinds: ?kinds=papers&kinds=researchers",
    )
    limit: int = Field(5, ge=1, le=50, description="Hits per kind")


class PaperHits(Schema):
    """Best papers by full-text rank (the search page's keyword mode) and how many match:
    the search index's count where it serves (as on the page; ``count_estimated`` when
    counted on a sample, as ``/papers?q=`` says); else at most 5,000 are counted and
    ``count_capped`` says more match."""

    count: int
    count_capped: bool = False
    count_estimated: bool = False
    items: list[PaperOut]


class ResearcherHits(Schema):
    """Researchers found by the site's name search (every word of ``q`` in a name, as on
    the search page's Researchers tab), most papers first, and how many match."""

    count: int
    items: list[ResearcherOut]


class InstitutionHits(Schema):
    """Institutions with a name containing ``q``, by name, and how many match."""

    count: int
    items: list[InstitutionOut]


class SearchOut(Schema):
    """Hits per kind; a kind not asked for is ``null``. Follow up with each kind's list
    endpoint (``/papers?q=``, ``/researchers?q=``, ``/institutions?q=``) to page further."""

    q: str
    feed_url: str | None = Field(
        None, description="The RSS feed of the papers' search (also the Link header); null without q"
    )
    papers: PaperHits | None = None
    researchers: ResearcherHits | None = None
    institutions: InstitutionHits | None = None


# operation_id: the id it had as wove/search_api.py (ninja derives it from the module).
@router.get(
    "",
    response={200: SearchOut, 422: Error, 429: Error},
    summary="Search papers, researchers, institutions",
    operation_id="wove_search_api_search",
)
def search(request: HttpRequest, response: HttpResponse, params: Query[SearchParams]):
    """The top ``limit`` hits of each kind asked for, with counts (two queries per kind).
    The ``Link`` header names the RSS feed of the papers' search (``rel="alternate"``)."""
    q = params.q.strip()
    out: dict = {"q": q}
    if not q:
        return out
    response["Link"] = search_feed_link(PaperSearch(q=q, mode="keyword"))
    out["feed_url"] = settings.SITE_URL + search_feed_url(PaperSearch(q=q, mode="keyword"))
    hits = None
    if "papers" in params.kinds:
        hits = index_search(PaperSearch(q=q), limit=params.limit, facets=False)
    if hits is not None:
        # The search index: its count and its best papers by BM25, read by id.
        by_id = Paper.objects.public().select_related("primary_category").in_bulk(hits.ids)
        items = [by_id[pk] for pk in hits.ids if pk in by_id]
        out["papers"] = {"count": hits.count, "count_estimated": hits.estimated, "items": items}
    elif "papers" in params.kinds:
        papers, query, vector = full_text(Paper.objects.public().select_related("primary_category"), q)
        ranked = papers.annotate(k_rank=Cast(SearchRank(vector, query), FloatField())).order_by(
            "-k_rank", "-submitted_at", "-arxiv_id"
        )
        # Counted as the page counts (MATCH_CAP): a common word's every match is never read.
        count = papers.order_by()[: MATCH_CAP + 1].count()
        out["papers"] = {
            "count": min(count, MATCH_CAP),
            "count_capped": count > MATCH_CAP,
            "items": list(ranked[: params.limit]),
        }
    if "researchers" in params.kinds:
        researchers = researchers_matching(q)  # the site's Researchers tab reads the same
        items = list(researchers[: params.limit])
        out["researchers"] = {"count": researchers.count(), "items": items}
    if "institutions" in params.kinds:
        institutions = Institution.objects.search(q)
        items = list(institutions.order_by("name", "id")[: params.limit])
        out["institutions"] = {"count": institutions.count(), "items": items}
    return out
