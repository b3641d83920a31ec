"""Reads for researcher pages and for other apps' pages (authors linked to researchers)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection
from django.db.models import F, Q, QuerySet

from institutions.selectors import institutions_for_researcher
from papers.models import Paper, PaperAuthor
from wove.counts import cached_when_large

from .models import IdentitySource, MatchMethod, Researcher

MAX_MERGE_HOPS = 10
COAUTHORS_SHOWN = 12
SAME_NAME_SHOWN = 10
# Papers from which a researcher page's aggregates are cached (see researcher_profile).
PROFILE_CACHE_MIN = 100
SORTS = {
    "newest": ("-submitted_at", "-arxiv_id"),
    "oldest": ("submitted_at", "arxiv_id"),
    "cited": (F("cited_by_count").desc(nulls_last=True), "-submitted_at", "-arxiv_id"),
}


def authors_with_researchers(paper: Paper) -> list[tuple[PaperAuthor, Researcher | None]]:
    """The paper's author slots in order, each with its researcher (``None`` when unmatched).

    One query. A researcher an editor merged away is returned as is: its page answers 301
    to the survivor. Used by the paper page (``papers.selectors.authors_for_page``).
    """
    slots = (
        PaperAuthor.objects.filter(paper=paper).select_related("authorship__researcher").order_by("position")
    )
    out: list[tuple[PaperAuthor, Researcher | None]] = []
    for slot in slots:
        authorship = getattr(slot, "authorship", None)
        out.append((slot, authorship.researcher if authorship else None))
    return out


def researcher_resolve(pk: int) -> tuple[Researcher | None, bool]:
    """The researcher to show for ``pk``: ``(researcher, moved)``.

    Follows ``merged_into`` to the survivor (``moved`` is then True); ``(None, False)`` for
    an unknown id or a merge cycle longer than ``MAX_MERGE_HOPS``.
    """
    researcher = Researcher.objects.filter(pk=pk).first()
    moved = False
    hops = 0
    while researcher is not None and researcher.merged_into_id:
        hops += 1
        if hops > MAX_MERGE_HOPS:
            return None, False
        researcher = Researcher.objects.filter(pk=researcher.merged_into_id).first()
        moved = True
    return researcher, moved


def researcher_papers(researcher: Researcher) -> QuerySet[Paper]:
    """Public papers holding at least one of the researcher's authorships (distinct)."""
    return (
        Paper.objects.public()
        .filter(pk__in=researcher.authorships.values("paper_id"))
        .select_related("primary_category")
    )


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
    """Papers and citations of one submission year, with bar geometry (SVG user units)."""

    year: int
    papers: int
    citations: int
    x: float
    paper_y: float
    paper_h: float
    cite_y: float
    cite_h: float


def _bars(counts: list[tuple[str, int]], href=None, current: str = "") -> list[Bar]:
    top = max((c for _l, c in counts), default=0) or 1
    return [
        Bar(label, count, round(100 * count / top, 1), href(label) if href else "", label == current)
        for label, count in counts
    ]


def position_counts(researcher: Researcher) -> tuple[list[Bar], int, int]:
    """First/middle/last author counts over papers where every person slot was matched.

    Returns ``(bars, K, N)``: K papers with every non-collaboration slot matched, N papers
    in all. A sole author counts as first. One query.
    """
    sql = """
        SELECT a.paper_id, s.position, c.n, c.unmatched = 0 AS complete
          FROM researchers_authorship a
          JOIN papers_paperauthor s ON s.id = a.slot_id
          JOIN papers_paper p ON p.id = a.paper_id
         CROSS JOIN LATERAL (
               SELECT count(*) AS n,
                      count(*) FILTER (WHERE NOT x.is_collaboration AND z.id IS NULL) AS unmatched
                 FROM papers_paperauthor x
                 LEFT JOIN researchers_authorship z ON z.slot_id = x.id
                WHERE x.paper_id = a.paper_id
         ) c
         WHERE a.researcher_id = %s AND NOT p.deleted AND NOT p.hidden
    """
    # Per paper through the (paper, position) and slot indexes: as NOT EXISTS, PostgreSQL
    # hashed every author slot of the archive for a researcher with thousands of papers
    # (1.5 s at a million papers; issue #11).
    with connection.cursor() as cursor:
        cursor.execute(sql, [researcher.pk])
        rows = cursor.fetchall()
    papers = {r[0] for r in rows}
    counts: Counter[str] = Counter()
    complete_papers: set[int] = set()
    for paper_id, position, n, complete in rows:
        if not complete:
            continue
        complete_papers.add(paper_id)
        if position == 1:
            counts["first author"] += 1
        elif position == n:
            counts["last author"] += 1
        else:
            counts["middle author"] += 1
    order = ["first author", "middle author", "last author"]
    bars = _bars([(label, counts[label]) for label in order if counts[label]])
    return bars, len(complete_papers), len(papers)


