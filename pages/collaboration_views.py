"""Collaboration pages (issue 19): a collaboration's papers and the researchers writing for it."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render

from papers.models import Collaboration
from researchers.models import Researcher
from wove.counts import CachedCountPaginator
from wove.jsonld import breadcrumb_list

from .selectors import collaboration_list, collaboration_members, collaboration_papers

PAGE_SIZE = 24
LIST_PAGE_SIZE = 50


def collaboration_detail(request: HttpRequest, pk: str, slug: str) -> HttpResponse:
    """``/collaborations/<id>-<slug>``: the collaboration's papers (newest first, paged by
    ``page``) and the researchers seen writing "for" it. A wrong slug answers 301; an
    unknown id 404."""
    collaboration = Collaboration.objects.filter(pk=int(pk)).first()
    if collaboration is None:
        raise Http404("no such collaboration")
    if slug != collaboration.slug:
        return HttpResponsePermanentRedirect(collaboration.get_absolute_url())
    page = CachedCountPaginator(collaboration_papers(collaboration).as_items(), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    members = collaboration_members(collaboration)
    context = {
        "collaboration": collaboration,
        "page": page,
        "members": members,
        "jsonld": collaboration_jsonld(collaboration, [r for r, _ in members]),
        # The trail the page shows: wovepaper, then the list of collaborations.
        "breadcrumbs_jsonld": {
            "@context": "https://schema.org",
            **breadcrumb_list(
                [
                    ("wovepaper", f"{settings.SITE_URL}/"),
                    ("Collaborations", f"{settings.SITE_URL}/collaborations"),
                    (collaboration.name, None),
                ]
            ),
        },
    }
    return render(request, "pages/collaboration.html", context)


def collaboration_index(request: HttpRequest) -> HttpResponse:
    """``/collaborations``: every collaboration with a public paper, most papers first, 50 a
    page (``page``)."""
    page = CachedCountPaginator(collaboration_list(), LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "pages/collaboration_list.html", {"page": page})


def collaboration_lookup(request: HttpRequest, pk: str) -> HttpResponse:
    """``/collaborations/<id>``: 301 to the canonical page."""
    collaboration = Collaboration.objects.filter(pk=int(pk)).first()
    if collaboration is None:
        raise Http404("no such collaboration")
    return HttpResponsePermanentRedirect(collaboration.get_absolute_url())


def collaboration_jsonld(collaboration: Collaboration, members: list[Researcher]) -> dict:
    """schema.org ``Organization`` for a collaboration page: name, url, and its members
    seen here as ``Person`` with their researcher page's url."""
    base = settings.SITE_URL
    url = f"{base}{collaboration.get_absolute_url()}"
    data: dict = {"@context": "https://schema.org", "@type": "Organization", "@id": url, "url": url}
    data["name"] = collaboration.name
    if members:
        data["member"] = [
            {"@type": "Person", "name": r.display_name, "url": f"{base}{r.get_absolute_url()}"}
            for r in members
        ]
    return data
