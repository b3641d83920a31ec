"""Reads for institution pages and for the researcher pages that show institutions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, QuerySet
from django.db.models.functions import ExtractYear
from django.urls import reverse

from papers.affiliations import normalize
from papers.models import Paper, PaperAuthor
from researchers.models import Authorship, Researcher
from wove.backlog import Backlog
from wove.bulk import int_array, text_array, unnested
from wove.compiled import CompiledQuery
from wove.counts import count_cached

from .models import AuthorAffiliation, Institution, InstitutionName, InstitutionRelationship
from .ror import InvalidRorId, normalize_ror_id

# -- Resolution of /institutions/<key> --------------------------------------------------


@dataclass
class Resolution:
    """What an ``/institutions/<key>`` URL names: one institution, several, or none."""

    institution: Institution | None = None
    candidates: list[Institution] | None = None


def institution_resolve(key: str, *, follow_successors: bool = False) -> Resolution:
    """Resolve an internal id (``42``), a ROR ID in any accepted form
    (``https://ror.org/03yrm5c26``, ``ror.org/03yrm5c26``, ``03yrm5c26``) or a name
    (display name, label, alias or acronym, compared normalised) to institutions.

    A name several records carry names the active ones when there are any: a withdrawn
    or inactive namesake never makes it ambiguous. ``follow_successors``: a ROR ID or a
    name of an inactive or withdrawn record with an active successor
    (``Institution.superseded_by``) resolves to that successor (the pages' 301s); an
    internal id always resolves to its own record. Returns a :class:`Resolution` with
    ``institution`` when exactly one fits, with ``candidates`` (sorted by name) when a
    name fits several, and empty when none.
    """
    key = (key or "").strip()
    if not key:
        return Resolution()
    if key.isdigit() and not key.startswith("0"):  # ROR IDs always start with 0
        return Resolution(institution=Institution.objects.filter(pk=int(key)).first())
    try:
        ror_id = normalize_ror_id(key)
    except InvalidRorId:
        ror_id = None
    if ror_id:
        found = Institution.objects.select_related("superseded_by").filter(ror_id=ror_id).first()
        if found:
            return Resolution(institution=_followed(found) if follow_successors else found)
    normalized = normalize(key.replace("-", " "))
    if not normalized:
        return Resolution()
    matches = list(
        Institution.objects.filter(
            pk__in=InstitutionName.objects.filter(normalized=normalized).values("institution_id")
        )
        .select_related("superseded_by")
        .order_by("name", "pk")
    )
    if follow_successors:
        matches = sorted({m.pk: m for m in map(_followed, matches)}.values(), key=lambda i: (i.name, i.pk))
    if len(matches) > 1:
        matches = [m for m in matches if m.is_active] or matches
    if len(matches) == 1:
        return Resolution(institution=matches[0])
    if len(matches) > 1:
        return Resolution(candidates=matches)
    return Resolution()


def _followed(institution: Institution) -> Institution:
    """The active successor of an inactive or withdrawn record, else the record itself."""
    return institution.superseded_by or institution


# -- The institution page ---------------------------------------------------------------


@dataclass(slots=True)
class RelatedRecord:
    """A loaded institution as a relation link shows it: its page, name and status (a
    research organisation names a thousand others, CNRS 1,038: tuples, not model instances;
    issue 28)."""

    pk: int
    ror_id: str
    name: str
    slug: str
    status: str

    def get_absolute_url(self) -> str:
        """The institution's canonical page (:meth:`Institution.get_absolute_url`)."""
        return reverse("institutions:detail", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def is_active(self) -> bool:
        return self.status == Institution.Status.ACTIVE


@dataclass(slots=True)
class RelatedInstitution:
    """A relationship target: the loaded institution when there is one, else ROR's label."""

    type: str
    ror_id: str
    label: str
    institution: RelatedRecord | None

    @property
    def ror_url(self) -> str:
        return "https://ror.org/" + self.ror_id


# The fields of a related institution that its link on a page reads (RelatedRecord's).
RELATED_FIELDS = ("id", "ror_id", "name", "slug", "status")


# The three reads of institution_relations, compiled once per process (wove.compiled): writing
# them was most of their cost on an institution page (issue 28). No ORDER BY: the lists are
# sorted in Python (the model's ordering joins the institution).
_NO_ROR_ID = "\x00"  # a ROR ID nothing holds
RELATIONSHIPS = CompiledQuery(
    lambda pk: (
        InstitutionRelationship.objects.filter(institution_id=pk).order_by().values("type", "ror_id", "label")
    ),
    sentinel=-1,
)
SUCCESSOR_SOURCES = CompiledQuery(
    lambda ror_id: (
        InstitutionRelationship.objects.filter(ror_id=ror_id, type=InstitutionRelationship.Type.SUCCESSOR)
        .order_by()
        .values(*(f"institution__{field}" for field in RELATED_FIELDS))
    ),
    sentinel=_NO_ROR_ID,
)
# One array literal for the targets (wove.bulk.text_array): a thousand placeholders, or a list
# psycopg binds element by element, cost more than the query takes to run.
RELATED_RECORDS = CompiledQuery(
    lambda ror_ids: (
        Institution.objects.filter(ror_id__in=unnested(ror_ids, "text")).order_by().values(*RELATED_FIELDS)
    ),
    sentinel=text_array([_NO_ROR_ID]),
)


def institution_relations(institution: Institution) -> dict[str, list[RelatedInstitution]]:
    """The record's relationships by type (``parent``, ``child``, ``related``, ``successor``,
    ``predecessor``), each target joined to its loaded institution as a
    :class:`RelatedRecord` (three queries, whatever the number of relationships).

    Also adds, as ``predecessor``, loaded records that name this one as their successor
    when it does not list them itself (ROR relationships are not always symmetric).
    """
    rels = [(row["type"], row["ror_id"], row["label"]) for row in RELATIONSHIPS.values(institution.pk)]
    inbound = [tuple(row.values()) for row in SUCCESSOR_SOURCES.values(institution.ror_id)]
    targets = sorted({ror_id for _type, ror_id, _label in rels})
    loaded = (
        {row["ror_id"]: RelatedRecord(*row.values()) for row in RELATED_RECORDS.values(text_array(targets))}
        if targets
        else {}
    )
    out: dict[str, list[RelatedInstitution]] = {}
    for rel_type, ror_id, label in rels:
        out.setdefault(rel_type, []).append(RelatedInstitution(rel_type, ror_id, label, loaded.get(ror_id)))
    listed = {r.ror_id for r in out.get("predecessor", [])}
    for row in inbound:
        source = RelatedRecord(*row)
        if source.ror_id not in listed:
            out.setdefault("predecessor", []).append(
                RelatedInstitution("predecessor", source.ror_id, source.name, source)
            )
    for items in out.values():
        # Loaded institutions first (they have pages here), then ROR's labels.
        items.sort(
            key=lambda r: (
                r.institution is None,
                (r.institution.name if r.institution else r.label).casefold(),
                r.ror_id,
            )
        )
    return out


def institution_names(institution: Institution) -> dict[str, list[InstitutionName]]:
    """Names other than the display name, by kind: ``aliases``, ``acronyms``, ``labels``."""
    out: dict[str, list[InstitutionName]] = {"aliases": [], "acronyms": [], "labels": []}
    for name in institution.names.all():
        if name.kind == InstitutionName.Kind.ALIAS:
            out["aliases"].append(name)
        elif name.kind == InstitutionName.Kind.ACRONYM:
            out["acronyms"].append(name)
        elif name.kind == InstitutionName.Kind.LABEL and name.value != institution.name:
            out["labels"].append(name)
    return out


def institution_papers(institution: Institution | int) -> QuerySet[Paper]:
    """Public papers with at least one author slot linked to ``institution`` (or the
    institution of that id), newest first."""
    slots = AuthorAffiliation.objects.filter(institution=institution).values("slot__paper_id")
    return Paper.objects.public().filter(pk__in=slots).select_related("primary_category").newest()


# The first page of an institution's papers from the ids its summary keeps, compiled once per
# process (wove.compiled; issue 28): still filtered as public and as linked, since a paper may
# have been hidden or unlinked after the summary was written.
PAPERS_PAGE_SIZE = 24  # papers a page of an institution page lists
_KEPT_FIRST_PAGE = CompiledQuery(
    lambda pk, ids: institution_papers(pk).as_items().filter(pk__in=unnested(ids))[:PAPERS_PAGE_SIZE],
    sentinels=(-1, int_array([-1])),
)


def institution_first_page(institution_id: int, newest_ids: list[int]) -> list[Paper]:
    """The first :data:`PAPERS_PAGE_SIZE` papers of :func:`institution_papers`, newest first,
    read among ``newest_ids`` (the summary's kept ids, :mod:`institutions.summaries`), with
    the list item's columns (:meth:`~papers.querysets.PaperQuerySet.as_items`)."""
    return _KEPT_FIRST_PAGE.all(institution_id, int_array(newest_ids)) if newest_ids else []


def institution_paper_facts(institution: Institution) -> list[tuple[int, str | None, str | None]]:
    """``(paper id, primary category code, category name)`` of every public paper of
    ``institution`` (:func:`institution_papers`), newest first. One query: a small
    institution's page reads its count, newest papers and fields from these rows."""
    rows = institution_papers(institution).values_list("pk", "primary_category_id", "primary_category__name")
    return list(rows)


def fields_from_facts(
    facts: list[tuple[int, str | None, str | None]], *, limit: int = 12
) -> list[dict[str, Any]]:
    """:func:`institution_fields` counted from :func:`institution_paper_facts` rows, in
    Python: same shape, same order (most papers first, then by code)."""
    counted = Counter((code, name) for _pk, code, name in facts if code)
    rows = sorted(counted.items(), key=lambda item: (-item[1], item[0][0]))[:limit]
    return [{"code": code, "name": name, "count": n} for (code, name), n in rows]


def institution_fields(institution: Institution, *, limit: int = 12) -> list[dict[str, Any]]:
    """The arXiv primary categories of the institution's papers with counts, most first:
    ``[{"code": "astro-ph", "name": "Astrophysics", "count": 3}, ...]``."""
    rows = (
        institution_papers(institution)
        .exclude(primary_category=None)
        .order_by()
        .values(code=F("primary_category_id"), name=F("primary_category__name"))
        .annotate(count=Count("pk"))
        .order_by("-count", "code")[:limit]
    )
    return list(rows)


# -- Researchers (through researchers.Authorship) -----------------------------------------


@dataclass
class ResearcherCount:
    """A researcher linked to an institution and the number of its papers they share."""

    researcher: Researcher
    papers: int


def institution_researcher_rows(institution: Institution, *, limit: int | None = 50) -> list[list[int]]:
    """``[[researcher_id, papers], ...]``: researchers (not merged away) whose author slots
    are linked to ``institution``, with their distinct papers, most papers first then by
    name; at most ``limit`` (``None``: all). JSON-able, so institution summaries can keep
    it. One query."""
    rows = (
        Authorship.objects.filter(
            slot__institution_links__institution=institution, researcher__merged_into__isnull=True
        )
        .values("researcher_id")
        .annotate(papers=Count("paper", distinct=True))
        .order_by("-papers", "researcher__display_name", "researcher_id")[:limit]
    )
    return [[row["researcher_id"], row["papers"]] for row in rows]


def institution_researcher_count(institution: Institution) -> int:
    """Researchers (not merged away) with an author slot linked to ``institution``: the
    page's "Researchers (N)" and the list's "N researchers" (which counts the same way,
    :meth:`~institutions.querysets.InstitutionQuerySet.with_counts`). One query."""
    return (
        Authorship.objects.filter(
            slot__institution_links__institution=institution, researcher__merged_into__isnull=True
        )
        .values("researcher_id")
        .distinct()
        .count()
    )


# The researchers an institution page lists, compiled once per process (wove.compiled), their
# ids one array literal (wove.bulk.int_array). The page shows a link and a name: the rest of a
# researcher row (name variants, folded names) is left unread; no ORDER BY, the rows come in
# the kept order.
LISTED_RESEARCHERS = CompiledQuery(
    lambda ids: (
        Researcher.objects.filter(merged_into__isnull=True, pk__in=unnested(ids))
        .only("id", "display_name", "slug")
        .order_by()
    ),
    sentinel=int_array([-1]),
)


def institution_researchers_from_rows(rows: list[list[int]]) -> list[ResearcherCount]:
    """:class:`ResearcherCount` for :func:`institution_researcher_rows`, in their order;
    researchers merged away or deleted since are dropped. One query."""
    found = LISTED_RESEARCHERS.all(int_array(pk for pk, _n in rows)) if rows else []
    researchers = {researcher.pk: researcher for researcher in found}
    return [ResearcherCount(researchers[pk], n) for pk, n in rows if pk in researchers]


def institution_researchers(institution: Institution, *, limit: int = 50) -> list[ResearcherCount]:
    """Researchers (not merged away) whose author slots are linked to ``institution``, with
    the number of distinct papers, most papers first then by name; at most ``limit``.
    Two queries."""
    return institution_researchers_from_rows(institution_researcher_rows(institution, limit=limit))


@dataclass
class InstitutionYears:
    """An institution a researcher was seen at: the years of those papers and their count."""

    institution: Institution
    first_year: int | None
    last_year: int | None
    papers: int

    @property
    def years(self) -> str:
        """``"2019"`` or ``"2015–2021"`` (en dash), ``""`` when no paper has a date."""
        if self.first_year is None:
            return ""
        if self.first_year == self.last_year:
            return str(self.first_year)
        return f"{self.first_year}–{self.last_year}"


def institution_year_rows(researcher: Researcher | int) -> list[list]:
    """``[[institution_id, first_year, last_year, papers], ...]`` for the institutions a
    researcher's author slots are linked to: first and last submission year (UTC; ``None``
    when no paper has a date) and distinct papers. Deleted papers do not count. JSON-able,
    so researcher summaries can keep it. One query."""
    researcher_pk = getattr(researcher, "pk", researcher)
    return institution_year_rows_many([researcher_pk]).get(researcher_pk, [])


def institution_year_rows_many(researcher_pks: list[int]) -> dict[int, list[list]]:
    """``{researcher pk: rows}``: :func:`institution_year_rows` of each researcher (absent:
    no linked institution), in one query, rows in the same order."""
    rows = (
        AuthorAffiliation.objects.filter(
            slot__authorship__researcher_id__in=researcher_pks, slot__paper__deleted=False
        )
        .values("slot__authorship__researcher_id", "institution_id")
        .annotate(
            first_year=Min(ExtractYear("slot__paper__submitted_at")),
            last_year=Max(ExtractYear("slot__paper__submitted_at")),
            papers=Count("slot__paper", distinct=True),
        )
        .order_by("slot__authorship__researcher_id", "institution_id")
    )
    out: dict[int, list[list]] = {}
    for r in rows:
        row = [r["institution_id"], r["first_year"], r["last_year"], r["papers"]]
        out.setdefault(r["slot__authorship__researcher_id"], []).append(row)
    return out


def institution_years(rows: list[list]) -> list[InstitutionYears]:
    """:class:`InstitutionYears` for :func:`institution_year_rows`, most recent first, then
    most papers, then name; rows of institutions no longer loaded are dropped. One query."""
    institutions = Institution.objects.order_by().in_bulk([r[0] for r in rows])
    out = [
        InstitutionYears(institutions[pk], first, last, papers)
        for pk, first, last, papers in rows
        if pk in institutions
    ]
    out.sort(key=lambda i: (-(i.last_year or 0), -i.papers, i.institution.name.casefold()))
    return out


def institutions_for_researcher(researcher: Researcher | int) -> list[InstitutionYears]:
    """The institutions a researcher's author slots are linked to, with the years seen
    (first and last submission year of those papers, UTC) and the number of papers; most
    recent first, then most papers, then name. ``researcher`` is a
    ``researchers.Researcher`` or its pk. Deleted papers do not count. Two queries."""
    return institution_years(institution_year_rows(researcher))


# -- The list ------------------------------------------------------------------------------


def slot_institution_names(slot_ids: list[int]) -> dict[int, dict[str, str]]:
    """``{slot id: {ror_id: institution name}}`` for the author slots ``slot_ids`` (slots
    without a link left out): the institution evidence of an authorship
    (:mod:`researchers.evidence`, which asks through its registry). One query."""
    out: dict[int, dict[str, str]] = {}
    # One array parameter: a run's tens of thousands of slots as placeholders cost seconds.
    wanted = unnested(int_array(slot_ids))
    rows = AuthorAffiliation.objects.filter(slot_id__in=wanted).values_list(
        "slot_id", "institution__ror_id", "institution__name"
    )
    for slot_id, ror_id, name in rows:
        out.setdefault(slot_id, {})[ror_id] = name
    return out


def institution_list(*, q: str = "", country: str = "") -> QuerySet[Institution]:
    """Institutions for ``/institutions``: a name search (any name kind, accents and case
    folded) and an ISO country filter; each annotated with ``paper_count`` and
    ``researcher_count`` (:meth:`~institutions.querysets.InstitutionQuerySet.with_counts`,
    the numbers the institution's page shows), ordered by name, with ``superseded_by`` loaded.

    Without a search, a withdrawn or inactive record that leads to an active one
    (``superseded_by``) is left out (:meth:`~institutions.querysets.InstitutionQuerySet.listed`):
    its links, follows and URLs all go to that record, so listing both shows one institution
    twice. A search still finds it (its name may be one the successor does not carry), and
    the row names the successor."""
    queryset = Institution.objects.select_related("superseded_by")
    queryset = queryset.search(q) if q else queryset.listed()
    if country:
        queryset = queryset.in_country(country)
    return queryset.with_counts().order_by("name", "pk")


def institution_counts() -> dict[str, int]:
    """``{"listed": institutions /institutions lists, "records": ROR records loaded}``: the
    home page says both ("38 institutions (40 ROR records)" on the sample: two inactive
    records lead to an active successor and are not listed). Two counts, cached as
    :func:`wove.counts.count_cached` caches."""
    return {
        "listed": count_cached(Institution.objects.listed()),
        "records": count_cached(Institution.objects.all()),
    }


def institution_example(examples: dict[str, Any]) -> dict[str, str] | None:
    """The institution URL examples name (:func:`papers.examples.url_examples`): the listed,
    active institution with linked authors and the lowest id, as ``{"ror_id", "name",
    "url"}`` (``url`` is ``/institutions/<ROR ID>``, which answers 301 to its page); ``None``
    when no institution has a linked author. One query (the author-link index)."""
    institution = (
        Institution.objects.listed()
        .active()
        .filter(Exists(AuthorAffiliation.objects.filter(institution=OuterRef("pk"))))
        .order_by("pk")
        .only("ror_id", "name")
        .first()
    )
    if institution is None:
        return None
    return {
        "ror_id": institution.ror_id,
        "name": institution.name,
        "url": f"/institutions/{institution.ror_id}",
    }


def institution_countries() -> list[tuple[str, str]]:
    """``(code, name)`` of every country with a loaded institution, by name."""
    rows = (
        Institution.objects.exclude(country_code="")
        .values_list("country_code", "country_name")
        .distinct()
        .order_by("country_name", "country_code")
    )
    return list(rows)


__all__ = [
    "PAPER_INSTITUTIONS_SQL",
    "RelatedInstitution",
    "RelatedRecord",
    "Resolution",
    "fields_from_facts",
    "institution_countries",
    "institution_counts",
    "institution_example",
    "institution_fields",
    "institution_list",
    "institution_names",
    "institution_paper_facts",
    "institution_papers",
    "institution_relations",
    "institution_researcher_rows",
    "institution_researcher_count",
    "institution_researchers",
    "institution_researchers_from_rows",
    "institution_resolve",
    "institution_year_rows",
    "institution_year_rows_many",
    "institution_years",
    "institutions_for_researcher",
]


# -- The pipeline's affiliations stage ------------------------------------------------------


def arxiv_string_links(slot) -> QuerySet[AuthorAffiliation]:
    """The links matched from a slot's arXiv affiliation strings (``slot``: a slot, its id, or
    ``OuterRef("pk")`` inside a query over slots)."""
    return AuthorAffiliation.objects.filter(
        slot=slot,
        source=AuthorAffiliation.Source.STRING_MATCH,
        string_origin=AuthorAffiliation.StringOrigin.ARXIV,
    )


def affiliations_pending() -> QuerySet[PaperAuthor]:
    """Author slots of live papers the affiliations stage waits for: strings never matched,
    or strings other than those last matched (a new version; every slot after a registry
    change, which clears the marks). A slot with no strings, no mark and no arXiv string
    link needs nothing."""
    # No mark: strings to match, or (strings gone, marks cleared) string links to remove.
    never = Q(affiliation_mark__isnull=True) & (
        ~Q(affiliations=[]) | Exists(arxiv_string_links(OuterRef("pk")))
    )
    changed = Q(affiliation_mark__isnull=False) & ~Q(affiliation_mark__affiliations=F("affiliations"))
    return PaperAuthor.objects.filter(paper__deleted=False).filter(never | changed)


def affiliations_backlog() -> Backlog:
    """Papers with slots :func:`affiliations_pending` holds, and the oldest one's change time."""
    row = affiliations_pending().aggregate(
        papers=Count("paper_id", distinct=True), oldest=Min("paper__modified_at")
    )
    return Backlog(waiting=row["papers"], unit="papers", oldest=row["oldest"])


# The institutions of each paper for the search index (papers.search_index.register_linked_ids):
# every institution linked to one of the paper's author slots.
PAPER_INSTITUTIONS_SQL = """
    SELECT s.paper_id, array_agg(DISTINCT f.institution_id)
      FROM papers_paperauthor s
      JOIN institutions_authoraffiliation f ON f.slot_id = s.id
     WHERE s.paper_id = ANY(%s::bigint[])
     GROUP BY s.paper_id
"""
