"""Paper pages: the canonical page, redirects from every other form, citation exports, the
paper list and the home page.

URL rules (issue #2, SPEC.md): ``/papers/<id>-<slug>`` is canonical; the id alone, the
old-style form, a versioned id, an ``arXiv:`` prefix and a wrong slug all answer 301 to it;
an unknown id gets the 404 page (:func:`papers.views.not_found`); a deleted paper answers 410.
"""

from __future__ import annotations

import html

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Count, Max, Sum
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe

from institutions.selectors import institution_counts
from papers import export
from papers.authors import is_junk_name
from papers.models import Category, Paper
from papers.selectors import category_canonical, category_names, paper_for_page, resolve_identifier
from papers.templatetags.wove import ld_json_script, readable_text
from papers.views import gone, not_found
from researchers.models import Authorship, Researcher
from researchers.selectors import AuthorLine, author_lines, author_lines_of
from wove.counts import CachedCountPaginator, cached_when_large, count_cached
from wove.jsonld import breadcrumb_list

from .facts import archive_facts, category_counts, kept_list_count
from .facts import top_categories as top_categories_of
from .selectors import authors_for_page, authors_for_paper_page, paper_collaborations

PAGE_SIZE = 24
# A paper with more author slots than this shows the first AUTHORS_SHOWN and links the rest.
AUTHORS_INLINE_MAX = 100
AUTHORS_SHOWN = 50
AUTHORS_PAGE_SIZE = 500
AUTHOR_LIST_CACHE_SECONDS = 300


def _paper_or_response(
    request: HttpRequest, arxiv_id: str, slug: str, suffix: str = ""
) -> Paper | HttpResponse:
    """The paper a canonical URL names, or the response for any other case: 404 for an
    unknown id, 410 for a deleted paper, 301 to the canonical form (plus ``suffix``)."""
    parsed, _ = resolve_identifier(arxiv_id)
    if parsed is None:
        return not_found(request)
    paper = paper_for_page(parsed.id)
    if paper is None:
        return not_found(request, arxiv_id=parsed.id)
    if paper.deleted:
        return gone(request, paper)
    if parsed.id != arxiv_id or slug != paper.slug:
        return HttpResponsePermanentRedirect(paper.get_absolute_url() + suffix)
    return paper


def _shown(lines: list[AuthorLine]) -> list[AuthorLine]:
    # A slot with no letter or digit (arXiv's ``<keyname>:</keyname>`` after "Keck Array and
    # BICEP2 Collaborations") names no one: kept as harvested, not shown as an author.
    return [line for line in lines if not is_junk_name(line.name)]


def paper_detail(request: HttpRequest, arxiv_id: str, slug: str) -> HttpResponse:
    """The canonical paper page ``/papers/<arxiv-id>-<slug>``.

    A paper with more than ``AUTHORS_INLINE_MAX`` author slots shows its first
    ``AUTHORS_SHOWN`` and links its full, paged list (:func:`paper_authors`); its JSON-LD and
    ``citation_author`` tags still name every author (:func:`_complete_author_list`, issue 21).
    """
    paper = _paper_or_response(request, arxiv_id, slug)
    if isinstance(paper, HttpResponse):
        return paper
    items, count, pairs = authors_for_paper_page(paper, inline_max=AUTHORS_INLINE_MAX, shown=AUTHORS_SHOWN)
    long_list = pairs is None
    collaborations = paper_collaborations(paper)
    authors = _with_collaborations(items, collaborations)
    categories = category_names(paper.categories)
    complete = _complete_author_list(
        paper,
        categories,
        collaborations,
        cached=long_list,
        lines=None if long_list else author_lines_of(pairs),
    )
    context = {
        "paper": paper,
        "authors": authors,
        "author_total": complete["total"],
        "authors_more": complete["total"] - len(authors) if long_list else 0,
        "citation_authors": mark_safe(complete["citation"]),  # noqa: S308 (escaped when built)
        "categories": categories,
        "versions": list(paper.versions.all()),
        "collaborations": collaborations,
        "jsonld_script": mark_safe(complete["jsonld"]),  # noqa: S308 (escaped when built)
    }
    return render(request, "papers/detail.html", context)


