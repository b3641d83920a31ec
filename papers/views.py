"""The 404 page (HTML, or Markdown when asked) and a deleted paper's 410; paper pages: pages.paper_views."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers

from .examples import url_examples
from .fetch import FetchRefused, check_fetchable
from .models import ArxivFetch, Paper


def wants_markdown(request: HttpRequest) -> bool:
    """True when the ``Accept`` header prefers ``text/markdown`` over HTML."""
    accept = request.headers.get("Accept", "")
    if "text/markdown" not in accept:
        return False
    return request.accepts("text/markdown") and (
        "text/html" not in accept or accept.index("text/markdown") < accept.index("text/html")
    )


def not_found(
    request: HttpRequest,
    exception: Exception | None = None,
    *,
    arxiv_id: str = "",
    institution_key: str = "",
    paper: Paper | None = None,
    version: int | None = None,
) -> HttpResponse:
    """The 404 page: where to look next (the three URL forms) and that new papers are
    harvested continuously, with examples this archive holds (:func:`papers.examples.url_examples`).
    Served as Markdown when the request asks for it, so both answers carry ``Vary: Accept``
    (a shared cache must not hand the Markdown to a browser). For a possible
    arXiv identifier it offers to fetch the paper from arXiv (or shows that fetch's state);
    for an institution id, ROR ID or name that fits none (``institution_key``) it says so and
    links the institution search; for a version ``paper`` is known not to have (``version``,
    :meth:`Paper.lacks_version`) it names the versions held and links the paper."""
    context = {
        "arxiv_id": arxiv_id,
        "institution_key": institution_key,
        "held_paper": paper,
        "missing_version": version,
        "path": request.path,
        "fetchable": False,
        "fetch": None,
        "examples": url_examples(),  # papers held here, for the URL forms' examples
    }
    if arxiv_id:
        try:
            check_fetchable(arxiv_id)
            context["fetchable"] = True
        except FetchRefused as exc:
            context["refused"] = str(exc)
        context["fetch"] = ArxivFetch.objects.filter(arxiv_id=arxiv_id).first()
    if wants_markdown(request):
        body = render_to_string("404.md", context, request=request)
        response = HttpResponse(body, status=404, content_type="text/markdown; charset=utf-8")
    else:
        response = render(request, "404.html", context, status=404)
    # The same URL answers HTML or Markdown by the Accept header: a cache must key on it.
    patch_vary_headers(response, ["Accept"])
    return response


def gone(request: HttpRequest, paper: Paper) -> HttpResponse:
    """410 for a paper arXiv reported deleted (an OAI header with ``status="deleted"``)."""
    return render(request, "papers/gone.html", {"paper": paper}, status=410)
