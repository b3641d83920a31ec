"""Paper pages: the canonical page, redirects from every other form, 404 and 410.

URL rules (issue #2, SPEC.md): ``/papers/<id>-<slug>`` is canonical; the id alone, the
old-style form, a versioned id, an ``arXiv:`` prefix and a wrong slug all answer 301 to it;
an unknown id gets the 404 page (HTML, or Markdown for ``Accept: text/markdown``); a
deleted paper answers 410.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.template.loader import render_to_string

from researchers.models import Authorship
from wove.counts import CachedCountPaginator, cached_when_large, count_cached

from . import export
from .fetch import FetchRefused, check_fetchable
from .models import ArxivFetch, Category, Paper
from .selectors import authors_for_page, category_names, paper_for_page, resolve_identifier
from .templatetags.wove import readable_text

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
    request: HttpRequest,
    exception: Exception | None = None,
    *,
    arxiv_id: str = "",
    institution_key: str = "",
) -> HttpResponse:
    """The 404 page: where to look next (the three URL forms) and that new papers are
    harvested continuously. Served as Markdown when the request asks for it. For a possible
    arXiv identifier it offers to fetch the paper from arXiv (or shows that fetch's state);
    for an institution id, ROR ID or name that fits none (``institution_key``) it says so and
    links the institution search."""
    context = {
        "arxiv_id": arxiv_id,
        "institution_key": institution_key,
        "path": request.path,
        "fetchable": False,
        "fetch": None,
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
    authors = authors_for_page(paper)
    categories = category_names(paper.categories)
    context = {
        "paper": paper,
        "authors": authors,
        "categories": categories,
        "versions": list(paper.versions.all()),
        "jsonld": paper_jsonld(paper, authors, categories),
    }
    return render(request, "papers/detail.html", context)


def paper_jsonld(paper: Paper, authors: list[dict], categories: list[tuple[str, str]]) -> dict:
    """schema.org ``ScholarlyArticle`` (with a ``BreadcrumbList``) for a paper page: name and
    headline (TeX made readable), abstract, authors as ``Person`` (``url`` when matched to a
    researcher, ``affiliation`` from the record), dates, arXiv id and DOIs as
    ``identifier``, arXiv pages as ``sameAs``, the PDF as ``encoding``, licence, keywords."""
    base = settings.SITE_URL
    url = f"{base}{paper.get_absolute_url()}"
    title = readable_text(paper.title)
    people = []
    for item in authors:
        slot = item["slot"]
        person: dict = {"@type": "Organization" if slot.is_collaboration else "Person", "name": slot.name}
        if item["researcher"] is not None:
            person["url"] = f"{base}{item['researcher'].get_absolute_url()}"
        if slot.affiliations:
            person["affiliation"] = [{"@type": "Organization", "name": a} for a in slot.affiliations]
        people.append(person)
    identifiers = [{"@type": "PropertyValue", "propertyID": "arXiv", "value": paper.arxiv_id}]
    identifiers.append({"@type": "PropertyValue", "propertyID": "DOI", "value": paper.arxiv_doi})
    if paper.doi:
        identifiers.append({"@type": "PropertyValue", "propertyID": "DOI", "value": paper.doi})
    article: dict = {
        "@type": "ScholarlyArticle",
        "@id": url,
        "url": url,
        "name": title,
        "headline": title if len(title) <= 110 else title[:109] + "…",
        "abstract": readable_text(paper.abstract) if paper.abstract else None,
        "author": people,
        "datePublished": paper.submitted_at.date().isoformat() if paper.submitted_at else None,
        "dateModified": paper.updated_date.isoformat() if paper.updated_date else None,
        "identifier": identifiers,
        "sameAs": [paper.abs_url, f"https://doi.org/{paper.arxiv_doi}"],
        "encoding": {
            "@type": "MediaObject",
            "encodingFormat": "application/pdf",
            "contentUrl": paper.pdf_url,
        },
        "keywords": [code for code, _ in categories],
        "about": [{"@type": "Thing", "name": name, "identifier": code} for code, name in categories],
        "license": paper.license or None,
        "isAccessibleForFree": True,
        "inLanguage": "en",
        "isPartOf": {"@id": f"{base}/#website"},
        "publisher": {"@type": "Organization", "name": "arXiv", "url": "https://arxiv.org/"},
    }
    if paper.cited_by_count is not None:
        article["citationCount"] = paper.cited_by_count
    crumbs = [("wovepaper", f"{base}/"), ("Papers", f"{base}/papers/")]
    if paper.primary_category_id:
        crumbs.append((paper.primary_category_id, f"{base}/search?category={paper.primary_category_id}"))
    crumbs.append((title, url))
    breadcrumbs = {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "name": name, "item": link}
            for i, (name, link) in enumerate(crumbs, start=1)
        ],
    }
    return {
        "@context": "https://schema.org",
        "@graph": [{k: v for k, v in article.items() if v not in (None, [], "")}, breadcrumbs],
    }


def _export_response(body: str, *, fmt: str, filename: str) -> HttpResponse:
    content_type = "application/x-bibtex" if fmt == "bib" else "application/x-research-info-systems"
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}.{fmt}"'
    return response


def paper_export(request: HttpRequest, raw: str, fmt: str) -> HttpResponse:
    """``/papers/<arxiv-id>/export.bib`` (BibTeX) and ``.../export.ris`` (RIS); any
    identifier form; 404 for unknown, 410 for deleted papers."""
    parsed, _ = resolve_identifier(raw)
    paper = Paper.objects.filter(arxiv_id=parsed.id).first() if parsed else None
    if paper is None:
        return not_found(request, arxiv_id=parsed.id if parsed else "")
    if paper.deleted:
        return gone(request, paper)
    body = export.bibtex_for([paper]) if fmt == "bib" else export.ris_for([paper])
    return _export_response(body, fmt=fmt, filename=paper.arxiv_id.replace("/", "_"))


RESEARCHER_EXPORT_LIMIT = 5000


def researcher_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """``/researchers/<id>/export.bib`` and ``.ris``: the researcher's public papers, newest
    first (at most 5,000). A merged record exports its survivor's list; 404 when unknown."""
    from researchers.models import Researcher

    researcher = Researcher.objects.filter(pk=pk).first()
    while researcher is not None and researcher.merged_into_id:
        researcher = Researcher.objects.filter(pk=researcher.merged_into_id).first()
    if researcher is None:
        return not_found(request)
    ids = [researcher.pk, *researcher.merged_from.values_list("pk", flat=True)]
    papers = (
        Paper.objects.public()
        .filter(pk__in=Authorship.objects.filter(researcher_id__in=ids).values("paper_id"))
        .newest()[:RESEARCHER_EXPORT_LIMIT]
    )
    body = export.bibtex_for(papers) if fmt == "bib" else export.ris_for(papers)
    return _export_response(body, fmt=fmt, filename=f"wovepaper-researcher-{researcher.pk}")


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
    page = CachedCountPaginator(papers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "papers/list.html", {"page": page, "category": category, "code": code})


def home(request: HttpRequest) -> HttpResponse:
    """Home: a search box, the latest papers and the archive's counts."""
    latest = Paper.objects.public().newest().select_related("primary_category")[:12]
    counts = {"papers": count_cached(Paper.objects.public())}
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
        # Researchers: only those a visitor can open (not merged away, with papers).
        if hasattr(manager, "listed"):
            qs = manager.listed()
        else:
            qs = manager.public() if hasattr(manager, "public") else manager.all()
        counts[label] = count_cached(qs)
    top_categories = cached_when_large(
        "wove:home:top-categories",
        lambda: list(
            Paper.objects.public()
            .values("primary_category", "primary_category__name")
            .annotate(n=Count("id"))
            .order_by("-n")[:10]
        ),
        size=counts["papers"],
    )
    return render(
        request, "home.html", {"latest": latest, "counts": counts, "top_categories": top_categories}
    )