def _links_version(paper: Paper) -> str:
    """What changes when any author link of ``paper`` does: how many, to whom (the sum of
    the researcher ids moves when a curation moves one; two links swapping researchers keep
    it), and the newest write (``modified_at``, which any change moves); one index scan."""
    row = Authorship.objects.filter(paper=paper).aggregate(
        n=Count("id"), ids=Sum("researcher_id"), at=Max("modified_at")
    )
    return f"{row['n']}-{row['ids']}-{row['at'].timestamp() if row['at'] else 0}"


def _complete_author_list(
    paper: Paper,
    categories: list,
    collaborations: list,
    *,
    cached: bool,
    lines: list[AuthorLine] | None = None,
) -> dict:
    """The parts of a paper page that name every author: ``{"total": authors shown,
    "citation": the citation_author tags, "jsonld": the JSON-LD script}``, as strings.

    With ``cached`` (a long author list) they are kept in Django's cache for
    ``AUTHOR_LIST_CACHE_SECONDS`` under the paper's ``modified_at`` and its links' version
    (:func:`_links_version`): reading 3,000 slots costs a mega-paper page about 15 ms. A
    researcher renamed meanwhile keeps its old slug there until the entry expires; that URL
    answers 301 to the new one. ``lines``: every slot's line when the caller read them
    already (an ordinary paper: :func:`pages.selectors.authors_for_paper_page`)."""
    key = (
        f"paper-authors:{paper.pk}:{paper.modified_at.timestamp()}:{_links_version(paper)}" if cached else ""
    )
    if key and (hit := cache.get(key)) is not None:
        return hit
    lines = _shown(lines if lines is not None else author_lines(paper))
    parts = {
        "total": len(lines),
        "citation": citation_author_tags(lines),
        "jsonld": ld_json_script(paper_jsonld(paper, lines, categories, collaborations)),
    }
    if key:
        cache.set(
            key, {k: str(v) if k != "total" else v for k, v in parts.items()}, AUTHOR_LIST_CACHE_SECONDS
        )
    return parts


def citation_author_tags(lines: list[AuthorLine]) -> SafeString:
    """One ``<meta name="citation_author">`` per author, in order (Google Scholar's inclusion
    guidelines ask for every author), each name escaped with :func:`html.escape`:
    ``format_html`` costs 30 ms on a 3,000-author paper."""
    tags = (f'<meta name="citation_author" content="{html.escape(line.name)}">' for line in lines)
    return mark_safe("\n  ".join(tags))  # noqa: S308 (each name escaped above)


def _collaboration_at(collaborations: list) -> dict:
    """``{author position: collaboration}`` of a paper's collaboration entries (the first
    entry wins where two share a position)."""
    return {entry.position: entry.collaboration for entry in reversed(collaborations)}


def _with_collaborations(items: list[dict], collaborations: list) -> list[dict]:
    """``items`` without junk slots, each collaboration slot given its collaboration (linked)."""
    at = _collaboration_at(collaborations)
    authors = [item for item in items if not is_junk_name(item["slot"].name)]
    for item in authors:
        item["collaboration"] = at.get(item["slot"].position) if item["slot"].is_collaboration else None
    return authors


def paper_authors(request: HttpRequest, arxiv_id: str, slug: str) -> HttpResponse:
    """``/papers/<arxiv-id>-<slug>/authors?page=N``: every author of a paper, with
    affiliations and researcher links, ``AUTHORS_PAGE_SIZE`` a page in author order (the
    numbers are author positions). 404 for a page out of range."""
    paper = _paper_or_response(request, arxiv_id, slug, suffix="/authors")
    if isinstance(paper, HttpResponse):
        return paper
    count = paper.authors.count()
    paginator = Paginator(range(count), AUTHORS_PAGE_SIZE)
    try:
        page = paginator.page(request.GET.get("page") or 1)
    except (EmptyPage, PageNotAnInteger):
        return not_found(request)
    collaborations = paper_collaborations(paper)
    items = authors_for_page(paper, count=count, start=page.start_index() - 1, stop=page.end_index())
    context = {
        "paper": paper,
        "authors": _with_collaborations(items, collaborations),
        "page": page,
        "author_total": count,
    }
    return render(request, "papers/authors.html", context)


