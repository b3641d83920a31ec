"""Reads for researcher pages and for other apps' pages (authors linked to researchers)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote_plus

from django.core.cache import cache
from django.db import connections
from django.db.models import F, Q, QuerySet

from papers.models import Paper, PaperAuthor
from wove.bulk import int_array, unnested
from wove.compiled import CompiledQuery
from wove.counts import COUNT_CACHE_SECONDS
from wove.replicas import read_alias

from .models import Authorship, Researcher, SlotReview
from .name_index import listed_named, listed_named_count, listed_named_top
from .querysets import fold_text, name_words

MAX_MERGE_HOPS = 10
COAUTHORS_SHOWN = 12
SAME_NAME_SHOWN = 10
SORTS = {
    "newest": ("-submitted_at", "-arxiv_id"),
    "oldest": ("submitted_at", "arxiv_id"),
    "cited": (F("cited_by_count").desc(nulls_last=True), "-submitted_at", "-arxiv_id"),
}


def _slots_with_researchers(paper_id: int) -> QuerySet[PaperAuthor]:
    return (
        PaperAuthor.objects.filter(paper_id=paper_id)
        .select_related("authorship__researcher")
        .order_by("position")
    )


# authors_with_researchers' first slots by ``stop``, compiled (a paper id is never negative).
_FIRST_SLOTS: dict[int, CompiledQuery] = {}


def authors_with_researchers(
    paper: Paper, *, start: int = 0, stop: int | None = None
) -> list[tuple[PaperAuthor, Researcher | None]]:
    """The paper's author slots in order, each with its researcher (``None`` when unmatched).

    One query; ``start``/``stop`` slice the list by index (``[start:stop]``), so a page of a
    3,000-author paper loads only the slots it shows. A researcher an editor merged away is
    returned as is: its page answers 301 to the survivor. Used by the paper page and its
    full author list (``pages.selectors.authors_for_page``).
    """
    if start == 0 and stop is not None:
        # The paper page's first slots: its SQL written once per process for each ``stop``
        # (wove.compiled; issue 28).
        query = _FIRST_SLOTS.get(stop)
        if query is None:
            query = _FIRST_SLOTS.setdefault(
                stop, CompiledQuery(lambda pk: _slots_with_researchers(pk)[:stop], sentinel=-1)
            )
        slots = query.all(paper.pk)
    else:
        slots = _slots_with_researchers(paper.pk)[start:stop]
    out: list[tuple[PaperAuthor, Researcher | None]] = []
    for slot in slots:
        authorship = getattr(slot, "authorship", None)
        out.append((slot, authorship.researcher if authorship else None))
    return out


@dataclass(frozen=True)
class AuthorLine:
    """One author slot as plain values, for a paper's complete author list in JSON-LD and
    ``citation_author`` tags: ``researcher_url`` is the matched researcher's page path."""

    position: int
    name: str
    is_collaboration: bool
    affiliations: list[str]
    researcher_url: str | None


def author_lines(paper: Paper) -> list[AuthorLine]:
    """Every author slot of ``paper`` in order as :class:`AuthorLine` values: one query and
    no model instances, so a 3,000-author paper costs a few milliseconds (issue 21)."""
    rows = (
        PaperAuthor.objects.filter(paper=paper)
        .order_by("position")
        .values_list(
            "position",
            "name",
            "is_collaboration",
            "affiliations",
            "authorship__researcher_id",
            "authorship__researcher__slug",
        )
    )
    return [
        AuthorLine(
            position, name, is_collaboration, affiliations, Researcher.url_for(rid, slug) if rid else None
        )
        for position, name, is_collaboration, affiliations, rid, slug in rows
    ]


def author_lines_of(pairs: Iterable[tuple[PaperAuthor, Researcher | None]]) -> list[AuthorLine]:
    """:func:`author_lines` of slots already loaded, as :func:`authors_with_researchers`
    gives them (every slot of the paper, in order): no query."""
    return [
        AuthorLine(
            slot.position,
            slot.name,
            slot.is_collaboration,
            slot.affiliations,
            Researcher.url_for(researcher.pk, researcher.slug) if researcher is not None else None,
        )
        for slot, researcher in pairs
    ]


