"""Institutions API: list with country/type filters, detail by id or ROR ID, researchers, papers."""

from __future__ import annotations

from typing import Literal

from django.db.models import Count, F
from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from papers.querysets import PAPER_ORDERS
from papers.schemas import PaperPage
from researchers.models import Researcher
from wove.errors import ApiError, Error
from wove.pagination import PageParams, SortKey, paginate

from .models import Institution
from .schemas import InstitutionDetailOut, InstitutionPage, InstitutionResearcherPage
from .selectors import (
    institution_fields,
    institution_names,
    institution_papers,
    institution_relations,
    institution_resolve,
)

router = Router(tags=["institutions"])
LIST_ERRORS = {400: Error, 422: Error, 429: Error}
DETAIL_ERRORS = {400: Error, 404: Error, 422: Error, 429: Error}

_NAME = SortKey("k_name", F("name"), False, "str")
_PK = SortKey("k_pk", F("id"), False, "int")


class InstitutionFilter(Schema):
    """Institution list filters (combined with AND)."""

    q: str | None = Field(None, max_length=200, description="Any name: display, label, alias, acronym")
    country: str | None = Field(None, min_length=2, max_length=2, description="ISO 3166-1 alpha-2 code")
    type: str | None = Field(None, max_length=32, description="ROR type: education, facility, funder, ...")
    status: Literal["active", "inactive", "withdrawn"] | None = None


@router.get("", response={200: InstitutionPage, **LIST_ERRORS}, summary="List institutions")
def list_institutions(request: HttpRequest, filters: Query[InstitutionFilter], paging: Query[PageParams]):
    """Every ROR record loaded here, by name (``status`` filters: the site's list holds the
    active ones and the successors of the rest; ``successor_ror_id`` names that successor)."""
    institutions = Institution.objects.select_related("superseded_by")
    if filters.q and filters.q.strip():
        institutions = institutions.search(filters.q)
    if filters.country:
        institutions = institutions.in_country(filters.country)
    if filters.type:
        institutions = institutions.filter(types__contains=[filters.type.strip().lower()])
    if filters.status:
        institutions = institutions.filter(status=filters.status)
    paged = paginate(request, institutions, paging, order="i-name", keys=[_NAME, _PK])
    return {"items": paged.items, **paged.meta}


def institution_or_error(key: str) -> Institution:
    """The institution for an internal id (``42``), a ROR ID in any form (``03yrm5c26``,
    ``https://ror.org/03yrm5c26``) or an exact name (label, alias or acronym, compared as
    :func:`institutions.selectors.institution_resolve` does, as the HTML pages do).
    :class:`ApiError` 404 when none fits, or when a name fits several (their ROR IDs are in
    the message)."""
    key = (key or "").strip()
    if key.isdigit() and not key.startswith("0") and int(key) >= 2**63:
        raise ApiError(404, "not_found", f"No institution has the id {key!r}.")
    resolution = institution_resolve(key)
    if resolution.institution is not None:
        return resolution.institution
    if resolution.candidates:
        ror_ids = ", ".join(c.ror_id for c in resolution.candidates[:20])
        raise ApiError(
            404,
            "ambiguous",
            f"{key!r} names {len(resolution.candidates)} institutions; ask by ROR ID: {ror_ids}.",
        )
    raise ApiError(404, "not_found", f"No institution has the id, ROR ID or name {key!r}.")


@router.get(
    "/{path:key}/researchers",
    response={200: InstitutionResearcherPage, **DETAIL_ERRORS},
    summary="Researchers linked to an institution",
)
def institution_researchers(request: HttpRequest, key: str, paging: Query[PageParams]):
    """Researchers whose author slots are linked to the institution, with the number of
    distinct papers showing the link; most papers first, then by name."""
    institution = institution_or_error(key)
    researchers = Researcher.objects.filter(
        authorships__slot__institution_links__institution=institution
    ).annotate(papers=Count("authorships__paper_id", distinct=True))
    keys = [
        SortKey("k_papers", F("papers"), True, "int"),
        SortKey("k_name", F("display_name"), False, "str"),
        _PK,
    ]
    paged = paginate(request, researchers, paging, order="i-researchers", keys=keys)
    items = [{"researcher": r, "papers": r.papers} for r in paged.items]
    return {"items": items, **paged.meta}


@router.get(
    "/{path:key}/papers", response={200: PaperPage, **DETAIL_ERRORS}, summary="Papers of an institution"
)
def institution_paper_list(
    request: HttpRequest,
    key: str,
    paging: Query[PageParams],
    sort: Literal["newest", "oldest", "cited"] = "newest",
):
    """Public papers with at least one author slot linked to the institution."""
    institution = institution_or_error(key)
    paged = paginate(request, institution_papers(institution), paging, order=sort, keys=PAPER_ORDERS[sort])
    return {"items": paged.items, **paged.meta}


@router.get(
    "/{path:key}", response={200: InstitutionDetailOut, **DETAIL_ERRORS}, summary="Get an institution"
)
def get_institution(request: HttpRequest, key: str):
    """The full record by internal id, ROR ID or exact name: names, identifiers, relationships (targets
    joined to institutions loaded here) and the arXiv fields of its papers."""
    institution = institution_or_error(key)
    names = institution_names(institution)
    institution.aliases = [n.value for n in names["aliases"]]
    institution.acronyms = [n.value for n in names["acronyms"]]
    institution.labels = [n.value for n in names["labels"]]
    institution.relationships_out = [
        {
            "type": rel.type,
            "ror_id": rel.ror_id,
            "label": rel.label,
            "institution_id": rel.institution.pk if rel.institution else None,
        }
        for rels in institution_relations(institution).values()
        for rel in rels
    ]
    institution.fields = institution_fields(institution, limit=50)
    # No Last-Modified: the fields and relationships change without touching modified_at;
    # the ETag covers every byte instead.
    return institution