def paper_jsonld(
    paper: Paper, lines: list[AuthorLine], categories: list[tuple[str, str]], collaborations: list
) -> dict:
    """schema.org ``ScholarlyArticle`` (with a ``BreadcrumbList``) for a paper page: name and
    headline (TeX made readable), abstract, every author as ``Person`` (``url`` when matched
    to a researcher, ``affiliation`` from the record; a collaboration as ``Organization``
    with its page), dates, arXiv id and DOIs (arXiv's, then each of ``paper.dois``) as
    ``identifier``, arXiv's pages and each DOI's URL as ``sameAs``, the PDF as ``encoding``,
    licence, keywords, and ``creativeWorkStatus`` "Withdrawn" for a withdrawn paper."""
    base = settings.SITE_URL
    url = f"{base}{paper.get_absolute_url()}"
    title = readable_text(paper.title)
    collaboration_at = _collaboration_at(collaborations)
    people = []
    for line in lines:
        person: dict = {"@type": "Organization" if line.is_collaboration else "Person", "name": line.name}
        if line.researcher_url:
            person["url"] = f"{base}{line.researcher_url}"
        elif line.is_collaboration and line.position in collaboration_at:
            person["url"] = f"{base}{collaboration_at[line.position].get_absolute_url()}"
        if line.affiliations:
            person["affiliation"] = [{"@type": "Organization", "name": a} for a in line.affiliations]
        people.append(person)
    identifiers = [{"@type": "PropertyValue", "propertyID": "arXiv", "value": paper.arxiv_id}]
    identifiers.append({"@type": "PropertyValue", "propertyID": "DOI", "value": paper.arxiv_doi})
    identifiers += [{"@type": "PropertyValue", "propertyID": "DOI", "value": doi} for doi in paper.dois]
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
        "sameAs": [paper.abs_url, f"https://doi.org/{paper.arxiv_doi}", *(u for _, u in paper.doi_links)],
        "encoding": {
            "@type": "MediaObject",
            "encodingFormat": "application/pdf",
            "contentUrl": paper.pdf_url,
        },
        "keywords": [code for code, _ in categories],
        "about": [{"@type": "Thing", "name": name, "identifier": code} for code, name in categories],
        "license": paper.license or None,
        # schema.org's creativeWorkStatus: a withdrawn paper stays listed, marked as such.
        "creativeWorkStatus": "Withdrawn" if paper.withdrawn else None,
        "isAccessibleForFree": True,
        "inLanguage": "en",
        "isPartOf": {"@id": f"{base}/#website"},
        "publisher": {"@type": "Organization", "name": "arXiv", "url": "https://arxiv.org/"},
    }
    if paper.cited_by_count is not None:
        article["citationCount"] = paper.cited_by_count
    # The trail the page shows: the primary category by its name, the paper itself not a step.
    crumbs = [("wovepaper", f"{base}/"), ("Papers", f"{base}/papers/")]
    if paper.primary_category_id:
        name = dict(categories).get(paper.primary_category_id, paper.primary_category_id)
        crumbs.append((name, f"{base}/papers/?category={paper.primary_category_id}"))
    return {
        "@context": "https://schema.org",
        "@graph": [{k: v for k, v in article.items() if v not in (None, [], "")}, breadcrumb_list(crumbs)],
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
    if paper.lacks_version(parsed.version):
        return not_found(request, paper=paper, version=parsed.version)
    body = export.bibtex_for([paper]) if fmt == "bib" else export.ris_for([paper])
    return _export_response(body, fmt=fmt, filename=paper.arxiv_id.replace("/", "_"))


RESEARCHER_EXPORT_LIMIT = 5000


def researcher_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """``/researchers/<id>/export.bib`` and ``.ris``: the researcher's public papers, newest
    first (at most 5,000). A merged record exports its survivor's list; 404 when unknown."""
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


def paper_lookup(request: HttpRequest, raw: str, suffix: str = "") -> HttpResponse:
    """Any other ``/papers/...`` form: 301 to the canonical URL (plus ``suffix``, and the
    query string when there is a suffix), or 404/410. A version the paper is known not to
    have (``/papers/0801.4566v9``, :meth:`Paper.lacks_version`) is a 404 naming the versions
    held and linking the paper."""
    parsed, _slug = resolve_identifier(raw)
    if parsed is None:
        return not_found(request)
    paper = (
        Paper.objects.filter(arxiv_id=parsed.id)
        .only("arxiv_id", "slug", "deleted", "latest_version", "title")
        .first()
    )
    if paper is None:
        return not_found(request, arxiv_id=parsed.id)
    if paper.deleted:
        return gone(request, paper)
    if paper.lacks_version(parsed.version):
        return not_found(request, paper=paper, version=parsed.version)
    query = request.META.get("QUERY_STRING", "")
    target = paper.get_absolute_url() + suffix + (f"?{query}" if suffix and query else "")
    return HttpResponsePermanentRedirect(target)


def paper_authors_lookup(request: HttpRequest, raw: str) -> HttpResponse:
    """``/papers/<any identifier form>/authors``: 301 to the canonical author list
    ``/papers/<id>-<slug>/authors`` (``?page=`` kept), or 404/410 as for the paper page."""
    return paper_lookup(request, raw, suffix="/authors")


def category_alias_redirect(request: HttpRequest) -> HttpResponse | None:
    """A 301 to the same page with an alias ``?category=`` (``math.IT``) replaced by the
    code papers are filed under (``cs.IT``), the other parameters kept; ``None`` when the
    parameter is absent, canonical or unknown (BUGS.md CAT-01)."""
    code = request.GET.get("category", "").strip()
    canonical = category_canonical(code) if code else None
    if canonical is None or canonical == code:
        return None
    params = request.GET.copy()
    params["category"] = canonical
    return HttpResponsePermanentRedirect(f"{request.path}?{params.urlencode()}")


def paper_list(request: HttpRequest) -> HttpResponse:
    """``/papers/``: newest first, 24 a page, optional ``?category=`` filter (an alias
    answers 301 to its canonical code)."""
    if redirect := category_alias_redirect(request):
        return redirect
    papers = Paper.objects.public().newest().as_items()
    category = None
    code = request.GET.get("category", "").strip()
    if code:
        category = Category.objects.filter(code=code).first()
        papers = papers.in_category(code)
    known = kept_list_count(code)  # the kept count of the list (issue 28)
    page = CachedCountPaginator(papers, PAGE_SIZE, known_count=known).get_page(request.GET.get("page"))
    return render(request, "papers/list.html", {"page": page, "category": category, "code": code})


def home(request: HttpRequest) -> HttpResponse:
    """Home: a search box, the latest papers and the archive's counts."""
    latest = Paper.objects.public().newest().as_items()[:12]
    facts = archive_facts()
    if facts is not None:
        # Kept by the pipeline's archive-facts stage: no count on the request (issue 28).
        counts = {k: facts[k] for k in ("papers", "researchers", "institutions")}
        context = {"latest": latest, "counts": counts, "top_categories": facts["top_categories"]}
        return render(request, "home.html", context)
    counts = {
        "papers": count_cached(Paper.objects.public()),
        # Researchers: only those a visitor can open (not merged away, with papers).
        "researchers": count_cached(Researcher.objects.listed()),
        # Institutions as /institutions lists them, and the ROR records behind them (a
        # retired record that leads to a successor is listed as that successor).
        "institutions": institution_counts(),
    }
    # Primary or cross-listed, as the category's page counts (the link goes there).
    top_categories = cached_when_large(
        "wove:home:top-categories", lambda: top_categories_of(category_counts()), size=counts["papers"]
    )
    return render(
        request, "home.html", {"latest": latest, "counts": counts, "top_categories": top_categories}
    )