def researchers_matching(text: str) -> QuerySet[Researcher]:
    """Listed researchers (active, with papers) found by the one name search,
    :meth:`researchers.querysets.ResearcherQuerySet.search`: every word of ``text`` in the
    display name or a name variant, case- and accent-insensitive; most papers first. Blank
    ``text`` finds no one (a list without a query is :meth:`ResearcherQuerySet.listed`).
    The site's researcher list and search tab and the API's ``/researchers?q=`` and
    ``/search`` all read this, so they find the same researchers."""
    if not (text or "").strip():
        return Researcher.objects.none()
    return Researcher.objects.listed().search(text)


def researchers_counted(text: str) -> int:
    """``researchers_matching(text).count()``, from the name-word index alone
    (:func:`researchers.name_index.listed_named_count`): the search page's Researchers tab."""
    return listed_named_count(name_words(text or ""))


@dataclass(frozen=True)
class NameMatches:
    """A name search's matches: ``researchers`` (a queryset, in no order), ``count`` (exact,
    or from :func:`researchers_named` ``cap`` when ``capped``: more match); under the cap,
    the ``(id, paper count)`` of every match as ``papers_by_id``; the query's ``words``."""

    researchers: QuerySet[Researcher]
    count: int
    capped: bool
    papers_by_id: tuple[tuple[int, int], ...] = ()
    words: tuple[str, ...] = ()

    def most_papers(self, n: int) -> QuerySet[Researcher]:
        """The matches that can be among the ``n`` with most papers: those with at least as
        many papers as the ``n``-th most (ties kept whole), so that ordered by paper count,
        name and id they begin as every match does. Capped, read from the name-word index
        in paper-count order (:func:`researchers.name_index.listed_named_top`), or all of
        them where it cannot tell."""
        if self.capped:
            top = listed_named_top(list(self.words), n)
            return (
                self.researchers
                if top is None
                else Researcher.objects.filter(pk__in=unnested(int_array(top)))
            )
        if n >= len(self.papers_by_id):
            return self.researchers
        least = sorted((papers for _pk, papers in self.papers_by_id), reverse=True)[n - 1]
        kept = [pk for pk, papers in self.papers_by_id if papers >= least]
        return Researcher.objects.filter(pk__in=unnested(int_array(kept)))


# A name search with at least this many matches keeps their ids and paper counts
# (researchers_named): at a million papers, through the researchers' table, reading 450
# ("Ruiz") took about 2 ms warm, 2,959 ("Xu") 9 ms warm and 20-35 ms cold; from the
# name-word index a few ms, which the kept rows still spare.
NAME_ROWS_KEPT = 500


def researchers_named(text: str, *, cap: int) -> NameMatches:
    """:func:`researchers_matching` for a list ordered by paper count or by name, with its
    count (at most ``cap``): one read of up to ``cap + 1`` matching ids and paper counts first,
    from the name-word index alone (:func:`researchers.name_index.listed_named`; through the
    researchers' own table, a family name's first read took 20 ms at p95 and up to 150 ms
    of heap reads at 2.5 M papers, against 3 ms now).

    PostgreSQL cannot tell how many names hold a word (``LIKE '%word%'``); at a million papers
    it took a rare name ("lumsden", 35 researchers) for 1,877 and walked the paper-count
    index past most of a million rows for 25 of them (113 ms; issue 28). A search with at
    most ``cap`` matches is answered by those ids, sorted after reading them
    (:meth:`NameMatches.most_papers` narrows them for a page by paper count); one with more
    by its words' rows in paper-count order, or by the name search itself where a query
    word is in too many distinct words (its matches dense on the paper-count index)."""
    matching = researchers_matching(text)
    # What a common name's read found is kept a few minutes (wove.counts): that it has more
    # than ``cap`` matches ("Li": 24,165 names at 1 M, 35 ms to read 5,001 of them), or, from
    # NAME_ROWS_KEPT matches, their ids and paper counts ("Xu": 2,959 names, 9-35 ms to read
    # on every search). A researcher named since shows within those minutes, as counts do.
    key = "wove:names-read:" + hashlib.sha256(f"{cap}\x00{fold_text(text)}".encode()).hexdigest()
    rows = cache.get(key)
    words = tuple(name_words(text))
    if rows is True:
        return NameMatches(matching, cap, capped=True, words=words)
    if rows is None:
        rows = tuple(listed_named(list(words), cap + 1))
        if len(rows) > cap:
            cache.set(key, True, COUNT_CACHE_SECONDS)
            return NameMatches(matching, cap, capped=True, words=words)
        if len(rows) >= NAME_ROWS_KEPT:
            cache.set(key, rows, COUNT_CACHE_SECONDS)
    ids = int_array(pk for pk, _papers in rows)
    return NameMatches(
        Researcher.objects.filter(pk__in=unnested(ids)), len(rows), capped=False, papers_by_id=rows
    )


