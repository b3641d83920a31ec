"""Search, autocomplete, sitemap index, robots.txt, llms.txt, root icons (thin views: parse, call, render)."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.sitemaps.views import x_robots_tag
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST, require_safe

from papers.examples import url_examples
from papers.fetch import FetchRefused, QueueUnavailable, arxiv_fetch_request
from papers.identifiers import try_parse_arxiv_id
from papers.models import ArxivFetch, Paper
from wove.counts import COUNT_CACHE_SECONDS
from wove.paginator import SitePaginator

from . import search as site_search
from . import search_facets
from .feeds import describe_search, search_feed_url
from .paper_views import category_alias_redirect
from .sitemaps import sitemap_file, sitemap_index_xml

PAGE_SIZE = site_search.RESULTS_PAGE_SIZE


@require_safe
def search(request: HttpRequest) -> HttpResponse:
    """``/search?q=&type=&category=&from=&to=&researcher=&institution=&sort=&page=``.

    An arXiv identifier as the whole query goes straight to the paper (or to its 404 page,
    which offers to fetch it); a ROR ID or an ORCID iD held here goes to that institution or
    researcher. Papers, researchers and institutions are tabs (``type``). An alias
    ``category`` answers 301 to its canonical code.
    """
    if redirect := category_alias_redirect(request):
        return redirect
    params = site_search.parse_search(request.GET)
    if params.q and not params.has_filters:
        parsed = try_parse_arxiv_id(params.q)
        if parsed is not None and ("." in params.q or "/" in params.q):
            paper = Paper.objects.filter(arxiv_id=parsed.id).only("arxiv_id", "slug").first()
            return HttpResponseRedirect(paper.get_absolute_url() if paper else f"/papers/{parsed.id}")
        held = site_search.identifier_target(params.q)
        if held is not None:
            return HttpResponseRedirect(held.get_absolute_url())
    site_search.rank(params)
    counts = site_search.tab_counts(params)
    context: dict = {
        "search": params,
        "counts": counts,
        "sorts": site_search.SORTS,
        "modes": site_search.MODES,
        "hide_header_search": True,
        # Anyone can follow any search (issue 31): its feed, linked from the page's head and list.
        "search_feed": {
            "url": search_feed_url(params),
            "title": f"wovepaper search: {describe_search(params)}",
            # The name a saved search of it starts with: the search in words, cut to fit.
            "name": describe_search(params)[:120],
        },
    }
    if params.tab == "researchers":
        rows = site_search.researchers_matching(params.q)
        context["page"] = SitePaginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    elif params.tab == "institutions":
        rows = site_search.institutions_matching(params.q)
        context["page"] = SitePaginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    else:
        papers = site_search.search_papers(params, items=True)
        paginator = SitePaginator(papers, PAGE_SIZE)
        if params.index_hits is None:  # the index's list holds its first MATCH_CAP ids
            paginator.count = counts["papers"]  # already counted for the tabs; saves a query
        context["page"] = paginator.get_page(request.GET.get("page"))
        context["facets"] = search_facets.facets_for_page(params)
    response = render(request, "pages/search.html", context)
    return response


@require_safe
def search_counts(request: HttpRequest) -> JsonResponse:
    """``/search/counts?q=``: ``{"researchers": n, "institutions": n}``, the names holding
    the words of ``q`` (:func:`pages.search.name_tab_counts`), for the search page's tabs
    not opened, asked for by site.js once the page has loaded. Kept in Django's cache for
    ``wove.counts.COUNT_CACHE_SECONDS`` per query text, and cacheable by a CDN as the page is."""
    q = " ".join(request.GET.get("q", "").split())[:500]
    key = "wove:name-tabs:" + hashlib.sha256(q.encode()).hexdigest()
    counts = cache.get(key)
    if counts is None:
        counts = site_search.name_tab_counts(q)
        cache.set(key, counts, COUNT_CACHE_SECONDS)
    return JsonResponse(counts)


@require_safe
def suggest(request: HttpRequest) -> JsonResponse:
    """``/search/suggest?kind=researcher|institution&q=...``: autocomplete JSON,
    ``{"results": [{"id", "name", "url", "detail"}]}`` (empty below 2 characters)."""
    results = site_search.suggest(text=request.GET.get("q", ""), kind=request.GET.get("kind", ""))
    return JsonResponse({"results": results})


@require_safe
@x_robots_tag
def sitemap_index(request: HttpRequest) -> HttpResponse:
    """``/sitemap.xml``: the sitemap index (sitemaps.org 0.9), listing only the section
    files that hold URLs (:func:`pages.sitemaps.sitemap_index_entries`)."""
    return HttpResponse(sitemap_index_xml(), content_type="application/xml")


@require_safe
@x_robots_tag
def sitemap_section(request: HttpRequest, section: str) -> HttpResponse:
    """``/sitemap-<section>.xml?p=<n>``: one file of a section (at most 50,000 URLs); 404 for
    an unknown section or a page past its end (:func:`pages.sitemaps.sitemap_file`)."""
    body = sitemap_file(section=section, page=request.GET.get("p", 1))
    return HttpResponse(body, content_type="application/xml")


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    """``/robots.txt``: everything public may be crawled; admin and CMS may not; the
    sitemap index is named with its absolute URL (robots.txt requires one)."""
    body = render_to_string("pages/robots.txt", {"SITE_URL": settings.SITE_URL})
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


# The icons browsers and iOS ask for at fixed root addresses (drawn from static/img/icon.svg,
# committed as files): name served -> (file under static/img/, content type).
ROOT_ICONS = {
    "favicon.ico": ("favicon.ico", "image/x-icon"),
    "apple-touch-icon.png": ("apple-touch-icon.png", "image/png"),
    "apple-touch-icon-precomposed.png": ("apple-touch-icon.png", "image/png"),
}


@require_safe
def root_icon(request: HttpRequest, name: str) -> HttpResponse:
    """``/favicon.ico`` (16, 32 and 48 px) and ``/apple-touch-icon.png`` (180 x 180 px, opaque;
    also under iOS's older ``-precomposed`` name): the site's logo at the root addresses
    browsers request without reading the page's ``<link rel="icon">``. 404 for another name."""
    if name not in ROOT_ICONS:
        raise Http404(name)
    filename, content_type = ROOT_ICONS[name]
    body = (settings.BASE_DIR / "static" / "img" / filename).read_bytes()
    return HttpResponse(body, content_type=content_type)


@require_safe
def llms_txt(request: HttpRequest) -> HttpResponse:
    """``/llms.txt``: Markdown guidance for automated readers (URL forms, API, feeds,
    licences, rate limits), following the llms.txt proposal (an H1, a summary quote,
    sections of links)."""
    body = render_to_string("pages/llms.txt", {"SITE_URL": settings.SITE_URL, "examples": url_examples()})
    return HttpResponse(body, content_type="text/markdown; charset=utf-8")


@require_POST
def fetch_request(request: HttpRequest) -> HttpResponse:
    """``POST /papers/fetch`` (``arxiv_id``): queue a fetch from arXiv (deduplicated) and
    303 to its progress page, or to the paper when it is already archived. Impossible
    identifiers get the 404 page with the reason, and no request reaches arXiv."""
    raw = request.POST.get("arxiv_id", "")
    try:
        result = arxiv_fetch_request(raw_id=raw)
    except FetchRefused as exc:
        return render(request, "404.html", {"refused": str(exc), "arxiv_id": ""}, status=404)
    except QueueUnavailable as exc:
        response = render(request, "pages/unavailable.html", {"message": str(exc)}, status=503)
        response["Retry-After"] = "60"
        return response
    if isinstance(result, Paper):
        return HttpResponseRedirect(result.get_absolute_url(), status=303)
    response = HttpResponseRedirect(f"/papers/fetch/{result.arxiv_id}")
    response.status_code = 303
    return response


def _fetch_state(arxiv_id: str) -> tuple[dict, str]:
    """``({"state", "message", "url"}, paper_url)`` for the progress page and its JSON."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id, deleted=False).only("arxiv_id", "slug").first()
    fetch = ArxivFetch.objects.filter(arxiv_id=arxiv_id).first()
    if paper is not None:
        url = paper.get_absolute_url()
        return {"state": "done", "message": "The paper is in the archive.", "url": url}, url
    if fetch is None:
        return {"state": "unknown", "message": "No fetch was asked for this identifier.", "url": None}, ""
    return {"state": fetch.status, "message": fetch.message, "url": None}, ""


@require_safe
def fetch_status(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """``/papers/fetch/<arxiv-id>``: progress of a fetch; redirects to the paper once it is
    archived. Without JavaScript the page refreshes itself every 3 seconds while pending;
    with it, ``static/js/site.js`` polls :func:`fetch_status_json`."""
    state, url = _fetch_state(arxiv_id)
    if url:
        return HttpResponseRedirect(url)
    if state["state"] == "unknown":
        return HttpResponseRedirect(f"/papers/{arxiv_id}")
    fetch = ArxivFetch.objects.filter(arxiv_id=arxiv_id).first()  # when it may be asked again
    return render(
        request,
        "pages/fetch.html",
        {
            "arxiv_id": arxiv_id,
            "state": state,
            "fetch": fetch,
            "pending": state["state"] in {"queued", "running"},
        },
    )


@require_safe
def fetch_status_json(request: HttpRequest, arxiv_id: str) -> JsonResponse:
    """``/papers/fetch-status/<arxiv-id>``: ``{"state": "queued|running|done|missing|incomplete|
    failed|unknown", "message": str, "url": str | null}`` (``url`` is the paper page once done)."""
    state, _ = _fetch_state(arxiv_id)
    response = JsonResponse(state)
    response["Cache-Control"] = "no-store"
    return response
