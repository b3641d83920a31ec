"""Researcher pages: the profile, redirects to its canonical URL, the list with name search."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render

from wove.counts import CachedCountPaginator, kept_count

from .models import Researcher, RetiredResearcher
from .profiles import most_cited_paper, researcher_profile
from .querysets import LISTED_ORDER
from .selectors import (
    SORTS,
    researcher_resolve,
    researcher_unconfirmed_papers,
    researchers_listed_named,
)

PAGE_SIZE = 24
LIST_PAGE_SIZE = 50
# A name search on the list reads the ids of at most this many matches (researchers_named).
LIST_NAME_IDS = 5000


def _canonical_redirect(request: HttpRequest, researcher: Researcher) -> HttpResponsePermanentRedirect:
    url = researcher.get_absolute_url()
    if request.META.get("QUERY_STRING"):
        url = f"{url}?{request.META['QUERY_STRING']}"
    return HttpResponsePermanentRedirect(url)


def _retired(request: HttpRequest, pk: int) -> HttpResponse:
    """A researcher removed because it was a collaboration or junk (issue 19): 301 to the
    collaboration's page, 410 when there is none; 404 for an id never used."""
    retired = RetiredResearcher.objects.select_related("collaboration").filter(pk=pk).first()
    if retired is None:
        raise Http404("no such researcher")
    if retired.collaboration is not None:
        return HttpResponsePermanentRedirect(retired.collaboration.get_absolute_url())
    return render(request, "researchers/retired.html", {"retired": retired}, status=410)


def researcher_lookup(request: HttpRequest, pk: str) -> HttpResponse:
    """``/researchers/<id>``: 301 to the canonical page (of the survivor when merged)."""
    researcher, _moved = researcher_resolve(int(pk))
    if researcher is None:
        return _retired(request, int(pk))
    return _canonical_redirect(request, researcher)


def researcher_detail(request: HttpRequest, pk: str, slug: str) -> HttpResponse:
    """The researcher page ``/researchers/<id>-<slug>`` (SPEC.md "Researcher page").

    A wrong slug or a merged-away id answers 301. Query: ``category`` (primary category
    filter), ``sort`` (``newest``, ``oldest``, ``cited``), ``page``. ``cited`` is offered only
    when one of the researcher's papers has a citation count; asked for without one, the
    list is newest first and the page says so.
    """
    researcher, moved = researcher_resolve(int(pk))
    if researcher is None:
        return _retired(request, int(pk))
    if moved or slug != researcher.slug:
        return _canonical_redirect(request, researcher)
    category = request.GET.get("category", "").strip()[:32]
    sort = request.GET.get("sort", "newest")
    if sort not in SORTS:
        sort = "newest"
    first_page = request.GET.get("page", "1") == "1"
    profile = researcher_profile(researcher, category=category, sort=sort, first_page=first_page)
    sorts = [("newest", "Newest"), ("oldest", "Oldest")]
    if profile["cited_papers"]:
        sorts.append(("cited", "Most cited"))
    # Without counts every paper ties: "most cited" is newest first under another name.
    sort_unavailable = sort == "cited" and not profile["cited_papers"]
    paginator = CachedCountPaginator(profile["papers"], PAGE_SIZE, known_count=profile.pop("listed_count"))
    page = paginator.get_page(request.GET.get("page"))
    unconfirmed = researcher_unconfirmed_papers(researcher)
    most_cited = most_cited_paper(profile, page.object_list)
    context = {
        "researcher": researcher,
        "page": page,
        "unconfirmed_papers": unconfirmed,
        "category": category,
        "sort": "newest" if sort_unavailable else sort,
        "sort_unavailable": sort_unavailable,
        "sorts": sorts,
        "most_cited": most_cited,
        **profile,
    }
    return render(request, "researchers/researcher_detail.html", context)


def researcher_list(request: HttpRequest) -> HttpResponse:
    """``/researchers``: researchers with papers here, most papers first; ``q`` searches names."""
    query = request.GET.get("q", "").strip()[:200]
    if query:
        # From the name-word index (issue 28): counted there, never row by row.
        named = researchers_listed_named(query, ids_read=LIST_NAME_IDS)
        paginator = CachedCountPaginator(
            named.researchers.order_by(*LISTED_ORDER), LIST_PAGE_SIZE, known_count=named.count
        )
        number = paginator.number_of(request.GET.get("page"))
        # Read only as far as that page: the matches that can be on it, in the same order.
        paginator.object_list = named.most_papers(number * LIST_PAGE_SIZE).order_by(*LISTED_ORDER)
    else:
        listed = Researcher.objects.listed()
        paginator = CachedCountPaginator(listed, LIST_PAGE_SIZE, known_count=kept_count("researchers"))
        number = paginator.number_of(request.GET.get("page"))
    return render(request, "researchers/researcher_list.html", {"page": paginator.page(number), "q": query})
