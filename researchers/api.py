"""Researchers API: list and name search, profile, papers, co-authors, lookup by external id."""

from __future__ import annotations

from typing import Literal

from django.db.models import Count, F, QuerySet
from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from papers.querysets import PAPER_ORDERS
from papers.selectors import category_names
from wove.counts import kept_count
from wove.errors import ApiError, Error
from wove.pagination import PageParams, SortKey, paginate

from .blocks import INSTITUTIONS, researcher_block_items
from .models import Authorship, IdentitySource, Researcher
from .orcid import ORCID_PARAMETER_PATTERN, InvalidOrcid, normalize_orcid
from .schemas import EXTERNAL_URLS, CoauthorPage, ResearcherDetailOut, ResearcherPage, ResearcherPaperPage
from .selectors import researcher_authorships, researcher_papers, researcher_resolve, researchers_named
from .summaries import researcher_summary

router = Router(tags=["researchers"])
LIST_ERRORS = {400: Error, 422: Error, 429: Error}
DETAIL_ERRORS = {404: Error, 422: Error, 429: Error}

_NAME = SortKey("k_name", F("display_name"), False, "str")
_PK = SortKey("k_pk", F("id"), False, "int")
# At most this many matches of a name search are counted (``count_capped`` says when more
# match), as full-text searches of papers are (pages.search.MATCH_CAP).
NAME_COUNT_CAP = 5000

RESEARCHER_ORDERS = {
    "papers": [SortKey("k_papers", F("paper_count"), True, "int"), _NAME, _PK],
    "name": [_NAME, _PK],
}


class ResearcherFilter(Schema):
    """Researcher list filters: ``q`` is the site's name search (every word of it in the
    display name or a name variant, ignoring case and accents: ``A. Loeb`` finds Abraham
    Loeb); ``sort`` is ``papers`` (most first) or ``name``."""

    q: str | None = Field(
        None,
        max_length=200,
        description="Name search, as the site's: every word in the display name or a name variant, a word of "
        "one or two letters at the start of a name's word (case and accents ignored; `A. Loeb` "
        "finds Abraham Loeb, `Li` finds Li and Lin, not Oliver)",
    )
    sort: Literal["papers", "name"] = "papers"


class ResearcherPaperFilter(Schema):
    """Filters of a researcher's papers: primary ``category`` and ``sort``."""

    category: str | None = Field(None, max_length=32, description="Primary arXiv category (cs.DC)")
    sort: Literal["newest", "oldest", "cited"] = "newest"


class LookupParams(Schema):
    """Exactly one external identifier to look a researcher up by."""

    orcid: str | None = Field(
        None,
        max_length=60,
        description="ORCID iD, bare (0000-0002-5250-9277, hyphens optional) or https://orcid.org/ form; "
        "its check digit (ISO 7064 11,2) must hold, else 400",
        # The shapes normalize_orcid accepts, documented (its 400 for others is kept).
        json_schema_extra={"pattern": ORCID_PARAMETER_PATTERN},
    )
    semantic_scholar: str | None = Field(None, max_length=200, description="Semantic Scholar authorId")
    openalex: str | None = Field(None, max_length=200, description="OpenAlex author id (A5023888391)")


@router.get("", response={200: ResearcherPage, **LIST_ERRORS}, summary="List and search researchers")
def list_researchers(request: HttpRequest, filters: Query[ResearcherFilter], paging: Query[PageParams]):
    """Researchers with at least one paper here (merged-away records excluded)."""
    q = (filters.q or "").strip()
    capped = False
    if q:
        # A short name's matches counted to the end took seconds at a million papers ("Li":
        # 79,549 researchers, 2.9 s cold; issue 28): counted as far as the papers' are.
        named = researchers_named(q, cap=NAME_COUNT_CAP)
        researchers, known, capped = named.researchers, named.count, named.capped
        if filters.sort == "papers" and not paging.cursor:
            # This page, and one more row to tell whether another follows.
            researchers = named.most_papers(paging.page * paging.size + 1)
    else:
        # All listed researchers: the pipeline's kept count, not a COUNT of a million rows.
        researchers = Researcher.objects.listed()
        known = None if paging.cursor else kept_count("researchers")
    paged = paginate(
        request,
        researchers,
        paging,
        order=f"r-{filters.sort}",
        keys=RESEARCHER_ORDERS[filters.sort],
        known_count=known,
        known_listed=known,
        known_capped=capped,
    )
    return {"items": paged.items, **paged.meta}


def _detail(researcher: Researcher, requested_id: int, moved: bool) -> Researcher:
    """Fill the profile fields of ``ResearcherDetailOut`` on ``researcher``."""
    identities = list(researcher.identities.all())
    summary = researcher_summary(researcher)
    counts = {label.split()[0]: n for label, n in summary["positions"]}
    names = dict(category_names([code for code, _n in summary["fields"]]))  # kept per process
    researcher.requested_id = requested_id
    researcher.api_merged_into = researcher.pk if moved else None  # merged_into is the FK
    researcher.external_ids = [
        {
            "source": i.source,
            "external_id": i.external_id,
            "name": i.name,
            "url": EXTERNAL_URLS.get(i.source, "{}").format(i.external_id),
        }
        for i in identities
    ]
    researcher.identity_sources = summary["identity_sources"]
    researcher.positions = {
        "first": counts.get("first", 0),
        "middle": counts.get("middle", 0),
        "last": counts.get("last", 0),
        "known_papers": summary["positions_known"],
        "total_papers": summary["positions_total"],
    }
    researcher.fields = [
        {"code": code, "name": names.get(code, ""), "count": n} for code, n in summary["fields"]
    ]
    researcher.institutions = [
        {
            "id": i.institution.pk,
            "ror_id": i.institution.ror_id,
            "name": i.institution.name,
            "country_code": i.institution.country_code,
            "first_year": i.first_year,
            "last_year": i.last_year,
            "papers": i.papers,
        }
        for i in researcher_block_items(INSTITUTIONS, summary["institutions"])
    ]
    # No Last-Modified: the profile also reflects authorships and affiliations whose changes
    # do not touch researcher.modified_at; the ETag covers every byte instead.
    return researcher