def researchers_listed_named(text: str, *, ids_read: int) -> NameMatches:
    """:func:`researchers_named` for a list that shows its exact total (the site's
    ``/researchers?q=``): counted first from the name-word index; the ids and paper counts
    read only when at most ``ids_read`` match, else ``capped`` with ``count`` exact and a
    page ranked by :meth:`NameMatches.most_papers` (no read of ``ids_read`` ids spent)."""
    count = researchers_counted(text)
    if count > ids_read:
        return NameMatches(researchers_matching(text), count, capped=True, words=tuple(name_words(text)))
    return researchers_named(text, cap=ids_read)


def researcher_resolve(pk: int) -> tuple[Researcher | None, bool]:
    """The researcher to show for ``pk``: ``(researcher, moved)``.

    Follows ``merged_into`` to the survivor (``moved`` is then True); ``(None, False)`` for
    an unknown id or a merge cycle longer than ``MAX_MERGE_HOPS``.
    """
    researcher = RESEARCHER_BY_ID.first(pk)
    moved = False
    hops = 0
    while researcher is not None and researcher.merged_into_id:
        hops += 1
        if hops > MAX_MERGE_HOPS:
            return None, False
        researcher = RESEARCHER_BY_ID.first(researcher.merged_into_id)
        moved = True
    return researcher, moved


# Every researcher page reads its record, and its unconfirmed links: compiled once per
# process (wove.compiled; issue 28). An id is never negative.
RESEARCHER_BY_ID = CompiledQuery(lambda pk: Researcher.objects.filter(pk=pk).order_by()[:1], sentinel=-1)
UNCONFIRMED_PAPER_IDS = CompiledQuery(
    lambda pk: Authorship.objects.filter(researcher_id=pk, unconfirmed=True).order_by().values("paper_id"),
    sentinel=-1,
)


def researcher_papers(researcher: Researcher) -> QuerySet[Paper]:
    """Public papers holding at least one of the researcher's authorships (distinct)."""
    return (
        Paper.objects.public()
        .filter(pk__in=researcher.authorships.values("paper_id"))
        .select_related("primary_category")
    )


def researcher_authorships(researcher: Researcher, paper_ids: list[int]) -> dict[int, Authorship]:
    """The researcher's authorship on each of ``paper_ids`` (``{paper id: authorship}``; the
    first by slot position where an editor joined two slots of one paper). One query."""
    out: dict[int, Authorship] = {}
    for authorship in researcher.authorships.filter(paper_id__in=paper_ids).order_by(
        "paper_id", "slot__position"
    ):
        out.setdefault(authorship.paper_id, authorship)
    return out


def researcher_unconfirmed_papers(researcher: Researcher) -> set[int]:
    """Ids of the papers the researcher holds through an unconfirmed link (the name alone,
    in a name block of several researchers: :mod:`researchers.evidence`). One query, on
    the partial index of unconfirmed authorships."""
    return {row["paper_id"] for row in UNCONFIRMED_PAPER_IDS.values(researcher.pk)}


