"""Curation reads: merge evidence side by side, a researcher's history, the same-name queue."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.urls import reverse

from institutions.selectors import institutions_for_researcher
from papers.affiliations import affiliation_tokens
from papers.models import Paper, PaperAuthor
from provenance.models import Event
from researchers.models import Authorship, ExternalIdentity, IdentitySource, Researcher
from researchers.names import name_similarity, names_compatible, parse_name
from researchers.selectors import slots_for_review

from .models import CurationRecord, PairDecision

HISTORY_SHOWN = 5
CATEGORIES_SHOWN = 8
# The merge comparison lists each record's newest papers (the rest as a count) and, per
# paper, the first co-authors (the rest as a count: a 3,000-author paper stays one line).
PAPERS_SHOWN = 20
PAPER_COAUTHORS_SHOWN = 8
# Name blocks held by more researcher records than this are skipped by the queue: common
# initials-and-surname blocks ("y wang") give pairs by the thousand and little evidence.
QUEUE_MAX_BLOCK = 40
# Evidence weights of the same-name queue (a ranking, not a decision).
W_COAUTHOR = 0.5
W_CATEGORY = 0.4
W_AFFILIATION = 1.0
W_NAME = 0.5
W_ORCID = 3.0
W_SAME_GIVEN = 0.2  # the first given name spelled out identically ("Lucas"), not just an initial


@dataclass
class PaperCoauthor:
    """A co-author on one paper: the name as written, the researcher page (``""`` unmatched)."""

    name: str
    url: str


@dataclass
class PaperLine:
    """One paper of a record on the merge comparison: the paper (``arxiv_id``, ``title``,
    ``get_absolute_url``), its submission ``year``, the record's author slot on it (``position``
    of ``author_count``, ``name`` as written, the slot's raw ``affiliations`` strings), the
    first co-authors in author order and how many more there are."""

    paper: Paper
    year: int | None
    position: int
    author_count: int
    name: str
    affiliations: list[str]
    coauthors: list[PaperCoauthor] = field(default_factory=list)
    more_coauthors: int = 0


@dataclass
class ResearcherEvidence:
    """One column of the merge confirmation page."""

    researcher: Researcher
    variants: list[str]
    identities: list[tuple[str, str]]
    categories: list[tuple[str, int]]
    first_year: int | None
    last_year: int | None
    institutions: list
    paper_count: int
    coauthors: list[tuple[int, str, int]]  # (researcher id, name, shared papers)
    shared_coauthors: list[str] = field(default_factory=list)
    papers: list[PaperLine] = field(default_factory=list)  # newest first, at most PAPERS_SHOWN
    more_papers: int = 0  # the record's other papers, not listed


def _coauthors(researcher_ids: Sequence[int]) -> dict[int, list[tuple[int, str, int]]]:
    sql = """
        SELECT a.researcher_id, b.researcher_id, r.display_name, count(DISTINCT a.paper_id)
          FROM researchers_authorship a
          JOIN researchers_authorship b ON b.paper_id = a.paper_id AND b.researcher_id <> a.researcher_id
          JOIN researchers_researcher r ON r.id = b.researcher_id
         WHERE a.researcher_id = ANY(%s)
         GROUP BY 1, 2, 3
         ORDER BY 4 DESC, 3, 2
    """
    out: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(researcher_ids)])
        for rid, other, name, shared in cursor.fetchall():
            out[rid].append((other, name, shared))
    return out


def _facts(researcher_ids: Sequence[int]) -> dict[int, dict]:
    """Per researcher: category counts, first/last submission year, paper count (one query)."""
    sql = """
        SELECT a.researcher_id, p.id, p.categories, extract(year FROM p.submitted_at)::int
          FROM researchers_authorship a JOIN papers_paper p ON p.id = a.paper_id
         WHERE a.researcher_id = ANY(%s) AND NOT p.deleted
    """
    out: dict[int, dict] = {
        rid: {"categories": Counter(), "years": [], "papers": set()} for rid in researcher_ids
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(researcher_ids)])
        for rid, pid, categories, year in cursor.fetchall():
            facts = out[rid]
            if pid in facts["papers"]:
                continue
            facts["papers"].add(pid)
            facts["categories"].update(categories or ())
            if year:
                facts["years"].append(year)
    return out


def _paper_lines(researcher_ids: Sequence[int]) -> dict[int, list[PaperLine]]:
    """Per researcher, its :data:`PAPERS_SHOWN` newest papers (withdrawn ones included,
    deleted ones not) with their co-authors; two queries whatever the counts."""
    newest = Window(
        RowNumber(),
        partition_by=[F("researcher_id")],
        order_by=[F("paper__submitted_at").desc(nulls_last=True), F("paper__arxiv_id").desc(), F("pk")],
    )
    authorships = list(
        Authorship.objects.filter(researcher_id__in=researcher_ids, paper__deleted=False)
        .select_related("paper", "slot")
        .only(
            "researcher_id",
            "paper__arxiv_id",
            "paper__slug",
            "paper__title",
            "paper__submitted_at",
            "slot__position",
            "slot__name",
            "slot__affiliations",
        )
        .annotate(rank=newest)
        .filter(rank__lte=PAPERS_SHOWN)
        .order_by("researcher_id", "rank")
    )
    # The first authors of each listed paper: one more than shown, as one is the record itself.
    in_order = Window(RowNumber(), partition_by=[F("paper_id")], order_by=[F("position")])
    slots = (
        PaperAuthor.objects.filter(paper_id__in={a.paper_id for a in authorships})
        .annotate(rank=in_order, total=Window(Count("pk"), partition_by=[F("paper_id")]))
        .filter(rank__lte=PAPER_COAUTHORS_SHOWN + 1)
        .order_by("paper_id", "position")
        .values_list(
            "paper_id", "pk", "name", "authorship__researcher_id", "authorship__researcher__slug", "total"
        )
    )
    by_paper: dict[int, list[tuple]] = defaultdict(list)
    totals: dict[int, int] = {}
    for paper_id, slot_id, name, rid, slug, total in slots:
        url = reverse("researchers:detail", kwargs={"pk": rid, "slug": slug}) if rid and slug else ""
        by_paper[paper_id].append((slot_id, PaperCoauthor(name, url)))
        totals[paper_id] = total
    out: dict[int, list[PaperLine]] = defaultdict(list)
    for a in authorships:
        others = [c for slot_id, c in by_paper[a.paper_id] if slot_id != a.slot_id]
        shown = others[:PAPER_COAUTHORS_SHOWN]
        count = totals.get(a.paper_id, 1)
        out[a.researcher_id].append(
            PaperLine(
                paper=a.paper,
                year=a.paper.submitted_at.year if a.paper.submitted_at else None,
                position=a.slot.position,
                author_count=count,
                name=a.slot.name,
                affiliations=list(a.slot.affiliations or []),
                coauthors=shown,
                more_coauthors=max(count - 1 - len(shown), 0),
            )
        )
    return out


def merge_evidence(researcher_ids: Iterable[int]) -> list[ResearcherEvidence]:
    """The evidence for the merge confirmation page, one :class:`ResearcherEvidence` per
    existing record in ``researcher_ids`` (id order): names and variants, ORCID iD,
    external ids, categories (most frequent first), years, institutions
    (:func:`institutions.selectors.institutions_for_researcher`), paper counts, top
    co-authors, and ``shared_coauthors``: co-author names this record shares with another
    of the selected records; ``papers``: the :data:`PAPERS_SHOWN` newest papers of each
    (:class:`PaperLine`: title, year, the slot's name and affiliation strings, the first
    :data:`PAPER_COAUTHORS_SHOWN` co-authors) and ``more_papers``, how many are not listed.
    A constant number of queries per record (institutions), the rest fixed."""
    ids = sorted({int(i) for i in researcher_ids})
    researchers = list(Researcher.objects.filter(pk__in=ids).order_by("pk").prefetch_related("identities"))
    ids = [r.pk for r in researchers]
    coauthors = _coauthors(ids)
    facts = _facts(ids)
    papers = _paper_lines(ids)
    out = []
    for r in researchers:
        f = facts[r.pk]
        out.append(
            ResearcherEvidence(
                researcher=r,
                variants=sorted(set(r.name_variants) - {r.display_name}),
                identities=[(i.get_source_display(), i.external_id) for i in r.identities.all()],
                categories=f["categories"].most_common(CATEGORIES_SHOWN),
                first_year=min(f["years"], default=None),
                last_year=max(f["years"], default=None),
                institutions=institutions_for_researcher(r.pk),
                paper_count=len(f["papers"]),
                coauthors=[c for c in coauthors.get(r.pk, []) if c[0] not in ids][:12],
                papers=papers.get(r.pk, []),
                more_papers=max(len(f["papers"]) - len({p.paper.pk for p in papers.get(r.pk, [])}), 0),
            )
        )
    # A co-author (researcher id) who wrote with two of the selected records.
    seen: Counter[int] = Counter()
    names: dict[int, str] = {}
    for r in researchers:
        for other, name, _shared in coauthors.get(r.pk, []):
            if other not in ids:
                seen[other] += 1
                names[other] = name
    for column in out:
        column.shared_coauthors = sorted(
            names[other]
            for other, _n, _s in coauthors.get(column.researcher.pk, [])
            if seen.get(other, 0) > 1
        )
    return out


# --------------------------------------------------------------------------- history


@dataclass
class HistoryItem:
    """One line of the public history on a researcher page."""

    record: CurationRecord
    summary: str
    undone: bool
    pith_body: str = ""  # the provenance record carrying the signed event (``/pith/<body>``)


def _summary(record: CurationRecord, researcher_id: int) -> str:
    changes = record.changes or {}
    if record.kind == CurationRecord.Kind.MERGE:
        merged = changes.get("merged", [])
        moved = len(changes.get("authorships", []))
        if researcher_id in merged:
            return f"Merged into researcher {changes.get('survivor')}"
        records = f"{len(merged)} record{'s' if len(merged) != 1 else ''}"
        return f"{records} merged in ({moved} authorship{'s' if moved != 1 else ''} moved)"
    if record.kind == CurationRecord.Kind.SPLIT:
        moved = len(changes.get("authorships", []))
        noun = f"{moved} authorship{'s' if moved != 1 else ''}"
        if researcher_id == changes.get("target"):
            return f"{noun} split off researcher {changes.get('source')} to this record"
        return f"{noun} split off to researcher {changes.get('target')}"
    if record.kind == CurationRecord.Kind.UNDO:
        return f"Undid curation #{changes.get('undoes')}"
    return "Declared not the same person as researcher " + str(
        next((i for i in record.researcher_ids if i != researcher_id), "")
    )


def curation_history(researcher: Researcher | int, *, limit: int = HISTORY_SHOWN) -> list[HistoryItem]:
    """The latest curation records involving a researcher, newest first (at most ``limit``).

    Each item carries the record (when, why, the signed provenance event id), a one-line
    summary from this researcher's point of view, whether it was undone and the pith body
    of the provenance record holding its signed event (its page is ``/pith/<body>``). Three queries.
    """
    rid = getattr(researcher, "pk", researcher)
    records = list(CurationRecord.objects.for_researcher(rid).order_by("-created_at", "-id")[:limit])
    undone = set(
        CurationRecord.objects.filter(undoes_id__in=[r.pk for r in records]).values_list(
            "undoes_id", flat=True
        )
    )
    digests = [r.provenance_event.removeprefix("sha256:") for r in records if r.provenance_event]
    piths = dict(
        Event.objects.filter(content_sha256__in=digests).values_list("content_sha256", "record__pith_body")
    )
    return [
        HistoryItem(
            r, _summary(r, rid), r.pk in undone, piths.get(r.provenance_event.removeprefix("sha256:"), "")
        )
        for r in records
    ]


# --------------------------------------------------------------------------- same-name queue


@dataclass
class PairCandidate:
    """Two active researcher records that may be one person, with the evidence."""

    a: Researcher
    b: Researcher
    score: float
    shared_coauthors: list[str]
    shared_categories: list[str]
    shared_affiliation_words: list[str]
    name_similarity: float
    orcid: str  # "same person" (an iD of one is an identity of the other), "different", ""


_QUEUE_SQL = """
    WITH rb AS (
        SELECT DISTINCT a.researcher_id AS rid, a.block
          FROM researchers_authorship a
          JOIN researchers_researcher r ON r.id = a.researcher_id
         WHERE r.merged_into_id IS NULL
    ), ok AS (
        SELECT block FROM rb GROUP BY block HAVING count(*) BETWEEN 2 AND %s
    )
    SELECT DISTINCT x.rid, y.rid
      FROM rb x JOIN rb y ON y.block = x.block AND x.rid < y.rid
     WHERE x.block IN (SELECT block FROM ok)
       AND NOT EXISTS (
            SELECT 1 FROM curation_pairdecision d
             WHERE d.researcher_low = x.rid AND d.researcher_high = y.rid)
