"""Curation reads for one set of records: the merge comparison's evidence, a researcher's curation history."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db import connections
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.urls import reverse

from institutions.selectors import institutions_for_researcher
from papers.models import Paper, PaperAuthor
from provenance.models import Event
from researchers.models import Authorship, Researcher
from wove.replicas import read_alias

from .coauthors import coauthor_keys, coauthors_shared
from .models import CurationRecord, PairDecision

HISTORY_SHOWN = 5
CATEGORIES_SHOWN = 8
# The merge comparison lists each record's newest papers (the rest as a count) and, per
# paper, the first co-authors (the rest as a count: a 3,000-author paper stays one line).
PAPERS_SHOWN = 20
PAPER_COAUTHORS_SHOWN = 8


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
    with connections[read_alias()].cursor() as cursor:
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
    with connections[read_alias()].cursor() as cursor:
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
    co-authors, and ``shared_coauthors``: the co-authors this record shares with another of
    the selected records (:func:`curation.coauthors.coauthors_shared`, the rule the
    same-name queue ranks on); ``papers``: the :data:`PAPERS_SHOWN` newest papers of each
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
    # The one rule the same-name queue reads too (curation.coauthors).
    keys = coauthor_keys(ids)
    for column in out:
        a = column.researcher.pk
        shared = {name for b in ids if b != a for name in coauthors_shared(keys, a, b, compared=ids)}
        column.shared_coauthors = sorted(shared, key=str.casefold)
    return out


# --------------------------------------------------------------------------- history


@dataclass
class HistoryItem:
    """One line of the public history on a researcher page."""

    record: CurationRecord
    summary: str
    undone: bool
    pith_body: str = ""  # the provenance record carrying the signed event (``/pith/<body>``)


# The one-line history of the researcher's own actions and the decisions on their claims (issue 31).
OWN_SUMMARIES = {
    CurationRecord.Kind.CLAIM: "Claimed by a user",
    CurationRecord.Kind.CLAIM_APPROVE: "Claim approved by an editor",
    CurationRecord.Kind.CLAIM_REFUSE: "Claim refused by an editor",
    CurationRecord.Kind.MINE: "Authorship of {arxiv_id} confirmed by the researcher",
    CurationRecord.Kind.NOT_MINE: "A paper rejected by the researcher (moved to researcher {target})",
    CurationRecord.Kind.NAME_VARIANT: "Name “{name}” added by the researcher",
    CurationRecord.Kind.DISPLAY_NAME: "Display name “{name}” chosen by the researcher",
}


# How a merge that confirmed a researcher's merge proposal ends its history line.
PROPOSED_MERGE = ": merge proposed by the researcher, confirmed by an editor"


def _merge_summary(changes: dict, researcher_id: int) -> str:
    merged = changes.get("merged", [])
    moved = len(changes.get("authorships", []))
    proposed = PROPOSED_MERGE if changes.get("proposal") else ""
    if researcher_id in merged:
        return f"Merged into researcher {changes.get('survivor')}{proposed}"
    records = f"{len(merged)} record{'s' if len(merged) != 1 else ''}"
    return f"{records} merged in ({moved} authorship{'s' if moved != 1 else ''} moved){proposed}"


def _proposal_summary(record: CurationRecord, researcher_id: int) -> str:
    """A merge proposal or its refusal, from the owner's record or the other one."""
    changes = record.changes or {}
    theirs = researcher_id == changes.get("other")
    if record.kind == CurationRecord.Kind.PROPOSAL_REFUSE:
        other = changes.get("researcher") if theirs else changes.get("other")
        return f"Merge proposal refused by an editor: researcher {other} stays a separate record"
    if theirs:
        return f"Proposed by the researcher of record {changes.get('researcher')} as theirs too"
    return f"Merge of researcher {changes.get('other')} into this record proposed by the researcher"


def _summary(record: CurationRecord, researcher_id: int) -> str:
    changes = record.changes or {}
    if record.kind == CurationRecord.Kind.MERGE:
        return _merge_summary(changes, researcher_id)
    if record.kind in (CurationRecord.Kind.MERGE_PROPOSAL, CurationRecord.Kind.PROPOSAL_REFUSE):
        return _proposal_summary(record, researcher_id)
    if record.kind == CurationRecord.Kind.SPLIT:
        moved = len(changes.get("authorships", []))
        noun = f"{moved} authorship{'s' if moved != 1 else ''}"
        if researcher_id == changes.get("target"):
            return f"{noun} split off researcher {changes.get('source')} to this record"
        return f"{noun} split off to researcher {changes.get('target')}"
    if record.kind == CurationRecord.Kind.REASSIGN:
        if researcher_id == changes.get("target"):
            return f"Paper reassigned to this record from researcher {changes.get('source')}"
        return f"Paper reassigned to researcher {changes.get('target')}"
    if record.kind == CurationRecord.Kind.CONFIRM:
        return f"Authorship of {changes.get('arxiv_id', 'a paper')} confirmed by an editor"
    if record.kind == CurationRecord.Kind.TAKE:
        paper = changes.get("arxiv_id", "a paper")
        if changes.get("slot_review"):
            return f"Authorship of {paper} taken from the review queue by the researcher"
        if researcher_id == changes.get("target"):
            return f"Authorship of {paper} taken by the researcher from researcher {changes.get('source')}"
        return f"Authorship of {paper} taken by the researcher of researcher {changes.get('target')}"
    if record.kind == CurationRecord.Kind.UNDO:
        return f"Undid curation #{changes.get('undoes')}"
    if record.kind in OWN_SUMMARIES:
        return OWN_SUMMARIES[record.kind].format(
            arxiv_id=changes.get("arxiv_id", "a paper"),
            target=changes.get("target", ""),
            name=changes.get("name", ""),
        )
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


def decisions_among(researcher_ids: Iterable[int]) -> list[PairDecision]:
    """ "Not the same person" decisions between any two of ``researcher_ids`` (one query), so
    the merge page can warn an editor who is about to overrule one."""
    ids = sorted({int(i) for i in researcher_ids})
    return list(
        PairDecision.objects.filter(researcher_low__in=ids, researcher_high__in=ids)
        .select_related("record")
        .order_by("researcher_low", "researcher_high")
    )