@dataclass
class Bar:
    """One labelled count with its bar width in percent of the largest (0..100)."""

    label: str
    count: int
    width: float
    href: str = ""
    current: bool = False


@dataclass
class Node:
    """A co-author node of the network picture (SVG user units)."""

    researcher_id: int
    name: str
    url: str
    shared: int
    x: float
    y: float
    r: float
    label_x: float = 0.0
    label_anchor: str = "middle"
    label: str = ""  # the name as drawn: cut to LABEL_CHARS characters


@dataclass
class Network:
    """The co-author network: the centre, the co-authors around it, and links among them."""

    width: int
    height: int
    cx: float
    cy: float
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[float, float, float, float, float]] = field(default_factory=list)
    spokes: list[tuple[float, float, float]] = field(default_factory=list)


@dataclass
class YearBar:
    """Papers and citations of one submission year; ``width`` is the papers bar's length in
    percent of the busiest year's (0-100, the unit of the bar's SVG viewBox)."""

    year: int
    papers: int
    citations: int
    width: float


def make_bars(counts: list[tuple[str, int]], href=None, current: str = "") -> list[Bar]:
    """:class:`Bar` per ``(label, count)``, widths in percent of the largest count; ``href(label)``
    gives each bar's link, ``current`` marks the selected label. No query."""
    top = max((c for _l, c in counts), default=0) or 1
    return [
        Bar(label, count, round(100 * count / top, 1), href(label) if href else "", label == current)
        for label, count in counts
    ]


@dataclass(frozen=True)
class AuthoredPaper:
    """One of a researcher's authorships on a public paper, with the paper's facts the
    researcher page aggregates (:func:`authored_paper_rows`)."""

    paper_id: int
    position: int  # 1-based author position of the researcher's slot
    authors: int  # the paper's author slots, collaborations included
    complete: bool  # every person slot of the paper is matched to a researcher
    primary_category: str | None
    cited_by_count: int | None
    submitted_at: datetime | None


def authored_paper_rows(researcher: Researcher) -> list[AuthoredPaper]:
    """The researcher's authorships on public papers (not deleted, not hidden), one
    :class:`AuthoredPaper` each: a paper appears twice where an editor joined two of its
    slots to one person. One query; the researcher page's counts, positions, fields,
    citations and years are all read from these rows (:mod:`researchers.summaries`)."""
    return authored_paper_rows_many([researcher.pk]).get(researcher.pk, [])


def authored_paper_rows_many(ids: list[int]) -> dict[int, list[AuthoredPaper]]:
    """``{researcher id: [AuthoredPaper, ...]}``: :func:`authored_paper_rows` of each of
    ``ids`` (a researcher with no public paper is absent). One query."""
    sql = """
        SELECT a.researcher_id, a.paper_id,
               (SELECT s.position FROM papers_paperauthor s WHERE s.id = a.slot_id),
               c.n, c.unmatched = 0 AS complete,
               p.primary_category_id, p.cited_by_count, p.submitted_at
          FROM researchers_authorship a
         CROSS JOIN LATERAL (
               SELECT primary_category_id, cited_by_count, submitted_at FROM papers_paper p
                WHERE p.id = a.paper_id AND NOT p.deleted AND NOT p.hidden OFFSET 0
         ) p
         CROSS JOIN LATERAL (
               SELECT count(*) AS n,
                      count(*) FILTER (WHERE NOT x.is_collaboration AND z.id IS NULL) AS unmatched
                 FROM papers_paperauthor x
                 LEFT JOIN researchers_authorship z ON z.slot_id = x.id
                WHERE x.paper_id = a.paper_id
         ) c
         WHERE a.researcher_id = ANY(%s)
    """
    # Per paper through the (paper, position) and slot indexes: as NOT EXISTS, PostgreSQL
    # hashed every author slot of the archive for a researcher with thousands of papers
    # (1.5 s at a million papers; issue #11). The slot's position and the paper are read by
    # primary key (a scalar subquery, a LATERAL kept whole): as joins, a summaries batch of
    # 500 hashed every author slot of the archive (issue 29).
    out: dict[int, list[AuthoredPaper]] = {}
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(sql, [ids])
        for researcher_id, *row in cursor.fetchall():
            out.setdefault(researcher_id, []).append(AuthoredPaper(*row))
    return out


