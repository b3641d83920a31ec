"""Papers API: list with filters and sorts, detail by any identifier form, batch lookup.

The site layer serves it: filters by researcher and institution, semantic ranking, author
slots with their researchers and institutions and provenance links combine apps."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.postgres.aggregates import ArrayAgg
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.utils.http import http_date
from ninja import Query, Router
from ninja.renderers import JSONRenderer

from institutions.models import AuthorAffiliation
from institutions.selectors import institution_resolve
from papers.identifiers import try_parse_arxiv_id
from papers.models import Collaboration, Paper, PaperAuthor, PaperCollaboration, PaperVersion
from papers.schemas import PaperPage, paper_out
from papers.selectors import category_canonical, paper_or_error
from provenance.models import Record
from researchers.models import Researcher
from researchers.selectors import researcher_resolve
from wove.compiled import CompiledQuery
from wove.errors import ApiError, Error
from wove.pagination import PageParams, SortKey, page_out, paginate

from .facts import kept_list_count
from .feeds import search_feed_link
from .schemas import BatchIn, BatchOut, PaperDetailOut, PaperFilter
from .search import MATCH_CAP, PaperSearch, keyset_papers

router = Router(tags=["papers"])
RENDERER = JSONRenderer()

LIST_ERRORS = {400: Error, 404: Error, 422: Error, 429: Error}
DETAIL_ERRORS = {404: Error, 410: Error, 422: Error, 429: Error}


def filter_papers(
    filters: PaperFilter, *, depth: int = MATCH_CAP
) -> tuple[QuerySet[Paper], str, list[SortKey], PaperSearch]:
    """Public papers narrowed by ``filters``; returns ``(queryset, order name, sort keys,
    search)``; ``search.ranked_complete`` is False when more papers qualify for a semantic
    or hybrid ranking than it holds (the count is then a lower bound), ``search.index_hits``
    set when the search index matched ``q`` (its count, exact or estimated).

    The filters become the site search's :class:`pages.search.PaperSearch` and run through
    :func:`pages.search.keyset_papers`, the search page's filters and ranking. Raises
    :class:`ApiError` 404 for an unknown researcher, institution or collaboration. A merged-away
    researcher id filters by its survivor.
    """
    search = PaperSearch(
        q=(filters.q or "").strip(),
        sort=filters.sort,
        mode=filters.mode,
        submitted_from=filters.submitted_from,
        submitted_until=filters.submitted_until,
        # The API has always counted the survivor's own authorships only.
        include_merged_away=False,
    )
    if filters.category:
        # A blank category (kept as sent) matches no paper, as it always has here; an alias
        # (math.IT) filters by the code its papers are filed under (cs.IT).
        code = filters.category.strip()
        search.category = (category_canonical(code) or code) if code else filters.category
    if filters.researcher is not None:
        search.researcher, _moved = researcher_resolve(filters.researcher)
        if search.researcher is None:
            raise ApiError(404, "not_found", f"No researcher has the id {filters.researcher}.")
    if filters.institution:
        # A withdrawn record's links live at its active successor (institutions re-points them).
        search.institution = institution_resolve(filters.institution, follow_successors=True).institution
        if search.institution is None:
            raise ApiError(404, "not_found", f"No institution matches {filters.institution!r}.")
    if filters.collaboration is not None:
        search.collaboration = Collaboration.objects.filter(pk=filters.collaboration).first()
        if search.collaboration is None:
            raise ApiError(404, "not_found", f"No collaboration has the id {filters.collaboration}.")
    papers, order, keys = keyset_papers(search, depth=depth)
    return papers, order, keys, search


# A full-text query counts at most this many matches, as the search page does (MATCH_CAP),
# so the two give the same count; above it the meta says count_capped.
SEARCH_COUNT_CAP = MATCH_CAP


# operation_id: the ids the OpenAPI document gave these operations when they lived in
# papers/api.py (ninja derives them from the module); clients generated from it keep working.
@router.get(
    "",
    response={200: PaperPage, **LIST_ERRORS},
    summary="List and search papers",
    operation_id="papers_api_list_papers",
)
def list_papers(
    request: HttpRequest, response: HttpResponse, filters: Query[PaperFilter], paging: Query[PageParams]
):
    """Public papers, filtered and sorted, a page at a time.

    Filters combine (AND). Sorts: ``newest`` (default), ``oldest``, ``cited`` (most cited
    first), ``relevance`` (full-text rank of ``q``). Page with ``page``/``size`` (``count``
    and ``pages`` given) or follow ``next_cursor`` for deep traversal (no count).
    """
    # A page reads the index's matches up to its own end (plus one, for "next"); a cursor
    # may point anywhere in the listed ones.
    depth = MATCH_CAP if paging.cursor else paging.page * paging.size + 1
    papers, order, keys, search = filter_papers(filters, depth=depth)
    complete = search.ranked_complete
    known = search.index_hits.count if search.index_hits is not None else None
    listed = None if known is None else min(known, MATCH_CAP)
    if known is None and not paging.cursor and _category_at_most(filters):
        # All papers, or one category's: the kept count (issue 28), not a COUNT of a million rows.
        known = listed = kept_list_count(search.category or "")
    mode = order if order in ("hybrid", "semantic") else "keyword"
    if order in ("hybrid", "semantic"):
        order = f"relevance-{order}"  # cursors of one mode are not valid in another
    paged = paginate(
        request,
        papers,
        paging,
        order=order,
        keys=keys,
        count_cap=SEARCH_COUNT_CAP if filters.q else None,
        known_count=known,
        known_listed=listed,
    )
    if filters.q:
        response["X-Search-Mode"] = mode
    if search.q or search.has_filters:
        response["Link"] = search_feed_link(search)
    if not complete and paged.meta.get("count") is not None:
        paged.meta["count_capped"] = True  # more papers are close in meaning than were ranked
    if search.index_hits is not None and search.index_hits.estimated and paged.meta.get("count") is not None:
        paged.meta["count_estimated"] = True  # counted on the index's sample
    # Written as PaperPage dumps it, without its validation (paper_out), on ninja's response,
    # which already carries the content type and the headers above.
    items = [paper_out(paper, settings.SITE_URL) for paper in paged.items]
    response.content = RENDERER.render(request, page_out(paged.meta, items), response_status=200)
    return response


@router.post(
    "/batch",
    response={200: BatchOut, 400: Error, 413: Error, 422: Error, 429: Error},
    summary="Look up many papers",
    operation_id="papers_api_batch_papers",
)
def batch_papers(request: HttpRequest, body: BatchIn):
    """Look up to 500 identifiers (any form) in one request; answers keep the order asked.

    One query whatever the count. Unknown, invalid and deleted ids, and versions a paper is
    known not to have (``0801.4566v9``: :meth:`Paper.lacks_version`), are reported in
    ``unknown`` and in their result's ``status``.
    """
    parsed = [try_parse_arxiv_id(raw) for raw in body.ids]
    wanted = {p.id for p in parsed if p is not None}
    papers = {
        p.arxiv_id: p
        for p in Paper.objects.filter(arxiv_id__in=wanted)
        .select_related("primary_category")
        .annotate(versions_known=Exists(PaperVersion.objects.filter(paper=OuterRef("pk"))))
    }
    results, unknown = [], []
    for raw, ident in zip(body.ids, parsed, strict=True):
        paper = papers.get(ident.id) if ident else None
        if ident is None:
            status = "invalid"
        elif paper is None or paper.lacks_version(ident.version, versions_known=paper.versions_known):
            status, paper = "not_found", None
        elif paper.deleted:
            status, paper = "deleted", None
        else:
            status = "found"
        if status != "found":
            unknown.append(raw)
        results.append({"id": raw, "arxiv_id": ident.id if ident else None, "status": status, "paper": paper})
    # The same paper asked for twice (two identifier forms) is one paper found.
    found = len({r["arxiv_id"] for r in results if r["status"] == "found"})
    return {"results": results, "found": found, "unknown": unknown}


SLOT_INSTITUTIONS = CompiledQuery(
    lambda paper_id: (
        AuthorAffiliation.objects.filter(slot__paper_id=paper_id)
        .order_by("slot_id", "institution__name", "institution_id")
        .values(
            "slot_id",
            "institution_id",
            "institution__ror_id",
            "institution__name",
            "institution__country_code",
            "institution__slug",
            "source",
            "matched_string",
            "resolution",
            "matched_institution_id",
            "matched_institution__ror_id",
            "matched_institution__name",
            "matched_institution__status",
            "matched_institution__slug",
            "modified_at",
        )
    ),
    sentinel=-1,
)


def _institution_refs(paper: Paper) -> tuple[dict[int, list[dict]], datetime | None]:
    """The institutions matched to each author slot of ``paper``, with the link's source,
    string, the ROR record matched and how it was resolved (one query, plain values):
    ``({slot id: [SlotInstitution dict, ...]} by name, when a link last changed or None)``."""
    rows = [tuple(row.values()) for row in SLOT_INSTITUTIONS.values(paper.pk)]
    by_slot: dict[int, list[dict]] = {}
    changed = None
    base = f"{settings.SITE_URL}/institutions/"
    for slot_id, pk, ror_id, name, country_code, slug, source, text, resolution, *matched in rows:
        matched_pk, matched_ror_id, matched_name, matched_status, matched_slug, modified_at = matched
        changed = modified_at if changed is None else max(changed, modified_at)
        by_slot.setdefault(slot_id, []).append(
            {
                "id": pk,
                "ror_id": ror_id,
                "name": name,
                "country_code": country_code,
                "url": f"{base}{pk}-{slug}",
                "source": source,
                "matched_string": text,
                "matched": None
                if matched_pk is None
                else {
                    "id": matched_pk,
                    "ror_id": matched_ror_id,
                    "name": matched_name,
                    "status": matched_status,
                    "url": f"{base}{matched_pk}-{matched_slug}",
                },
                "resolution": resolution or None,
            }
        )
    return by_slot, changed


AUTHORSHIP_FIELDS = ("method", "source", "confidence", "evidence", "unconfirmed")


# Compiled once per process (wove.compiled), as the record's paper row.
AUTHOR_SLOTS = CompiledQuery(
    lambda paper_id: (
        PaperAuthor.objects.filter(paper_id=paper_id)
        .order_by("position")
        .values(
            "id",
            "position",
            "name",
            "affiliations",
            "is_collaboration",
            "authorship__researcher_id",
            "authorship__researcher__display_name",
            "authorship__researcher__slug",
            "authorship__researcher__orcid",
            "authorship__modified_at",
            "authorship__researcher__modified_at",
            *(f"authorship__{field}" for field in AUTHORSHIP_FIELDS),
        )
    ),
    sentinel=-1,
    json_columns=("authorship__evidence",),
)


def _author_slots(paper: Paper, *, institutions: bool = True) -> tuple[list[dict], list]:
    """Author slots with their researcher, authorship (how and why it was linked) and
    institutions as plain values (a 3,000-author paper would otherwise build 9,000 model
    instances and 3,000 prefetch querysets), and when the rows linked to the slots last
    changed (authorships, with their evidence, confidence and mark; their researchers;
    institution links), for ``Last-Modified``, read with them; two queries, one when
    ``institutions`` is False (the paper has no institution links)."""
    rows = AUTHOR_SLOTS.values(paper.pk)
    institutions, institutions_changed = _institution_refs(paper) if institutions else ({}, None)
    stamps = [institutions_changed] if institutions_changed else []
    count = len(rows)
    base = settings.SITE_URL
    out = []
    for row in rows:
        rid, researcher, authorship = row["authorship__researcher_id"], None, None
        if rid is not None:
            slug = row["authorship__researcher__slug"]
            researcher = {
                "id": rid,
                "name": row["authorship__researcher__display_name"],
                "url": f"{base}{Researcher.url_for(rid, slug)}",
                "orcid": row["authorship__researcher__orcid"],
            }
            authorship = {field: row[f"authorship__{field}"] for field in AUTHORSHIP_FIELDS}
            stamps += [row["authorship__modified_at"], row["authorship__researcher__modified_at"]]
        position = row["position"]
        out.append(
            {
                "position": position,
                "name": row["name"],
                "author_position": "first" if position == 1 else "last" if position == count else "middle",
                "affiliations": row["affiliations"],
                "is_collaboration": row["is_collaboration"],
                "researcher": researcher,
                "authorship": authorship,
                "institutions": institutions.get(row["id"], []),
            }
        )
    return out, ([max(stamps)] if stamps else [])


def _collaborations(paper: Paper) -> list[dict]:
    """The paper's collaborations in author order as :class:`PaperCollaborationOut` values,
    each with the positions of its member slots; one query."""
    rows = (
        PaperCollaboration.objects.filter(paper=paper)
        .order_by("position", "pk")
        .values("position", "collaboration_id", "collaboration__name", "collaboration__slug")
        .annotate(members=ArrayAgg("members__position", distinct=True, filter=Q(members__isnull=False)))
    )
    base = settings.SITE_URL
    return [
        {
            "name": row["collaboration__name"],
            "url": f"{base}/collaborations/{row['collaboration_id']}-{row['collaboration__slug']}",
            "position": row["position"],
            "members": sorted(row["members"] or []),
        }
        for row in rows
    ]


def _category_at_most(filters: PaperFilter) -> bool:
    """Whether ``filters`` narrow the papers by a category at most (no query text, researcher,
    institution, collaboration or dates): then the kept facts count them."""
    others = (filters.q, filters.researcher, filters.institution, filters.collaboration)
    dates = (filters.submitted_from, filters.submitted_until)
    return not any(others) and all(d is None for d in dates) and filters.category != ""


# The record's paper row, with what else it needs read in the same query (issue 28: one query
# where four were): its versions as three parallel arrays, its current signed record (the
# newest record of its latest version, as provenance.selectors.pith_for_paper), and whether it
# has institution links or collaborations at all, so that most records skip those queries.
# Compiled once per process (wove.compiled): building it cost more than running it.
def _record_paper(arxiv_id: str) -> QuerySet[Paper]:
    versions = PaperVersion.objects.filter(paper=OuterRef("pk")).order_by("version")
    current = Record.objects.filter(paper_id=OuterRef("pk")).latest_first()
    return Paper.objects.filter(arxiv_id=arxiv_id).annotate(
        version_numbers=ArraySubquery(versions.values("version")),
        version_times=ArraySubquery(versions.values("submitted_at")),
        version_sizes=ArraySubquery(versions.values("size_kb")),
        pith_number=Subquery(current.values("pith_number")[:1]),
        signed_at=Subquery(current.values("created_at")[:1]),
        has_institutions=Exists(AuthorAffiliation.objects.filter(slot__paper=OuterRef("pk"))),
        has_collaborations=Exists(PaperCollaboration.objects.filter(paper=OuterRef("pk"))),
    )


RECORD_PAPER = CompiledQuery(_record_paper, sentinel="compiled-arxiv-id")


def paper_record(paper: Paper) -> tuple[dict, datetime]:
    """The full record of ``paper`` as :class:`PaperDetailOut` dumps it (the same keys in the
    same order, the same Python types: the API's renderer writes it unchanged), and when
    anything in it last changed (the paper, its author links or its signing), for
    ``Last-Modified``.

    ``paper`` comes from :data:`RECORD_PAPER` (its annotations hold the versions and the
    signed record). Two queries for a paper without institution links or collaborations,
    three or four with them. The schema's validation is skipped: it cost a seventh of the
    record's time, and ``tests/api/test_paper_record.py`` checks that every sample record
    comes out of ``PaperDetailOut`` unchanged."""
    slots, stamps = _author_slots(paper, institutions=paper.has_institutions)
    base = settings.SITE_URL
    provenance = None
    if paper.pith_number is not None:
        links = f"{base}/api/v1/papers/{paper.arxiv_id}/provenance"
        provenance = {
            "pith_number": paper.pith_number,
            "bundle": f"{links}/bundle",
            "state": f"{links}/state",
        }
        stamps.append(paper.signed_at)
    record = {
        **paper_out(paper, base),
        "authors_as_written": paper.authors_text,
        "journal_ref": paper.journal_ref,
        "comments": paper.comments,
        "license": paper.license,
        "report_no": paper.report_no,
        "msc_class": paper.msc_class,
        "acm_class": paper.acm_class,
        "arxiv_doi": paper.arxiv_doi,
        "versions": [
            {"version": number, "submitted_at": at, "size_kb": size}
            for number, at, size in zip(
                paper.version_numbers, paper.version_times, paper.version_sizes, strict=True
            )
        ],
        "author_slots": slots,
        "collaborations": _collaborations(paper) if paper.has_collaborations else [],
        "provenance": provenance,
    }
    return record, max([paper.modified_at, *stamps])


@router.get(
    "/{path:arxiv_id}",
    response={200: PaperDetailOut, **DETAIL_ERRORS},
    summary="Get one paper by any identifier form",
    operation_id="papers_api_get_paper",
)
def get_paper(request: HttpRequest, arxiv_id: str, response: HttpResponse):
    """The full record of a paper. ``arxiv_id`` may be new style (``2401.10241``), old style
    (``hep-th/9901001``, ``math.GT/0309136``), versioned (``2401.10241v2``), prefixed
    (``arXiv:2401.10241``) or an arxiv.org URL path. Deleted papers answer 410; a version
    the paper is known not to have (``v9`` of a paper with v1 and v2) answers 404.
    Two queries for most papers (:func:`paper_record`).
    """
    paper = paper_or_error(arxiv_id, RECORD_PAPER.first)
    record, changed = paper_record(paper)
    response["Last-Modified"] = http_date(changed.timestamp())
    # The API's own renderer (ninja's JSONRenderer, the default of wove.api) on ninja's
    # response, which already carries the content type: the bytes validation would give.
    response.content = RENDERER.render(request, record, response_status=200)
    return response