"""


def _evidence_sets(ids: list[int]) -> tuple[dict, dict, dict]:
    coauthor_blocks: dict[int, set[str]] = defaultdict(set)
    categories: dict[int, set[str]] = defaultdict(set)
    affiliations: dict[int, set[str]] = defaultdict(set)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT DISTINCT a.researcher_id, b.block
              FROM researchers_authorship a
              JOIN researchers_authorship b ON b.paper_id = a.paper_id AND b.slot_id <> a.slot_id
             WHERE a.researcher_id = ANY(%s)
            """,
            [ids],
        )
        for rid, block in cursor.fetchall():
            coauthor_blocks[rid].add(block)
        cursor.execute(
            """
            SELECT a.researcher_id, p.categories, s.affiliations
              FROM researchers_authorship a
              JOIN papers_paper p ON p.id = a.paper_id
              JOIN papers_paperauthor s ON s.id = a.slot_id
             WHERE a.researcher_id = ANY(%s)
            """,
            [ids],
        )
        for rid, cats, affs in cursor.fetchall():
            categories[rid].update(cats or ())
            affiliations[rid] |= affiliation_tokens(affs or ())
    return coauthor_blocks, categories, affiliations


def same_name_queue(*, max_block: int = QUEUE_MAX_BLOCK) -> list[PairCandidate]:
    """Candidate pairs of active researcher records that may be one person, best first.

    Candidates share a name block (``"d chablat"``) on some authorship and have compatible
    display names (:func:`researchers.names.names_compatible`); pairs an editor declared
    distinct (:class:`PairDecision`) never appear. Score (higher = more likely one person):
    ``W_COAUTHOR`` per shared co-author name block (at most 4), ``W_CATEGORY`` times the
    category overlap coefficient, ``W_AFFILIATION`` times the Jaccard index of affiliation
    words, ``W_NAME`` times the name similarity (0..1), ``+W_ORCID`` when one record's ORCID
    iD is an ORCID identity of the other, ``-W_ORCID`` for two different iDs. Blocks of more
    than ``max_block`` records are skipped; ties go to pairs with more papers. A fixed number
    of queries.
    """
    with connection.cursor() as cursor:
        cursor.execute(_QUEUE_SQL, [max_block])
        pairs = cursor.fetchall()
    if not pairs:
        return []
    ids = sorted({i for p in pairs for i in p})
    researchers = Researcher.objects.in_bulk(ids)
    parsed = {pk: parse_name(r.display_name) for pk, r in researchers.items()}
    pairs = [(a, b) for a, b in pairs if names_compatible(parsed[a], parsed[b])]
    ids = sorted({i for p in pairs for i in p})
    orcid_ids: dict[int, set[str]] = defaultdict(set)
    for rid, ext in ExternalIdentity.objects.filter(
        researcher_id__in=ids, source=IdentitySource.ORCID
    ).values_list("researcher_id", "external_id"):
        orcid_ids[rid].add(ext)
    coauthors, categories, affiliations = _evidence_sets(ids)
    out = []
    for a_id, b_id in pairs:
        a, b = researchers[a_id], researchers[b_id]
        shared_co = sorted(coauthors[a_id] & coauthors[b_id] - {parsed[a_id].block, parsed[b_id].block})
        cats_a, cats_b = categories[a_id], categories[b_id]
        shared_cats = sorted(cats_a & cats_b)
        cat_overlap = len(shared_cats) / min(len(cats_a), len(cats_b)) if cats_a and cats_b else 0.0
        affs_a, affs_b = affiliations[a_id], affiliations[b_id]
        shared_affs = sorted(affs_a & affs_b)
        aff_jaccard = len(shared_affs) / len(affs_a | affs_b) if affs_a and affs_b else 0.0
        similarity = name_similarity(parsed[a_id], parsed[b_id])
        given_a, given_b = parsed[a_id].given, parsed[b_id].given
        same_given = bool(given_a and given_b and len(given_a[0]) > 1 and given_a[0] == given_b[0])
        orcid = ""
        if (a.orcid and a.orcid in orcid_ids[b_id]) or (b.orcid and b.orcid in orcid_ids[a_id]):
            orcid = "same person"
        elif a.orcid and b.orcid:
            orcid = "different"
        score = (
            W_COAUTHOR * min(len(shared_co), 4)
            + W_CATEGORY * cat_overlap
            + W_AFFILIATION * aff_jaccard
            + W_NAME * similarity
            + (W_SAME_GIVEN if same_given else 0.0)
            + (W_ORCID if orcid == "same person" else -W_ORCID if orcid == "different" else 0.0)
        )
        out.append(
            PairCandidate(
                a, b, round(score, 3), shared_co, shared_cats, shared_affs, round(similarity, 2), orcid
            )
        )
    # Ties: the pair with more papers first (more to compare, more readers affected).
    out.sort(key=lambda c: (-c.score, -(c.a.paper_count + c.b.paper_count), c.a.pk, c.b.pk))
    return out