def position_counts(
    researcher: Researcher, rows: list[AuthoredPaper] | None = None
) -> tuple[list[Bar], int, int]:
    """First/middle/last author counts over papers where every person slot was matched.

    Returns ``(bars, K, N)``: K papers with every non-collaboration slot matched, N papers
    in all. A sole author counts as first. One query, none when the researcher's
    :func:`authored_paper_rows` are given.
    """
    if rows is None:
        rows = authored_paper_rows(researcher)
    papers = {r.paper_id for r in rows}
    counts: Counter[str] = Counter()
    complete_papers: set[int] = set()
    for row in rows:
        if not row.complete:
            continue
        complete_papers.add(row.paper_id)
        if row.position == 1:
            counts["first author"] += 1
        elif row.position == row.authors:
            counts["last author"] += 1
        else:
            counts["middle author"] += 1
    order = ["first author", "middle author", "last author"]
    bars = make_bars([(label, counts[label]) for label in order if counts[label]])
    return bars, len(complete_papers), len(papers)


def same_name(researcher: Researcher) -> list[Researcher]:
    """Other active researcher records with this display name (or holding it as a variant),
    most papers first; at most ``SAME_NAME_SHOWN``."""
    name = researcher.display_name
    return list(
        Researcher.objects.active()
        .exclude(pk=researcher.pk)
        .filter(Q(display_name__iexact=name) | Q(name_variants__contains=[name]))
        .order_by("-paper_count", "id")[:SAME_NAME_SHOWN]
    )


# Co-author labels: names cut to LABEL_CHARS characters; LABEL_UNIT is a generous width of one
# character of the 9-unit sans label (researchers.css), to make room for the longest label.
LABEL_CHARS = 22
LABEL_UNIT = 5.4
LABEL_GAP = 3.0


def network_label(name: str) -> str:
    """``name`` cut to :data:`LABEL_CHARS` characters, the last one an ellipsis when cut."""
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "\u2026"


def _label_extent(node: Node) -> tuple[float, float]:
    """Leftmost and rightmost x (SVG units) of ``node``'s label as drawn, estimated."""
    width = len(node.label) * LABEL_UNIT
    if node.label_anchor == "start":
        return node.label_x, node.label_x + width
    if node.label_anchor == "end":
        return node.label_x - width, node.label_x
    return node.label_x - width / 2, node.label_x + width / 2