def identity_sources(researcher: Researcher) -> list[str]:
    """Display names of the registries behind the identity (Semantic Scholar, OpenAlex), or
    ``[]`` when only local evidence holds the record together."""
    wanted = {IdentitySource.SEMANTIC_SCHOLAR, IdentitySource.OPENALEX}
    found = set(researcher.identities.filter(source__in=wanted).values_list("source", flat=True))
    found |= set(researcher.authorships.filter(source__in=wanted).values_list("source", flat=True).distinct())
    return [label for value, label in IdentitySource.choices if value in found]


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


def coauthor_network(researcher: Researcher, *, size: int = 320) -> Network | None:
    """The researcher's most frequent co-authors laid out on a circle around them.

    Node radius grows with the number of shared papers; chords join co-authors who also
    wrote together. Two queries. ``None`` without co-authors. Coordinates are SVG user
    units in a ``size`` x ``size`` box.
    """
    sql = """
        SELECT b.researcher_id, r.display_name, r.slug, count(DISTINCT b.paper_id) AS shared
          FROM researchers_authorship a
          JOIN researchers_authorship b ON b.paper_id = a.paper_id AND b.researcher_id <> a.researcher_id
          JOIN researchers_researcher r ON r.id = b.researcher_id
         WHERE a.researcher_id = %s
         GROUP BY b.researcher_id, r.display_name, r.slug
         ORDER BY shared DESC, r.display_name, b.researcher_id
         LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [researcher.pk, COAUTHORS_SHOWN])
        rows = cursor.fetchall()
    if not rows:
        return None
    ids = [r[0] for r in rows]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT a.researcher_id, b.researcher_id, count(DISTINCT a.paper_id)
              FROM researchers_authorship a
              JOIN researchers_authorship b ON b.paper_id = a.paper_id AND a.researcher_id < b.researcher_id
             WHERE a.researcher_id = ANY(%s) AND b.researcher_id = ANY(%s)
             GROUP BY 1, 2
            """,
            [ids, ids],
        )
        links = cursor.fetchall()
    net = Network(width=size, height=size, cx=size / 2, cy=size / 2)
    ring = size / 2 - 62
    top = max(r[3] for r in rows)
    for i, (rid, name, slug, shared) in enumerate(rows):
        angle = -math.pi / 2 + 2 * math.pi * i / len(rows)
        x = net.cx + ring * math.cos(angle)
        y = net.cy + ring * math.sin(angle)
        cos = math.cos(angle)
        anchor = "middle" if abs(cos) < 0.3 else ("start" if cos > 0 else "end")
        radius = 4 + 6 * shared / top
        net.nodes.append(
            Node(
                researcher_id=rid,
                name=name,
                url=f"/researchers/{rid}-{slug}",
                shared=shared,
                x=round(x, 1),
                y=round(y, 1),
                r=round(radius, 1),
                label_x=round(
                    x + (radius + 3) * (1 if anchor == "start" else -1 if anchor == "end" else 0), 1
                ),
                label_anchor=anchor,
            )
        )
        net.spokes.append((round(x, 1), round(y, 1), round(0.8 + 2.2 * shared / top, 2)))
    where = {n.researcher_id: n for n in net.nodes}
    for a, b, count in links:
        na, nb = where[a], where[b]
        net.edges.append((na.x, na.y, nb.x, nb.y, round(0.6 + min(count, 5) * 0.3, 2)))
    return net


def years_chart(papers: QuerySet[Paper], *, width: int = 300, height: int = 90) -> list[YearBar]:
    """Papers and citations (summed over papers submitted that year) per submission year.

    Bars scale to the largest year of each series; heights are SVG user units in a
    ``width`` x ``height`` box with 14 units kept for year labels. Years without papers
    between the first and last are shown empty.
    """
    rows = list(papers.order_by().values_list("submitted_at__year", "cited_by_count"))
    per_year: dict[int, list[int]] = {}
    for year, cites in rows:
        if year is None:
            continue
        entry = per_year.setdefault(year, [0, 0])
        entry[0] += 1
        entry[1] += cites or 0
    if not per_year:
        return []
    years = list(range(min(per_year), max(per_year) + 1))
    top_papers = max(v[0] for v in per_year.values()) or 1
    top_cites = max(v[1] for v in per_year.values()) or 1
    plot = height - 14
    slot = width / len(years)
    out = []
    for i, year in enumerate(years):
        n, c = per_year.get(year, [0, 0])
        ph = round(plot * n / top_papers, 1)
        ch = round(plot * c / top_cites, 1)
        out.append(YearBar(year, n, c, round(i * slot, 1), round(plot - ph, 1), ph, round(plot - ch, 1), ch))
    return out