def decisions_among(researcher_ids: Iterable[int]) -> list[PairDecision]:
    """ "Not the same person" decisions between any two of ``researcher_ids`` (one query), so
    the merge page can warn an editor who is about to overrule one."""
    ids = sorted({int(i) for i in researcher_ids})
    return list(
        PairDecision.objects.filter(researcher_low__in=ids, researcher_high__in=ids)
        .select_related("record")
        .order_by("researcher_low", "researcher_high")
    )


# Slots left for review shown on the queue page (the admin list has them all).
REVIEW_SHOWN = 50


@dataclass
class ReviewRow:
    """An author slot the matcher left for an editor, with the researchers it could be."""

    review: object  # researchers.models.SlotReview, its slot and paper loaded
    candidates: list[Researcher]


def review_rows(*, limit: int = REVIEW_SHOWN) -> tuple[list[ReviewRow], int]:
    """The newest ``limit`` slots left for review (:func:`researchers.selectors.slots_for_review`)
    with their candidate researchers, and how many there are in all; two queries."""
    reviews = slots_for_review()
    shown = reviews[:limit]
    researchers = Researcher.objects.in_bulk({pk for r in shown for pk in r.candidates})
    rows = [ReviewRow(r, [researchers[pk] for pk in r.candidates if pk in researchers]) for r in shown]
    return rows, len(reviews)
