"""Paper pages: the canonical page, redirects from every other form, 404 and 410.

URL rules (issue #2, SPEC.md): ``/papers/<id>-<slug>`` is canonical; the id alone, the
old-style form, a versioned id, an ``arXiv:`` prefix and a wrong slug all answer 301 to it;
an unknown id gets the 404 page (HTML, or Markdown for ``Accept: text/markdown``); a
deleted paper answers 410.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.template.loader import render_to_string

from .models import Category, Paper
from .selectors import authors_for_page, category_names, paper_for_page, resolve_identifier

PAGE_SIZE = 24


def wants_markdown(request: HttpRequest) -> bool:
    """True when the ``Accept`` header prefers ``text/markdown`` over HTML."""
    accept = request.headers.get("Accept", "")
    if "text/markdown" not in accept:
        return False
    return request.accepts("text/markdown") and (
        "text/html" not in accept or accept.index("text/markdown") < accept.index("text/html")
    )


def not_found(
    request: HttpRequest, exception: Exception | None = None, *, arxiv_id: str = ""
) -> HttpResponse:
    """The 404 page: where to look next (the three URL forms) and that new papers are
    harvested continuously. Served as Markdown when the request asks for it."""
    context = {"arxiv_id": arxiv_id, "path": request.path}
    if wants_markdown(request):
        body = render_to_string("404.md", context, request=request)
        return HttpResponse(body, status=404, content_type="text/markdown; charset=utf-8")
    return render(request, "404.html", context, status=404)


def gone(request: HttpRequest, paper: Paper) -> HttpResponse:
    """410 for a paper arXiv reported deleted (an OAI header with ``status="deleted"``)."""
    return render(request, "papers/gone.html", {"paper": paper}, status=410)


def paper_detail(request: HttpRequest, arxiv_id: str, slug: str) -> HttpResponse:
    """The canonical paper page ``/papers/<arxiv-id>-<slug>``."""
    parsed, _ = resolve_identifier(arxiv_id)
    if parsed is None:
        return not_found(request)
    paper = paper_for_page(parsed.id)
    if paper is None:
        return not_found(request, arxiv_id=parsed.id)
    if paper.deleted:
        return gone(request, paper)
    if parsed.id != arxiv_id or slug != paper.slug:
        return HttpResponsePermanentRedirect(paper.get_absolute_url())
    context = {
        "paper": paper,
        "authors": authors_for_page(paper),
        "categories": category_names(paper.categories),
        "versions": list(paper.versions.all()),
    }
    return render(request, "papers/detail.html", context)


def paper_lookup(request: HttpRequest, raw: str) -> HttpResponse:
    """Any other ``/papers/...`` form: 301 to the canonical URL, or 404/410."""
    parsed, _slug = resolve_identifier(raw)
    if parsed is None:
        return not_found(request)
    paper = Paper.objects.filter(arxiv_id=parsed.id).only("arxiv_id", "slug", "deleted").first()
    if paper is None:
        return not_found(request, arxiv_id=parsed.id)
    if paper.deleted:
        return gone(request, paper)
    return HttpResponsePermanentRedirect(paper.get_absolute_url())


def paper_list(request: HttpRequest) -> HttpResponse:
    """``/papers/``: newest first, 24 a page, optional ``?category=`` filter."""
    papers = Paper.objects.public().newest().select_related("primary_category")
    category = None
    code = request.GET.get("category", "").strip()
    if code:
        category = Category.objects.filter(code=code).first()
        papers = papers.in_category(code)
    page = Paginator(papers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "papers/list.html", {"page": page, "category": category, "code": code})


def home(request: HttpRequest) -> HttpResponse:
    """Home: a search box, the latest papers and the archive's counts."""
    latest = Paper.objects.public().newest().select_related("primary_category")[:12]
    counts = {"papers": Paper.objects.public().count()}
    for label, model_name in (
        ("researchers", "researchers.Researcher"),
        ("institutions", "institutions.Institution"),
    ):
        from django.apps import apps

        try:
            model = apps.get_model(model_name)
        except LookupError:
            continue
        manager = model.objects
        qs = manager.public() if hasattr(manager, "public") else manager.all()
        counts[label] = qs.count()
    top_categories = (
        Paper.objects.public()
        .values("primary_category", "primary_category__name")
        .annotate(n=Count("id"))
        .order_by("-n")[:10]
    )
    return render(
        request, "home.html", {"latest": latest, "counts": counts, "top_categories": top_categories}
    )
