"""Institution pages: the canonical page, every form that redirects to it, the list.

URL rules (issue #4, SPEC.md): ``/institutions/<id>-<slug>`` is canonical; an internal
id, a ROR ID (``https://ror.org/…``, ``ror.org/…`` or bare) or a name (display name,
label, alias, acronym) answers 301 to it; a name that fits several institutions gets a
short page to choose from; anything else is a 404.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from papers.views import not_found
from wove.compiled import CompiledQuery, attach_prefetched
from wove.counts import CachedCountPaginator
from wove.jsonld import breadcrumb_list

from . import selectors
from .models import Institution, InstitutionName
from .summaries import institution_summary

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from papers.models import Paper

PAGE_SIZE = selectors.PAPERS_PAGE_SIZE
LIST_PAGE_SIZE = 50

# Characters that could end a <script> element or confuse an HTML parser inside one.
_JSON_SCRIPT_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def json_ld(data: dict[str, Any]) -> SafeString:
    """``data`` as JSON safe to place inside ``<script type="application/ld+json">``:
    ``<``, ``>``, ``&`` and the JavaScript line separators are \\u-escaped, so harvested
    text can never close the script element."""
    return mark_safe(json.dumps(data, ensure_ascii=False).translate(_JSON_SCRIPT_ESCAPES))  # noqa: S308


def breadcrumbs_json_ld(institution: Institution) -> dict[str, Any]:
    """schema.org ``BreadcrumbList`` of the trail the page shows: wovepaper, Institutions,
    then the institution's country (the list filtered by it) when ROR gives one."""
    base = settings.SITE_URL
    listing = base + reverse("institutions:list")
    crumbs = [("wovepaper", f"{base}/"), ("Institutions", listing)]
    if institution.country_code:
        country = institution.country_name or institution.country_code
        crumbs.append((country, f"{listing}?{urlencode({'country': institution.country_code})}"))
    return {"@context": "https://schema.org", **breadcrumb_list(crumbs)}


def organization_json_ld(institution: Institution, *, parents: list, page_url: str) -> dict[str, Any]:
    """schema.org ``Organization`` for an institution, identified by its ROR ID."""
    names = [
        n.value for n in institution.names.all() if n.kind != "ror_display" and n.value != institution.name
    ]
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Organization",
        "@id": institution.ror_url,
        "name": institution.name,
        "url": page_url,
        "identifier": {"@type": "PropertyValue", "propertyID": "ROR", "value": institution.ror_url},
        "sameAs": [institution.ror_url]
        + [u for u in (institution.website, institution.wikipedia_url) if u]
        + [url for label, _value, url in institution.external_links() if label == "Wikidata"],
    }
    if names:
        data["alternateName"] = sorted(set(names))
    if institution.city or institution.country_code:
        data["address"] = {
            "@type": "PostalAddress",
            **({"addressLocality": institution.city} if institution.city else {}),
            **({"addressCountry": institution.country_code} if institution.country_code else {}),
        }
    if institution.established:
        data["foundingDate"] = str(institution.established)
    if parents:
        data["parentOrganization"] = [
            {
                "@type": "Organization",
                "@id": p.ror_url,
                "name": p.institution.name if p.institution else p.label,
            }
            for p in parents
        ]
    return data


# Compiled once per process (wove.compiled; issue 28). An id is never negative.
INSTITUTION_FOR_PAGE = CompiledQuery(
    lambda pk: Institution.objects.select_related("superseded_by").filter(pk=pk).order_by()[:1], sentinel=-1
)
# Its names, attached as a prefetch would attach them (a prefetch is compiled per request). The
# model's ordering of names starts with their institution, a join for one id.
INSTITUTION_NAMES = CompiledQuery(
    lambda pk: InstitutionName.objects.filter(institution_id=pk).order_by("kind", "value"), sentinel=-1
)


class PaperPages:
    """An institution's papers as its page's paginator slices them (newest first, list-item
    columns): the first page from the kept ids of its newest papers
    (:func:`selectors.institution_first_page`), any other page a slice of every linked paper.
    The queryset of every linked paper is built only for a page past the first: building it
    cost about a twentieth of a page that never read it (issue 28)."""

    def __init__(self, institution: Institution, newest_ids: list[int] | None) -> None:
        self.institution = institution
        self.newest_ids = newest_ids

    def __getitem__(self, key: slice) -> list[Paper] | QuerySet[Paper]:
        if key.start == 0 and self.newest_ids:
            return selectors.institution_first_page(self.institution.pk, self.newest_ids)
        return selectors.institution_papers(self.institution).as_items()[key]


def institution_detail(request: HttpRequest, pk: int, slug: str) -> HttpResponse:
    """The canonical institution page ``/institutions/<id>-<slug>``."""
    institution = INSTITUTION_FOR_PAGE.first(pk)
    if institution is None:
        return not_found(request)
    if slug != institution.slug:
        return HttpResponsePermanentRedirect(institution.get_absolute_url())
    attach_prefetched(institution, "names", INSTITUTION_NAMES.all(pk))
    relations = selectors.institution_relations(institution)
    # Paper count, fields and researchers over every linked paper: kept in the database for
    # every institution with a link and read as kept (seconds each at a million papers;
    # issues 11 and 28).
    summary = institution_summary(institution)
    papers = PaperPages(institution, summary.get("newest_ids"))
    page = CachedCountPaginator(papers, PAGE_SIZE, known_count=summary["paper_count"]).get_page(
        request.GET.get("page")
    )
    page_url = settings.SITE_URL + institution.get_absolute_url()
    researchers = selectors.institution_researchers_from_rows(summary["researchers"])
    context = {
        "institution": institution,
        "names": selectors.institution_names(institution),
        "relations": relations,
        "successors": relations.get("successor", []),
        "page": page,
        "fields": summary["fields"],
        "researchers": researchers,
        # Every researcher with a linked slot (the list's "N researchers"); the list shows 50.
        "researcher_count": summary["researcher_count"],
        "json_ld": json_ld(
            organization_json_ld(institution, parents=relations.get("parent", []), page_url=page_url)
        ),
        "breadcrumbs_json_ld": json_ld(breadcrumbs_json_ld(institution)),
    }
    return render(request, "institutions/institution_detail.html", context)


def institution_lookup(request: HttpRequest, key: str) -> HttpResponse:
    """Any other ``/institutions/<key>``: 301 to the canonical page (the active successor's,
    for the ROR ID or a name of a withdrawn or inactive record that has one), a page to
    choose from when a name fits several institutions, or the 404 page."""
    # A withdrawn or inactive record's ROR ID and names lead to its active successor; its
    # own canonical page stays (with a banner) for links made before.
    resolution = selectors.institution_resolve(key, follow_successors=True)
    if resolution.institution is not None:
        return HttpResponsePermanentRedirect(resolution.institution.get_absolute_url())
    if resolution.candidates:
        return render(
            request, "institutions/institution_choose.html", {"key": key, "candidates": resolution.candidates}
        )
    return not_found(request, institution_key=key)


def institution_list(request: HttpRequest) -> HttpResponse:
    """``/institutions``: every loaded institution, with ``?q=`` name search and
    ``?country=`` (ISO code) filter, 50 a page."""
    q = request.GET.get("q", "").strip()[:200]
    country = request.GET.get("country", "").strip()[:2].upper()
    queryset = selectors.institution_list(q=q, country=country)
    page = CachedCountPaginator(queryset, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"page": page, "q": q, "country": country, "countries": selectors.institution_countries()}
    return render(request, "institutions/institution_list.html", context)