def network_layout(coauthors: list[list], links: list[list], *, size: int = 320) -> Network | None:
    """Lay out a summary's co-author rows (:func:`researchers.summary_reads.coauthor_rows_many`)
    on a circle around the researcher: node radius grows with shared papers, chords join
    co-authors who wrote one of their papers together. Coordinates are SVG user units in a
    box ``size`` high and ``size`` wide, or wider where the labels beside the ring need it
    (every label is drawn whole, never clipped); ``None`` without co-authors.
    No query."""
    if not coauthors:
        return None
    net = Network(width=size, height=size, cx=size / 2, cy=size / 2)
    ring = size / 2 - 62
    top = max(r[3] for r in coauthors)
    for i, (rid, name, slug, shared) in enumerate(coauthors):
        angle = -math.pi / 2 + 2 * math.pi * i / len(coauthors)
        x = net.cx + ring * math.cos(angle)
        y = net.cy + ring * math.sin(angle)
        cos = math.cos(angle)
        anchor = "middle" if abs(cos) < 0.3 else ("start" if cos > 0 else "end")
        radius = 4 + 6 * shared / top
        side = 1 if anchor == "start" else -1 if anchor == "end" else 0
        net.nodes.append(
            Node(
                researcher_id=rid,
                name=name,
                url=f"/researchers/{rid}-{slug}",
                shared=shared,
                x=x,
                y=round(y, 1),
                r=round(radius, 1),
                label_x=x + (radius + LABEL_GAP) * side,
                label_anchor=anchor,
                label=network_label(name),
            )
        )
    # Widen the box on each side by what the labels need, then move everything right by the
    # left margin: the ring stays centred and no label runs past the picture's edge.
    extents = [_label_extent(n) for n in net.nodes]
    left = max(0.0, LABEL_GAP - min(lo for lo, _hi in extents))
    right = max(0.0, max(hi for _lo, hi in extents) + LABEL_GAP - size)
    margin = math.ceil(max(left, right))
    net.width = size + 2 * margin
    net.cx += margin
    for node, (_rid, _name, _slug, shared) in zip(net.nodes, coauthors, strict=True):
        node.x = round(node.x + margin, 1)
        node.label_x = round(node.label_x + margin, 1)
        net.spokes.append((node.x, node.y, round(0.8 + 2.2 * shared / top, 2)))
    where = {n.researcher_id: n for n in net.nodes}
    for a, b, count in links:
        if a in where and b in where:
            na, nb = where[a], where[b]
            net.edges.append((na.x, na.y, nb.x, nb.y, round(0.6 + min(count, 5) * 0.3, 2)))
    return net


def year_rows(papers: Iterable[tuple[datetime | None, int | None]]) -> list[list[int]]:
    """``[[year, papers, citations], ...]`` per submission year (UTC) of ``papers``, given as
    ``(submitted_at, cited_by_count)`` pairs (one per paper), oldest first, citations summed
    over that year's papers; only years with papers. No query."""
    per_year: dict[int, list[int]] = {}
    for submitted_at, cites in papers:
        if submitted_at is None:
            continue
        entry = per_year.setdefault(submitted_at.astimezone(UTC).year, [0, 0])
        entry[0] += 1
        entry[1] += cites or 0
    return [[year, n, c] for year, (n, c) in sorted(per_year.items())]


def years_layout(rows: list[list[int]]) -> list[YearBar]:
    """One bar per year for :func:`year_rows`, oldest first, each ``width`` the year's papers
    in percent of the busiest year's; years without papers between the first and the last
    are listed with 0 (a gap in a career shows). No query."""
    per_year = {year: (n, c) for year, n, c in rows}
    if not per_year:
        return []
    top = max(n for n, _ in per_year.values()) or 1
    out = []
    for year in range(min(per_year), max(per_year) + 1):
        n, c = per_year.get(year, (0, 0))
        out.append(YearBar(year, n, c, round(100 * n / top, 1)))
    return out


def slots_for_review() -> list[SlotReview]:
    """Author slots the matcher left for an editor (ambiguous between researchers), newest
    first, with their slot and paper loaded; the slots attached since are left out."""
    return list(
        SlotReview.objects.filter(slot__authorship__isnull=True)
        .select_related("slot", "slot__paper")
        .order_by("-created_at", "slot_id")
    )


def researcher_example(examples: dict) -> dict[str, str] | None:
    """The researcher URL examples name (:func:`papers.examples.url_examples`): the listed
    researcher with the most papers, as ``{"id", "name", "query" (the name, URL-encoded for
    ``?q=``), "url"}``; ``None`` when no researcher is listed. One query (the list's index)."""
    researcher = Researcher.objects.listed().only("display_name", "slug").first()
    if researcher is None:
        return None
    return {
        "id": str(researcher.pk),
        "name": researcher.display_name,
        "query": quote_plus(researcher.display_name),
        "url": researcher.get_absolute_url(),
    }


# The researchers of each paper for the search index (papers.search_index.register_linked_ids):
# every researcher holding one of the paper's authorships (a merge moves them to the survivor).
PAPER_RESEARCHERS_SQL = """
    SELECT paper_id, array_agg(DISTINCT researcher_id)
      FROM researchers_authorship
     WHERE paper_id = ANY(%s::bigint[])
     GROUP BY paper_id
"""