def researcher_profile(researcher: Researcher, *, category: str = "", sort: str = "newest") -> dict:
    """Everything the researcher page shows except the paged list (see the view).

    Returns a dict: ``papers`` (QuerySet, filtered and sorted), ``paper_count`` (N, all
    public papers), ``positions``/``positions_known``, ``fields`` (primary-category
    bars with filter links), ``same_name``, ``identity_sources``, ``local`` (bool),
    ``most_cited`` (Paper or None), ``citations_total``, ``cited_papers`` (K),
    ``network``, ``years``, ``jsonld`` (dict), ``description``.
    """
    base_url = researcher.get_absolute_url()
    papers = researcher_papers(researcher)
    paper_count = papers.count()
    field_counts = Counter(
        code for code in papers.order_by().values_list("primary_category_id", flat=True) if code
    )
    fields = _bars(
        sorted(field_counts.items(), key=lambda kv: (-kv[1], kv[0])),
        href=lambda code: f"{base_url}?category={code}",
        current=category,
    )

    # Aggregates over every paper of a researcher with 100+ papers come from the cache for
    # 5 minutes (keyed by the paper count, so new papers show at once): the busiest
    # researcher of a million-paper archive spent over a second on them (issue #11).
    def cached(name: str, compute):
        key = f"wove:researcher:{researcher.pk}:{researcher.paper_count}:{name}"
        return cached_when_large(key, compute, size=researcher.paper_count, minimum=PROFILE_CACHE_MIN)

    positions, known, _total = cached("positions", lambda: position_counts(researcher))
    cited = papers.filter(cited_by_count__isnull=False)
    cited_list = list(cited.order_by("-cited_by_count", "-submitted_at").values("pk", "cited_by_count")[:1])
    most_cited = papers.get(pk=cited_list[0]["pk"]) if cited_list else None
    citations_total = sum(cited.values_list("cited_by_count", flat=True))
    sources = identity_sources(researcher)
    listed = papers
    if category:
        listed = listed.filter(primary_category_id=category)
    listed = listed.order_by(*SORTS.get(sort, SORTS["newest"]))
    description = (
        f"{researcher.display_name}: {paper_count} paper{'s' if paper_count != 1 else ''} in this archive."
    )
    return {
        "papers": listed,
        "paper_count": paper_count,
        "positions": positions,
        "positions_known": known,
        "fields": fields,
        "same_name": same_name(researcher),
        "institutions": institutions_for_researcher(researcher),
        "identity_sources": sources,
        "local": not sources and researcher.authorships.filter(method=MatchMethod.LOCAL).exists(),
        "most_cited": most_cited,
        "citations_total": citations_total,
        "cited_papers": cited.count(),
        "network": cached("network", lambda: coauthor_network(researcher)),
        "years": cached("years", lambda: years_chart(papers)),
        "description": description,
        "jsonld": researcher_jsonld(researcher, description=description),
    }


def researcher_jsonld(researcher: Researcher, *, description: str) -> dict:
    """schema.org ``Person`` (ORCID ``identifier`` and ``sameAs``) and ``BreadcrumbList``
    wovepaper > Researchers > name, as one ``@graph`` (the live site's shape)."""
    site = settings.SITE_URL
    url = f"{site}{researcher.get_absolute_url()}"
    person: dict = {
        "@type": "Person",
        "@id": f"{url}#person",
        "url": url,
        "name": researcher.display_name,
        "description": description,
    }
    if researcher.orcid:
        person["identifier"] = {"@type": "PropertyValue", "propertyID": "ORCID", "value": researcher.orcid}
        person["sameAs"] = [researcher.orcid_url]
    person["mainEntityOfPage"] = {"@id": f"{url}#page"}
    crumbs = {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": 1, "name": "wovepaper", "item": site},
            {"@type": "ListItem", "position": 2, "name": "Researchers", "item": f"{site}/researchers"},
            {"@type": "ListItem", "position": 3, "name": researcher.display_name, "item": url},
        ],
    }
    return {"@context": "https://schema.org", "@graph": [person, crumbs]}