def researcher_or_error(researcher_id: int) -> tuple[Researcher, bool]:
    """``(survivor, moved)`` for an id, following editor merges; :class:`ApiError` 404 otherwise."""
    researcher, moved = researcher_resolve(researcher_id)
    if researcher is None:
        raise ApiError(404, "not_found", f"No researcher has the id {researcher_id}.")
    return researcher, moved


@router.get(
    "/lookup",
    response={200: ResearcherDetailOut, 400: Error, 404: Error, 422: Error, 429: Error},
    summary="Find a researcher by ORCID iD, Semantic Scholar or OpenAlex author id",
)
def lookup_researcher(request: HttpRequest, params: Query[LookupParams]):
    """Give exactly one of ``orcid``, ``semantic_scholar``, ``openalex``. 400 for none, several
    or a malformed ORCID iD; 404 when no researcher holds the id, naming it normalised (the
    bare ORCID iD, the OpenAlex id in capitals)."""
    given = {k: v.strip() for k, v in params.dict().items() if v and v.strip()}
    if len(given) != 1:
        raise ApiError(400, "bad_request", "Give exactly one of orcid, semantic_scholar, openalex.")
    ((kind, value),) = given.items()
    if kind == "orcid":
        try:
            value = normalize_orcid(value)  # the 404 names the iD, not the URL it came in
        except InvalidOrcid as exc:
            raise ApiError(400, "bad_request", str(exc)) from exc
        found = Researcher.objects.filter(orcid=value).first()
        if found is None:
            found = Researcher.objects.filter(
                identities__source=IdentitySource.ORCID, identities__external_id=value
            ).first()
    else:
        if kind == "openalex":
            value = value.rstrip("/").rsplit("/", 1)[-1].upper()  # https://openalex.org/A… → A…
        found = Researcher.objects.filter(identities__source=kind, identities__external_id=value).first()
    if found is None:
        raise ApiError(404, "not_found", f"No researcher has {kind} {value}.")
    researcher, moved = researcher_or_error(found.pk)
    return _detail(researcher, found.pk, moved)


@router.get(
    "/{researcher_id}", response={200: ResearcherDetailOut, **DETAIL_ERRORS}, summary="Get a researcher"
)
def get_researcher(request: HttpRequest, researcher_id: int):
    """The profile: ORCID iD, external ids, author-position counts, fields (primary
    categories), institutions. A merged-away id answers with the survivor's profile and
    ``merged_into`` set (see the API description)."""
    researcher, moved = researcher_or_error(researcher_id)
    return _detail(researcher, researcher_id, moved)


@router.get(
    "/{researcher_id}/papers",
    response={200: ResearcherPaperPage, **DETAIL_ERRORS, 400: Error},
    summary="A researcher's papers",
)
def researcher_paper_list(
    request: HttpRequest, researcher_id: int, filters: Query[ResearcherPaperFilter], paging: Query[PageParams]
):
    """Public papers attached to the researcher (the survivor's, for a merged-away id), each
    with the researcher's ``authorship`` on it: method, confidence, evidence, unconfirmed."""
    researcher, _moved = researcher_or_error(researcher_id)
    papers: QuerySet = researcher_papers(researcher)
    if filters.category:
        papers = papers.filter(primary_category_id=filters.category)
    paged = paginate(request, papers, paging, order=filters.sort, keys=PAPER_ORDERS[filters.sort])
    items = list(paged.items)
    held = researcher_authorships(researcher, [p.pk for p in items])
    for paper in items:
        paper.authorship = held.get(paper.pk)
    return {"items": items, **paged.meta}


@router.get(
    "/{researcher_id}/coauthors",
    response={200: CoauthorPage, **DETAIL_ERRORS, 400: Error},
    summary="A researcher's co-authors",
)
def researcher_coauthors(request: HttpRequest, researcher_id: int, paging: Query[PageParams]):
    """Researchers who share papers with this one, most shared papers first, then by name."""
    researcher, _moved = researcher_or_error(researcher_id)
    papers = Authorship.objects.filter(researcher=researcher).values("paper_id")
    coauthors = (
        Researcher.objects.filter(authorships__paper_id__in=papers)
        .exclude(pk=researcher.pk)
        .annotate(shared=Count("authorships__paper_id", distinct=True))
    )
    keys = [SortKey("k_shared", F("shared"), True, "int"), _NAME, _PK]
    paged = paginate(request, coauthors, paging, order="coauthors", keys=keys)
    items = [{"researcher": r, "shared_papers": r.shared} for r in paged.items]
    return {"items": items, **paged.meta}
