"""Matching author slots to researchers: from Semantic Scholar / OpenAlex, or locally."""

from __future__ import annotations

import json
import logging
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, Min, OuterRef
from django.db.models.expressions import RawSQL
from django.utils import timezone

from papers.models import Paper, PaperAuthor
from papers.text import make_slug
from wove.backlog import Backlog
from wove.bulk import gc_paused, int_array, text_array
from wove.locks import advisory_xact_lock

from .clients import fetch_works
from .clients.base import SourceUnavailable
from .clustering import Mention, cluster_mentions, name_choices
from .constraints import must_linked_groups
from .evidence import (
    SlotFacts,
    authorships_evidence_write,
    authorships_unconfirmed_refresh,
    cluster_evidence,
    name_only_slots,
    researcher_clusters,
    slot_institutions,
    source_evidence,
)
from .models import (
    Authorship,
    ExternalIdentity,
    IdentitySource,
    MatchConstraint,
    MatchMethod,
    Researcher,
    SlotReview,
)
from .names import (
    PersonName,
    best_name,
    family_key,
    is_junk_name,
    is_tombstone_name,
    name_similarity,
    parse_name,
    person_names_compatible,
)
from .orcid import normalize_orcid, orcid_is_placeholder, orcid_or_none
from .records import SourceAuthor, SourceWork
from .signals import source_authors_aligned

logger = logging.getLogger(__name__)

# Confidence by method (0..1): an ORCID iD is the person's own claim; a registry's author id
# is its own disambiguation; a local match is only this archive's evidence.
CONFIDENCE_ORCID = 0.98
CONFIDENCE_EXTERNAL = 0.9
CONFIDENCE_LOCAL_LINKED = 0.6
CONFIDENCE_LOCAL_ALONE = 0.5
# Aligning a source's author to an arXiv slot needs at least this name similarity.
ALIGN_MIN_SIMILARITY = 0.75


@dataclass(slots=True)
class MatchSummary:
    """What one matching run did (counts of author slots, researchers and papers).

    ``papers`` counts distinct papers with a slot matched by the run (``paper_ids`` holds
    them); ``slots`` every slot matched, by a source or locally; ``left_for_review`` the
    slots left for an editor (:class:`researchers.models.SlotReview`);
    ``evidence_backfilled`` the older authorships given their evidence
    (:func:`authorships_evidence_backfill`).
    """

    papers: int = 0
    slots: int = 0
    matched_by_source: int = 0
    matched_locally: int = 0
    researchers_created: int = 0
    collaborations_skipped: int = 0
    left_for_review: int = 0
    papers_with_citations: int = 0
    evidence_backfilled: int = 0
    seconds: float = 0.0
    paper_ids: set[int] = field(default_factory=set, repr=False)

    def line(self) -> str:
        """The one summary line the management command prints."""
        rate = self.slots / self.seconds if self.seconds else 0.0
        return (
            f"matched {self.slots} author slots on {self.papers} papers: "
            f"{self.matched_by_source} via sources, {self.matched_locally} locally, "
            f"{self.researchers_created} researchers created, "
            f"{self.collaborations_skipped} collaborations skipped"
            + (f", {self.left_for_review} left for review" if self.left_for_review else "")
            + (f", {self.evidence_backfilled} older links given evidence" if self.evidence_backfilled else "")
            + f" ({self.seconds:.2f} s, {rate:,.0f} slots/s)"
        )


# --------------------------------------------------------------------------- alignment


def align_authors(
    slots: list[tuple[int, str, str, str]], authors: list[SourceAuthor]
) -> dict[int, SourceAuthor]:
    """Pair arXiv author slots with a source's author list, in time linear in their length.

    ``slots`` are ``(position, name, keyname, forenames)`` in arXiv order. Each slot is
    compared with a bounded set of the source's authors (:func:`_align_candidates`): those
    around its expected place (its place in the list shifted by the offset of the nearest
    earlier unmistakable pair, so one author missing or added does not throw the rest out)
    and the nearest ones sharing its family-name key. Pairs are then chosen greedily by name
    similarity (:func:`researchers.names.name_similarity`: accents, initials, hyphens,
    particles, "Last, First", CJK order, TeX accents), ties broken by closeness to the
    expected place, so two people of one name keep their own order; a pair needs
    ``ALIGN_MIN_SIMILARITY``. Returns ``{slot position: SourceAuthor}``; unaligned slots are
    absent. A slot meets at most 15 source authors (7.4 on average on the 3,000-author test
    paper), not all 3,000.
    """
    parsed_slots = [parse_name(name, keyname, forenames) for _pos, name, keyname, forenames in slots]
    parsed_authors = [[parse_name(n) for n in [a.name, *a.alt_names] if n] for a in authors]
    index = _author_key_index(parsed_authors)
    expected = _expected_places(parsed_slots, parsed_authors)
    candidates: list[tuple[float, int, int]] = []
    for si, sname in enumerate(parsed_slots):
        pos = slots[si][0]
        for ai in _align_candidates(sname, expected[si], index, len(authors)):
            sim = max((name_similarity(sname, aname) for aname in parsed_authors[ai]), default=0.0)
            if sim >= ALIGN_MIN_SIMILARITY:
                candidates.append((sim - 0.01 * abs(expected[si] - ai), pos, ai))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_slots: set[int] = set()
    used_authors: set[int] = set()
    out: dict[int, SourceAuthor] = {}
    for _score, pos, ai in candidates:
        if pos in used_slots or ai in used_authors:
            continue
        used_slots.add(pos)
        used_authors.add(ai)
        out[pos] = authors[ai]
    return out


# Alignment compares a slot with the source authors within ALIGN_WINDOW places of where it is
# expected (typos and transliterations sit there) and with the ALIGN_KEY_NEAREST nearest
# either side sharing its family-name key (a list reordered further than the window).
ALIGN_WINDOW = 3
ALIGN_KEY_NEAREST = 4


def _author_key_index(parsed_authors: list[list[PersonName]]) -> dict[str, list[int]]:
    """``{family-name key: source author indices, ascending}`` over every spelling of each
    author; an author with one given name is also filed under that name's key, so a slot
    written in the other order ("Wang Wei" for "Wei Wang") finds it."""
    index: dict[str, list[int]] = defaultdict(list)
    for ai, names in enumerate(parsed_authors):
        keys = {n.key for n in names}
        keys |= {family_key(n.given[0]) for n in names if len(n.given) == 1}
        for key in keys - {""}:
            index[key].append(ai)
    return index


def _expected_places(parsed_slots: list[PersonName], parsed_authors: list[list[PersonName]]) -> list[int]:
    """Where in the source's list each slot is expected: its own index shifted by the offset
    of the nearest earlier anchor (the first anchor's before any). An anchor is a slot whose
    family-name key is the only one of its kind on both lists, with names that align."""
    slot_keys = Counter(n.key for n in parsed_slots)
    author_keys: dict[str, list[int]] = defaultdict(list)
    for ai, names in enumerate(parsed_authors):
        for key in {n.key for n in names} - {""}:
            author_keys[key].append(ai)
    offsets: list[int | None] = []
    for si, sname in enumerate(parsed_slots):
        found = author_keys.get(sname.key, ())
        if sname.key and slot_keys[sname.key] == 1 and len(found) == 1:
            ai = found[0]
            if max(name_similarity(sname, a) for a in parsed_authors[ai]) >= ALIGN_MIN_SIMILARITY:
                offsets.append(ai - si)
                continue
        offsets.append(None)
    current = next((o for o in offsets if o is not None), 0)
    expected = []
    for si, offset in enumerate(offsets):
        current = offset if offset is not None else current
        expected.append(si + current)
    return expected


def _align_candidates(name: PersonName, expected: int, index: dict[str, list[int]], count: int) -> set[int]:
    """Source author indices one slot is compared with: the window around ``expected`` and
    the nearest ``ALIGN_KEY_NEAREST`` either side under its family-name key."""
    out = set(range(max(0, expected - ALIGN_WINDOW), min(count, expected + ALIGN_WINDOW + 1)))
    group = index.get(name.key, ())
    if len(group) <= 2 * ALIGN_KEY_NEAREST:
        out.update(group)
    else:
        at = bisect_left(group, expected)
        out.update(group[max(0, at - ALIGN_KEY_NEAREST) : at + ALIGN_KEY_NEAREST])
    return out


# --------------------------------------------------------------------------- helpers


def slot_block(name: str, keyname: str, forenames: str) -> str:
    """The name block of an author slot (``"j smith"``), as stored on :class:`Authorship`."""
    return parse_name(name, keyname, forenames).block[:200]


def researchers_refresh(*, researcher_ids: Iterable[int]) -> None:
    """Recompute ``paper_count`` and ``name_variants`` of the given researchers.

    Two statements whatever the number of researchers; the display name is left alone
    (editors may have set it).
    """
    ids = sorted(set(researcher_ids))
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE researchers_researcher r
               SET paper_count = COALESCE(sub.n, 0),
                   name_variants = COALESCE(sub.names, '{}'),
                   modified_at = %s
              FROM (SELECT id AS rid FROM unnest(%s::bigint[]) AS id) ids
              LEFT JOIN (
                    SELECT a.researcher_id,
                           count(DISTINCT a.paper_id) AS n,
                           array_agg(DISTINCT s.name ORDER BY s.name) AS names
                      FROM researchers_authorship a
                      JOIN papers_paperauthor s ON s.id = a.slot_id
                     WHERE a.researcher_id = ANY(%s::bigint[])
                     GROUP BY a.researcher_id
              ) sub ON sub.researcher_id = ids.rid
             WHERE r.id = ids.rid
               AND (r.paper_count IS DISTINCT FROM COALESCE(sub.n, 0)
                    OR r.name_variants IS DISTINCT FROM COALESCE(sub.names, '{}'))
            """,
            # Python's time, not now() (the transaction's start); rows whose count and
            # variants hold are not written, so their modified_at stays.
            [timezone.now(), *[int_array(ids)] * 2],
        )


def constraints_for(slot_ids: Iterable[int]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Editor constraints touching ``slot_ids``: ``(must_link, cannot_link)`` pairs of slot ids.

    The hook the curation issue fills (:class:`MatchConstraint`); one query.
    """
    ids = sorted(set(slot_ids))
    must: list[tuple[int, int]] = []
    cannot: list[tuple[int, int]] = []
    with connection.cursor() as cursor:
        # One array parameter rather than an IN list of thousands of placeholders.
        cursor.execute(
            "SELECT slot_a_id, slot_b_id, kind FROM researchers_matchconstraint "
            "WHERE slot_a_id = ANY(%s::bigint[]) OR slot_b_id = ANY(%s::bigint[])",
            [int_array(ids)] * 2,
        )
        rows = cursor.fetchall()
    for a, b, kind in rows:
        (must if kind == MatchConstraint.Kind.MUST else cannot).append((a, b))
    return must, cannot


def unmatched_slots():
    """Person slots of visible papers without an authorship, newest paper first; slots left
    for an editor (:class:`SlotReview`) are not waiting for the matcher."""
    has = Authorship.objects.filter(slot=OuterRef("pk"))
    in_review = SlotReview.objects.filter(slot=OuterRef("pk"))
    return (
        PaperAuthor.objects.filter(is_collaboration=False, paper__deleted=False)
        .exclude(Exists(has))
        .exclude(Exists(in_review))
        .order_by("-paper__submitted_at", "-paper__arxiv_id", "position")
    )


def authors_backlog() -> Backlog:
    """Papers with a person slot :func:`unmatched_slots` holds, and the oldest one's change
    time (the pipeline's authors stage)."""
    row = (
        unmatched_slots()
        .order_by()
        .aggregate(n=Count("paper_id", distinct=True), oldest=Min("paper__modified_at"))
    )
    return Backlog(waiting=row["n"], oldest=row["oldest"])


# --------------------------------------------------------------------------- source data checked


def _author_ids(work_source: str, author: SourceAuthor) -> list[tuple[str, str]]:
    """The identity evidence a source author carries: ``("orcid", iD)``, ``(source, author
    id)`` and the other registries' ``(source, id)`` pairs."""
    ids = [("orcid", author.orcid)] if author.orcid else []
    if author.author_id:
        ids.append((work_source, author.author_id))
    ids.extend(author.other_ids.items())
    return ids


def source_author_checked(author: SourceAuthor, slot_name: PersonName) -> SourceAuthor | None:
    """What of one aligned source author may be taken for the slot named ``slot_name``.

    ``None`` (nothing: the slot is left to local matching) for a tombstone (``deleted``
    flag, or a placeholder name such as "Deleted Author": :func:`researchers.names.is_tombstone_name`)
    and for a source name that cannot be the slot's person
    (:func:`researchers.names.person_names_compatible`: its ids belong to someone else).
    Otherwise the author, without an ORCID iD that is a placeholder
    (:func:`researchers.orcid.orcid_is_placeholder`: valid, but no evidence) and with an
    empty ``name`` when the name is junk (:func:`researchers.names.is_junk_name`), so it is
    never shown. An alignment on an alternative spelling (OpenAlex's ``raw_author_name``)
    does not vouch for the profile's ids: the profile's own ``name`` is what is checked.
    """
    if author.deleted or is_tombstone_name(author.name):
        return None
    if not person_names_compatible(parse_name(author.name), slot_name):
        return None
    if author.orcid and orcid_is_placeholder(author.orcid):
        author = replace(author, orcid=None)
    if is_junk_name(author.name):
        author = replace(author, name="")
    return author


def _without_shared_ids(
    work_source: str, aligned: dict[int, SourceAuthor], slot_ids: dict[int, int]
) -> dict[int, SourceAuthor]:
    """``aligned`` without the ids the source gives to two slots of the paper: two slots of
    one paper are two people, so such an id is evidence for neither (one Semantic Scholar
    author id on two slots would put one researcher on the paper twice; one ORCID iD on two
    slots with incompatible names is a copy error). Kept when an editor joined the slots
    (must-links, :func:`researchers.constraints.must_linked_groups`). ``slot_ids`` maps slot
    positions to slot ids."""
    holders: dict[tuple[str, str], list[int]] = defaultdict(list)
    for position, author in aligned.items():
        for key in _author_ids(work_source, author):
            holders[key].append(position)
    shared = {key: positions for key, positions in holders.items() if len(positions) > 1}
    if not shared:
        return aligned
    groups = must_linked_groups(slot_ids[p] for positions in shared.values() for p in positions)
    out = dict(aligned)
    for (src, value), positions in shared.items():
        if len({groups.get(slot_ids[p], slot_ids[p]) for p in positions}) == 1:
            continue  # an editor says these slots are one person
        logger.warning(
            "%s gives %s %s to %d slots of one paper; not taken", work_source, src, value, len(positions)
        )
        for p in positions:
            author = out[p]
            if src == "orcid":
                out[p] = replace(author, orcid=None)
            elif src == work_source and author.author_id == value:
                out[p] = replace(author, author_id=None)
            else:
                out[p] = replace(author, other_ids={k: v for k, v in author.other_ids.items() if k != src})
    return out


def source_authors_checked(
    *, work_source: str, slots: list[tuple], aligned: dict[int, SourceAuthor]
) -> dict[int, SourceAuthor]:
    """The aligned source authors as far as they are evidence: valid is not the same as evidence.

    ``slots`` are the paper's ``(id, position, name, keyname, forenames)`` rows and
    ``aligned`` maps slot positions to source authors (:func:`align_authors`). Each author
    goes through :func:`source_author_checked` (tombstones, incompatible names, placeholder
    iDs, junk names) and :func:`_without_shared_ids` (an id on two slots of one paper). An
    author left with no id, having had some, is dropped: its slot is left to local matching
    rather than given a researcher with nothing to find it by. Returns a new mapping; no
    write; one query at most (editor must-links, when an id is shared).
    """
    rows = {
        position: (slot_id, name, keyname, forenames) for slot_id, position, name, keyname, forenames in slots
    }
    checked: dict[int, SourceAuthor] = {}
    for position, author in aligned.items():
        slot_id, name, keyname, forenames = rows[position]
        kept = source_author_checked(author, parse_name(name, keyname, forenames))
        if kept is None:
            logger.info(
                "%s author %s (%r) not taken for slot %s (%r)",
                work_source,
                author.author_id,
                author.name,
                slot_id,
                name,
            )
        else:
            checked[position] = kept
    checked = _without_shared_ids(work_source, checked, {p: row[0] for p, row in rows.items()})
    return {
        position: author
        for position, author in checked.items()
        if _author_ids(work_source, author) or not _author_ids(work_source, aligned[position])
    }


@dataclass(slots=True)
class OneSlotPerPaper:
    """Which researcher holds which slots of which paper, so that one researcher never holds
    two slots of one paper unless an editor joined them (must-links,
    :func:`researchers.constraints.must_linked_groups`): two authors of one paper are two
    people, however a source's ids or local evidence pair them.

    ``held`` maps ``(paper id, researcher id)`` to slot ids. :meth:`allows` answers for one
    more slot (a query only when the researcher already holds a slot there); :meth:`add`
    records it.
    """

    held: dict[tuple[int, int], set[int]] = field(default_factory=dict)

    @classmethod
    def of_papers(
        cls, paper_ids: Iterable[int], researcher_ids: Iterable[int] | None = None
    ) -> OneSlotPerPaper:
        """The authorships already written on ``paper_ids`` (optionally only those of
        ``researcher_ids``); one query."""
        rows = Authorship.objects.filter(paper_id__in=set(paper_ids))
        if researcher_ids is not None:
            rows = rows.filter(researcher_id__in=set(researcher_ids))
        out = cls()
        for paper_id, researcher_id, slot_id in rows.values_list("paper_id", "researcher_id", "slot_id"):
            out.add(paper_id, researcher_id, slot_id)
        return out

    def allows(self, paper_id: int, researcher_id: int, slot_id: int) -> bool:
        """True when ``researcher_id`` may take ``slot_id`` of ``paper_id``."""
        others = self.held.get((paper_id, researcher_id))
        if not others or others == {slot_id}:
            return True
        groups = must_linked_groups([*others, slot_id])
        return len({groups.get(s, s) for s in [*others, slot_id]}) == 1

    def add(self, paper_id: int, researcher_id: int, slot_id: int) -> None:
        """Record that ``researcher_id`` holds ``slot_id`` of ``paper_id``."""
        self.held.setdefault((paper_id, researcher_id), set()).add(slot_id)


# --------------------------------------------------------------------------- sources


def _survivor(researcher: Researcher) -> Researcher:
    """The record ``researcher`` was merged into, following ``merged_into`` to the chain's end.

    Curation flattens chains when it merges, but records merged before that (or by hand)
    may point at a record that was itself merged away; a cycle (never written by curation)
    stops at the first record seen twice rather than looping.
    """
    seen = {researcher.pk}
    while researcher.merged_into_id and researcher.merged_into_id not in seen:
        researcher = Researcher.objects.get(pk=researcher.merged_into_id)
        seen.add(researcher.pk)
    return researcher


def _aligned_unmatched_slots(paper: Paper, work: SourceWork) -> tuple[list[tuple], dict[int, SourceAuthor]]:
    """The paper's unmatched person slots ``(id, position, name, keyname, forenames)`` in
    order, and their alignment with the record's authors (:func:`align_authors`); the
    aligned pairs are announced with :data:`researchers.signals.source_authors_aligned`.
    Also records the source's citation count on the paper. Empty when nothing aligns."""
    if work.cited_by_count is not None and paper.cited_by_count != work.cited_by_count:
        Paper.objects.filter(pk=paper.pk).update(cited_by_count=work.cited_by_count)
    slots = list(
        PaperAuthor.objects.filter(paper=paper, is_collaboration=False, authorship__isnull=True)
        .order_by("position")
        .values_list("id", "position", "name", "keyname", "forenames")
    )
    if not slots or not work.authors:
        return slots, {}
    aligned = align_authors([(p, n, k, f) for _id, p, n, k, f in slots], work.authors)
    if not aligned:
        return slots, {}
    source_authors_aligned.send(
        sender=Researcher,
        source=work.source,
        slots=[(slot_id, aligned[position]) for slot_id, position, *_ in slots if position in aligned],
    )
    return slots, aligned


def _source_holders(
    work: SourceWork, aligned: dict[int, SourceAuthor]
) -> tuple[dict[str, Researcher], dict[tuple[str, str], Researcher]]:
    """Researchers already holding the aligned authors' ORCID iDs (``{orcid: researcher}``)
    and external ids (``{(source, external_id): researcher}``); two queries at most."""
    orcids = sorted({a.orcid for a in aligned.values() if a.orcid})
    by_orcid = {}
    if orcids:
        by_orcid = {r.orcid: r for r in Researcher.objects.filter(orcid__in=_text_values(orcids))}
    wanted = [(work.source, a.author_id) for a in aligned.values() if a.author_id]
    wanted += [(src, ext) for a in aligned.values() for src, ext in a.other_ids.items()]
    identities: dict[tuple[str, str], Researcher] = {}
    if wanted:
        q = ExternalIdentity.objects.select_related("researcher").filter(
            source__in={s for s, _ in wanted}, external_id__in=_text_values(sorted({e for _, e in wanted}))
        )
        identities = {(i.source, i.external_id): i.researcher for i in q}
    return by_orcid, identities


def _text_values(values: list[str]) -> RawSQL:
    """``values`` as one array parameter for an ``__in`` filter: a mega-paper's 3,000 ids as
    3,000 placeholders cost Django and psycopg a second to bind, one array a millisecond."""
    return RawSQL("SELECT unnest(%s::text[])", [text_array(values)])


def _source_researcher(
    work: SourceWork,
    author: SourceAuthor,
    slot_name: str,
    by_orcid: dict[str, Researcher],
    identities: dict[tuple[str, str], Researcher],
) -> tuple[Researcher, str, float, bool]:
    """The researcher one aligned author stands for: ``(researcher, method, confidence, created)``.

    The holder of the ORCID iD, else of the source's author id (unless its ORCID iD
    differs), followed to the end of its ``merged_into`` chain; else a new researcher, not
    yet saved (``created`` is true; :func:`_source_write` writes the paper's new researchers
    in one statement). ``by_orcid`` learns what it creates, so a later slot with the same iD
    gets the same object; a holder gets the author's iD from :func:`_give_orcid`.
    """
    researcher: Researcher | None = None
    method = MatchMethod.EXTERNAL_ID
    confidence = CONFIDENCE_EXTERNAL
    if author.orcid and author.orcid in by_orcid:
        researcher, method, confidence = by_orcid[author.orcid], MatchMethod.ORCID, CONFIDENCE_ORCID
    elif author.author_id and (work.source, author.author_id) in identities:
        holder = _survivor(identities[(work.source, author.author_id)])
        if author.orcid and holder.orcid and holder.orcid != author.orcid:
            logger.warning(
                "%s author %s: ORCID %s conflicts with researcher %s (%s); new researcher",
                work.source,
                author.author_id,
                author.orcid,
                holder.pk,
                holder.orcid,
            )
        else:
            researcher = holder
    if researcher is not None and researcher.merged_into_id:
        researcher = _survivor(researcher)
    if researcher is None:
        # The fuller spelling wins: Semantic Scholar often abbreviates ("M. Patwary"). A
        # source name reaches here only when it can be the slot's person and is not junk
        # (source_authors_checked); otherwise it is empty and the slot's name is shown.
        display = best_name([author.name, slot_name])[:300]
        researcher = Researcher(display_name=display, orcid=author.orcid)
        researcher.slug = make_slug(researcher.display_name, fallback="researcher")
        if author.orcid:
            by_orcid[author.orcid] = researcher
        return researcher, method, confidence, True
    return researcher, method, confidence, False


def _give_orcid(researcher: Researcher, author: SourceAuthor, by_orcid: dict[str, Researcher]) -> None:
    """Give a holder found by its author id the author's ORCID iD when it has none and no one
    else holds it; ``by_orcid`` learns it."""
    if author.orcid and not researcher.orcid and author.orcid not in by_orcid:
        researcher.orcid = author.orcid
        if researcher.pk is not None:  # one created for this paper is written with it
            researcher.save(update_fields=["orcid", "modified_at"])
        by_orcid[author.orcid] = researcher


def _source_identities(
    work: SourceWork,
    author: SourceAuthor,
    researcher: Researcher,
    identities: dict[tuple[str, str], Researcher],
) -> list[ExternalIdentity]:
    """The author's ids (the source's and the other registries') not yet held, as unsaved
    external identities of ``researcher`` (:func:`_source_write` writes them in bulk);
    ``identities`` learns them, so a later slot with the same id finds this researcher."""
    ids = {}
    if author.author_id:
        ids[work.source] = author.author_id
    ids.update(author.other_ids)
    new: list[ExternalIdentity] = []
    for src, ext in ids.items():
        if (src, ext) not in identities:
            new.append(ExternalIdentity(source=src, external_id=ext, researcher=researcher, name=author.name))
            identities[(src, ext)] = researcher
    return new


@dataclass(slots=True)
class _SourcePlan:
    """What one registry record will write for a paper: the researchers it creates
    (unsaved), their and existing researchers' new external identities, and one authorship
    per aligned slot (researchers referenced as objects, so new ones get their ids on write)."""

    researchers: list[Researcher] = field(default_factory=list)
    identities: list[ExternalIdentity] = field(default_factory=list)
    authorships: list[Authorship] = field(default_factory=list)


def _source_plan(
    paper: Paper,
    work: SourceWork,
    slots: list[tuple],
    aligned: dict[int, SourceAuthor],
    by_orcid: dict[str, Researcher],
    identities: dict[tuple[str, str], Researcher],
    on_paper: OneSlotPerPaper,
) -> _SourcePlan:
    """Decide, slot by slot in arXiv order, which researcher each aligned slot joins
    (:func:`_source_researcher`) and which ids it records (:func:`_source_identities`),
    without writing any of it. A researcher already holding another slot of the paper
    (``on_paper``, :class:`OneSlotPerPaper`) does not take this one: it is left to local
    matching. A researcher not yet saved is told apart by its object's identity."""
    plan = _SourcePlan()
    for slot_id, position, name, keyname, forenames in slots:
        author = aligned.get(position)
        if author is None:
            continue
        researcher, method, confidence, is_new = _source_researcher(work, author, name, by_orcid, identities)
        key = researcher.pk if researcher.pk is not None else -id(researcher)
        if not on_paper.allows(paper.pk, key, slot_id):
            logger.warning(
                "%s: researcher %s already holds a slot of %s", work.source, researcher.pk, paper.arxiv_id
            )
            continue
        on_paper.add(paper.pk, key, slot_id)
        if is_new:
            plan.researchers.append(researcher)
        _give_orcid(researcher, author, by_orcid)
        if researcher.pk is None:
            # Written with its counts (what researchers_refresh would compute): one paper.
            researcher.paper_count = 1
            researcher.name_variants = sorted({*researcher.name_variants, name})
        plan.identities += _source_identities(work, author, researcher, identities)
        plan.authorships.append(
            Authorship(
                slot_id=slot_id,
                paper=paper,
                researcher=researcher,
                method=method,
                source=work.source,
                confidence=confidence,
                block=slot_block(name, keyname, forenames),
                evidence=source_evidence(source=work.source, author=author),
            )
        )
    return plan


# Rows per INSERT of the source writes: psycopg's client-side binding scans a statement once
# per placeholder, so far larger statements cost more per row, not less.
SOURCE_WRITE_BATCH = 250


def _source_write(plan: _SourcePlan) -> set[int]:
    """Write a plan in bulk INSERTs (researchers, identities, authorships) and return the
    ids of the existing researchers it gave slots to (whose counts need a refresh; new ones
    are written with theirs). The unique constraints are the idempotency guard: an
    identity or a slot's authorship already written is left as it is."""
    existing = {a.researcher.pk for a in plan.authorships if a.researcher.pk is not None}
    batch = SOURCE_WRITE_BATCH
    Researcher.objects.bulk_create(plan.researchers, batch_size=batch)
    ExternalIdentity.objects.bulk_create(plan.identities, batch_size=batch, ignore_conflicts=True)
    Authorship.objects.bulk_create(plan.authorships, batch_size=batch, ignore_conflicts=True)
    return existing


@transaction.atomic
def researchers_attach_from_source(*, work: SourceWork, summary: MatchSummary | None = None) -> int:
    """Attach a paper's unmatched slots to researchers using one registry's record.

    Aligns the record's authors with the slots (:func:`align_authors`) and keeps what is
    evidence (:func:`source_authors_checked`: no tombstone, no name that cannot be the
    slot's person, no placeholder iD, no id given to two slots, no junk display name), then
    per slot: the researcher holding the ORCID iD, else the one holding the source's author
    id, else a new researcher; never one already holding another slot of the paper unless an
    editor joined the slots (:class:`OneSlotPerPaper`: that slot is left to local
    matching). A holder an editor merged away stands for the record at the end of its
    ``merged_into`` chain. Never gives one researcher a second ORCID iD: an author id held
    by a researcher with a different ORCID iD yields a new researcher instead. Records the
    source's citation count on the paper. Idempotent: slots already matched are left
    alone. Returns the number of slots attached; with ``summary``, also adds the researchers
    it created and the paper to it. Sends :data:`researchers.signals.source_authors_aligned`
    with the aligned slots (institutions links their affiliations). Raises
    ``Paper.DoesNotExist`` for an unknown arXiv id.

    Steps: align, read the holders of the aligned ids (two queries), plan
    (:func:`_source_plan`, no writes), write (:func:`_source_write`, a bulk INSERT per table
    and 250 rows), refresh the counts of the existing researchers it touched (one statement):
    a 3,000-author paper is a few dozen statements, not one or more per author. Each
    authorship carries the ids that decided it as ``evidence``
    (:func:`researchers.evidence.source_evidence`); ``unconfirmed`` is then refreshed for
    the paper's name blocks (one statement).
    """
    paper = Paper.objects.get(arxiv_id=work.arxiv_id)
    # Serialised with every other matching write (local runs take the same lock): two workers
    # attaching papers of one new ORCID iD or author id would otherwise both create its
    # researcher, and the loser's unique-key error would leave its slot unmatched. Every read
    # below happens after the lock, so the second sees what the first committed.
    advisory_xact_lock(_MATCH_LOCK)
    slots, aligned = _aligned_unmatched_slots(paper, work)
    aligned = source_authors_checked(work_source=work.source, slots=slots, aligned=aligned)
    if not aligned:
        return 0
    by_orcid, identities = _source_holders(work, aligned)
    on_paper = OneSlotPerPaper.of_papers([paper.pk])
    plan = _source_plan(paper, work, slots, aligned, by_orcid, identities, on_paper)
    touched = _source_write(plan)
    researchers_refresh(researcher_ids=touched)
    # A researcher new to a name block makes its name-only links guesses (issue 20).
    authorships_unconfirmed_refresh(blocks={a.block for a in plan.authorships})
    if summary is not None:
        summary.researchers_created += len(plan.researchers)
        if plan.authorships:
            summary.paper_ids.add(paper.pk)
    return len(plan.authorships)


# --------------------------------------------------------------------------- local


_PENDING_SQL = """
    SELECT s.id, s.paper_id, s.name, s.keyname, s.forenames
      FROM papers_paperauthor s
      JOIN papers_paper p ON p.id = s.paper_id
     WHERE NOT s.is_collaboration AND NOT p.deleted
       AND NOT EXISTS (SELECT 1 FROM researchers_authorship a WHERE a.slot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM researchers_slotreview v WHERE v.slot_id = s.id)
     ORDER BY p.submitted_at DESC NULLS LAST, p.arxiv_id DESC, s.position
"""
_EXISTING_SQL = """
    SELECT a.slot_id, a.paper_id, a.researcher_id, r.orcid
      FROM researchers_authorship a
      JOIN researchers_researcher r ON r.id = a.researcher_id
     WHERE a.block = ANY(%s::text[])
"""
_SLOTS_SQL = """
    SELECT id, paper_id, position, name, keyname, forenames, affiliations, is_collaboration
      FROM papers_paperauthor WHERE paper_id = ANY(%s::bigint[])
"""
_PAPERS_SQL = """
    SELECT id, categories, extract(year FROM submitted_at)::int
      FROM papers_paper WHERE id = ANY(%s::bigint[])
"""
# Serialises matching runs (a Celery task and a command at once): both would otherwise
# cluster the same unmatched slots and create duplicate researchers (wove.locks name).
_MATCH_LOCK = "researchers.match"


def _paper_evidence(cursor, paper_ids: Iterable[int]) -> tuple[dict[int, list[tuple]], dict[int, tuple]]:
    """Slots and facts of papers in two queries: ``(slots by paper, (categories, year))``."""
    ids = sorted(set(paper_ids))
    slots: dict[int, list[tuple]] = defaultdict(list)
    facts: dict[int, tuple] = {}
    cursor.execute(_SLOTS_SQL, [int_array(ids)])
    for row in cursor.fetchall():
        slots[row[1]].append(row)
    cursor.execute(_PAPERS_SQL, [int_array(ids)])
    for pid, categories, year in cursor.fetchall():
        facts[pid] = (frozenset(categories or ()), year)
    return slots, facts


def _copy_rows(cursor, table: str, columns: list[str], rows: Iterable[tuple]) -> None:
    """Bulk insert with PostgreSQL COPY (psycopg 3): an order of magnitude faster than INSERT."""
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


# Authorships written by one run from which the researcher tables are analysed at its end.
ANALYZE_AFTER_WRITES = 500


def _name_parser() -> Callable[[str, str, str], PersonName]:
    """:func:`parse_name` with one parse per distinct spelling for one run: a prolific
    author's name recurs on every paper."""
    parsed: dict[tuple[str, str, str], PersonName] = {}

    def name_of(name: str, keyname: str, forenames: str) -> PersonName:
        key = (name, keyname, forenames)
        found = parsed.get(key)
        if found is None:
            found = parsed[key] = parse_name(name, keyname, forenames)
        return found

    return name_of


@dataclass(slots=True)
class _LocalEvidence:
    """What one local run clusters: ``blocks`` (pending slot id to name block), ``fixed``
    (attached slot id to ``(researcher id, orcid)``), ``slot_rows`` (slot id to its
    :data:`_SLOTS_SQL` row) and the ``mentions`` of both kinds of slot."""

    blocks: dict[int, str]
    fixed: dict[int, tuple[int, str | None]]
    slot_rows: dict[int, tuple]
    mentions: list[Mention]


def _givens_by_block(rows: list[tuple], name_of: Callable[..., PersonName]) -> dict[str, tuple]:
    """The given names a paper's person slots write in each name block (one dict per paper,
    shared by its slots' mentions: no per-slot copy on a paper of thousands of authors)."""
    givens: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for row in rows:
        if not row[7]:
            name = name_of(row[3], row[4], row[5])
            givens[name.block[:200]].append(name.given)
    return {block: tuple(found) for block, found in givens.items()}


def _local_evidence(cursor, pending: list[tuple], name_of: Callable[..., PersonName]) -> _LocalEvidence:
    """The mentions of the pending slots and of the slots already attached in their name
    blocks (fixed groups), with co-authors, categories, year and affiliations; four queries."""
    blocks: dict[int, str] = {}
    for slot_id, _pid, name, keyname, forenames in pending:
        blocks[slot_id] = name_of(name, keyname, forenames).block[:200]
    cursor.execute(_EXISTING_SQL, [text_array(sorted(set(blocks.values())))])
    existing = cursor.fetchall()
    paper_ids = {row[1] for row in pending} | {row[1] for row in existing}
    slots_by_paper, facts = _paper_evidence(cursor, paper_ids)
    slot_rows = {row[0]: row for rows in slots_by_paper.values() for row in rows}
    fixed = {slot_id: (rid, orcid) for slot_id, _pid, rid, orcid in existing}
    paper_blocks = {
        pid: [(r[0], name_of(r[3], r[4], r[5]).block[:200]) for r in rows if not r[7]]
        for pid, rows in slots_by_paper.items()
    }
    paper_givens = {pid: _givens_by_block(rows, name_of) for pid, rows in slots_by_paper.items()}

    mentions: list[Mention] = []
    for slot_id in list(blocks) + list(fixed):
        row = slot_rows.get(slot_id)
        if row is None:
            continue
        _sid, paper_id, _pos, name, keyname, forenames, affiliations, _collab = row
        categories, year = facts.get(paper_id, (frozenset(), None))
        rid, orcid = fixed.get(slot_id, (None, None))
        mentions.append(
            Mention(
                id=slot_id,
                name=name_of(name, keyname, forenames),
                affiliations=tuple(affiliations or ()),
                coauthors=frozenset(b for s, b in paper_blocks.get(paper_id, ()) if s != slot_id),
                coauthor_givens=paper_givens.get(paper_id),
                categories=categories,
                year=year,
                orcid=orcid,
                group=rid,
                paper=paper_id,
            )
        )
    return _LocalEvidence(blocks=blocks, fixed=fixed, slot_rows=slot_rows, mentions=mentions)


def _local_attachments(
    clusters: list[list[int]], evidence: _LocalEvidence
) -> tuple[list[list[int]], list[tuple[int, int | None, int]]]:
    """``(new clusters, attachments)``: a cluster holding a fixed group joins its most common
    researcher; one without becomes a new cluster. Attachments are ``(slot id, researcher id
    or None, index of the new cluster or -1)`` for the pending slots only."""
    new_clusters: list[list[int]] = []
    attach: list[tuple[int, int | None, int]] = []
    for cluster in clusters:
        new_slots = [s for s in cluster if s in evidence.blocks]
        if not new_slots:
            continue
        seeds = Counter(evidence.fixed[s][0] for s in cluster if s in evidence.fixed)
        if seeds:
            rid = seeds.most_common(1)[0][0]
            attach.extend((s, rid, -1) for s in new_slots)
        else:
            new_clusters.append(new_slots)
            attach.extend((s, None, len(new_clusters) - 1) for s in new_slots)
    return new_clusters, attach


def _one_slot_per_paper_local(
    clusters: list[list[int]],
    new_clusters: list[list[int]],
    attach: list[tuple[int, int | None, int]],
    evidence: _LocalEvidence,
) -> tuple[list[list[int]], list[list[int]], list[tuple[int, int | None, int]]]:
    """``(clusters, new clusters, attachments)`` where no researcher, existing or new, takes
    a second slot of one paper unless an editor joined the slots (:class:`OneSlotPerPaper`).

    Clustering keeps two slots of one paper apart only among the mentions it sees (one name
    block); a researcher may already hold a slot of the paper under another block (a name
    variant, a source's id). A slot that would be a second one becomes a new researcher of
    its own. One query (existing authorships of the papers), more only on a conflict.
    """
    paper_of = {slot_id: evidence.slot_rows[slot_id][1] for slot_id, _rid, _idx in attach}
    existing = {rid for _slot, rid, _idx in attach if rid is not None}
    on_paper = OneSlotPerPaper.of_papers(set(paper_of.values()), existing) if existing else OneSlotPerPaper()
    moved: set[int] = set()
    out: list[tuple[int, int | None, int]] = []
    for slot_id, rid, idx in attach:
        # New clusters are told apart from researchers by a negative key.
        target = rid if rid is not None else -1 - idx
        if on_paper.allows(paper_of[slot_id], target, slot_id):
            on_paper.add(paper_of[slot_id], target, slot_id)
            out.append((slot_id, rid, idx))
            continue
        logger.info(
            "slot %s: its researcher already holds a slot of paper %s; a new researcher",
            slot_id,
            paper_of[slot_id],
        )
        moved.add(slot_id)
        new_clusters.append([slot_id])
        out.append((slot_id, None, len(new_clusters) - 1))
    if not moved:
        return clusters, new_clusters, out
    new_clusters = [[s for s in c if s not in moved] or c for c in new_clusters]
    clusters = [[s for s in c if s not in moved] for c in clusters] + [[s] for s in sorted(moved)]
    return [c for c in clusters if c], new_clusters, out


def _copy_new_researchers(
    cursor, new_clusters: list[list[int]], slot_rows: dict[int, tuple], now
) -> list[int]:
    """Write one researcher per new cluster with COPY (ids drawn from the table's sequence
    first); returns their ids in cluster order."""
    cursor.execute(
        "SELECT nextval(pg_get_serial_sequence('researchers_researcher', 'id')) FROM generate_series(1, %s)",
        [len(new_clusters)],
    )
    new_ids = [row[0] for row in cursor.fetchall()]
    researcher_rows = []
    for rid, members in zip(new_ids, new_clusters, strict=True):
        names = [slot_rows[s][3] for s in members]
        display = best_name(names)[:300]
        researcher_rows.append(
            (
                rid,
                display,
                make_slug(display, fallback="researcher"),
                text_array(sorted(set(names))),
                len({slot_rows[s][1] for s in members}),
                now,
                now,
            )
        )
    _copy_rows(
        cursor,
        "researchers_researcher",
        ["id", "display_name", "slug", "name_variants", "paper_count", "created_at", "modified_at"],
        researcher_rows,
    )
    return new_ids


def _local_signals(
    clusters: list[list[int]], attach: list[tuple[int, int | None, int]], evidence: _LocalEvidence, name_of
) -> dict[int, list[dict]]:
    """The evidence of each attached slot (:func:`researchers.evidence.cluster_evidence`),
    from the mentions of the cluster it joined: a fixed group's slots stand for their
    researcher. Also the joined researchers' slots whose evidence was the name alone
    (:func:`researchers.evidence.name_only_slots`): a newcomer sharing co-authors with one
    confirms it too. Two queries (those slots; the slots' institutions, from the
    institutions app)."""
    wanted = {slot_id for slot_id, _rid, _idx in attach}
    clusters = [c for c in clusters if wanted.intersection(c)]
    wanted |= name_only_slots(s for c in clusters for s in c if s in evidence.fixed)
    mentions = {m.id: m for m in evidence.mentions}
    coauthors: dict[int, dict[str, str]] = defaultdict(dict)
    # In author order, so the names a signal shows are the paper's first co-authors.
    for row in sorted(evidence.slot_rows.values(), key=lambda r: (r[1], r[2])):
        if not row[7]:
            coauthors[row[1]].setdefault(name_of(row[3], row[4], row[5]).block[:200], row[3])
    institutions = slot_institutions(s for c in clusters for s in c)
    out: dict[int, list[dict]] = {}
    for cluster in clusters:
        members = []
        for slot_id in cluster:
            m, row = mentions.get(slot_id), evidence.slot_rows.get(slot_id)
            if m is None or row is None:
                continue
            members.append(
                SlotFacts(
                    slot_id=slot_id,
                    paper_id=row[1],
                    name=row[3],
                    block=m.name.block[:200],
                    coauthors=coauthors[row[1]],
                    affiliations=m.affiliations,
                    categories=m.categories,
                    year=m.year,
                    institutions=institutions.get(slot_id),
                )
            )
        out.update(cluster_evidence(members, wanted.intersection(cluster)))
    return out


def _copy_local_authorships(
    cursor,
    attach: list[tuple[int, int | None, int]],
    clusters: list[list[int]],
    new_ids: list[int],
    evidence: _LocalEvidence,
    now,
    signals: dict[int, list[dict]],
) -> tuple[int, set[int]]:
    """Write the local authorships with COPY (confidence by cluster size, ``signals`` as
    their evidence, JSON text); returns how many and the existing researchers they joined
    (whose counts need a refresh). ``unconfirmed`` is set afterwards, per name block
    (:func:`researchers.evidence.authorships_unconfirmed_refresh`)."""
    cluster_size = {s: len(c) for c in clusters for s in c}
    touched: set[int] = set()
    authorship_rows = []
    for slot_id, rid, idx in attach:
        if rid is None:
            rid = new_ids[idx]
        else:
            touched.add(rid)
        confidence = CONFIDENCE_LOCAL_LINKED if cluster_size[slot_id] > 1 else CONFIDENCE_LOCAL_ALONE
        authorship_rows.append(
            (
                slot_id,
                evidence.slot_rows[slot_id][1],
                rid,
                MatchMethod.LOCAL.value,
                "",
                confidence,
                evidence.blocks[slot_id],
                json.dumps(signals.get(slot_id, []), ensure_ascii=False),
                now,
                now,
            )
        )
    _copy_rows(
        cursor,
        "researchers_authorship",
        [
            "slot_id",
            "paper_id",
            "researcher_id",
            "method",
            "source",
            "confidence",
            "block",
            "evidence",
            "created_at",
            "modified_at",
        ],
        authorship_rows,
    )
    return len(authorship_rows), touched


def _choose_by_name(
    evidence: _LocalEvidence, must: list[tuple[int, int]], cannot: list[tuple[int, int]]
) -> int:
    """Settle the pending slots whose name fits several researchers
    (:func:`researchers.clustering.name_choices`; none an editor constrained): a slot written
    exactly as one researcher's (accents kept) is must-linked to it (``must`` grows); one
    nothing decides is taken out of this run and recorded as a :class:`SlotReview`. Returns
    how many were left for review."""
    constrained = {s for pair in must + cannot for s in pair}
    choices = name_choices([m for m in evidence.mentions if m.id not in constrained])
    must.extend((slot_id, fixed_id) for slot_id, fixed_id in choices.exact.items())
    ambiguous = choices.ambiguous
    if not ambiguous:
        return 0
    SlotReview.objects.bulk_create(
        [SlotReview(slot_id=slot_id, candidates=candidates) for slot_id, candidates in ambiguous.items()],
        ignore_conflicts=True,
    )
    evidence.mentions[:] = [m for m in evidence.mentions if m.id not in ambiguous]
    for slot_id in ambiguous:
        evidence.blocks.pop(slot_id, None)
    return len(ambiguous)


def researchers_match_local(
    *, limit: int | None = None, progress: Callable[[int], None] | None = None
) -> MatchSummary:
    """Attach every unmatched person slot to a researcher using the archive's own evidence.

    Evidence per slot: normalised name (block ``"j smith"``), co-authors' blocks, the
    paper's categories and year, raw affiliations, editor constraints
    (:class:`MatchConstraint`). Slots already attached in the same blocks take part as fixed
    groups, so new papers join existing researchers and existing researchers never merge.
    Clusters without an existing researcher become new researchers. Authorships are
    ``method=local`` with confidence 0.6 (linked to other slots) or 0.5 (alone), and carry
    the signals shared with the rest of their cluster as ``evidence``
    (:func:`researchers.evidence.cluster_evidence`); ``unconfirmed`` is then set for the
    run's name blocks (:func:`researchers.evidence.authorships_unconfirmed_refresh`).

    Bulk: a fixed handful of statements per run (COPY for the writes, no per-slot query),
    under a transaction-level advisory lock so concurrent runs queue. Idempotent: a second
    run finds nothing unmatched and writes nothing. ``limit`` caps the slots considered
    (newest papers first). ``progress`` is called with the number of slots handled.
    """
    started = time.perf_counter()
    summary = MatchSummary()
    name_of = _name_parser()

    with gc_paused(), transaction.atomic(), connection.cursor() as django_cursor:
        cursor = django_cursor.cursor  # the psycopg cursor, for COPY
        advisory_xact_lock(_MATCH_LOCK)
        cursor.execute(_PENDING_SQL + (" LIMIT %s" if limit else ""), [limit] if limit else [])
        pending = cursor.fetchall()
        if not pending:
            summary.seconds = time.perf_counter() - started
            return summary

        evidence = _local_evidence(cursor, pending, name_of)
        must, cannot = constraints_for(m.id for m in evidence.mentions)
        summary.left_for_review = _choose_by_name(evidence, must, cannot)
        clusters = cluster_mentions(evidence.mentions, must_link=must, cannot_link=cannot)
        new_clusters, attach = _local_attachments(clusters, evidence)
        clusters, new_clusters, attach = _one_slot_per_paper_local(clusters, new_clusters, attach, evidence)

        now = timezone.now()
        new_ids = _copy_new_researchers(cursor, new_clusters, evidence.slot_rows, now)
        signals = _local_signals(clusters, attach, evidence, name_of)
        written, touched = _copy_local_authorships(cursor, attach, clusters, new_ids, evidence, now, signals)
        authorships_evidence_write({s: v for s, v in signals.items() if s in evidence.fixed})
        researchers_refresh(researcher_ids=touched)
        # Every block of the run: the fixed slots it re-weighed were read by these blocks.
        authorships_unconfirmed_refresh(blocks=set(evidence.blocks.values()))

    summary.slots = len(pending) - summary.left_for_review
    summary.paper_ids = {row[1] for row in pending if row[0] in evidence.blocks}
    summary.papers = len(summary.paper_ids)
    summary.matched_locally = written
    summary.researchers_created = len(new_ids)
    if summary.matched_locally >= ANALYZE_AFTER_WRITES:
        # Fresh planner statistics after a large run, as the harvester does for papers: until
        # autovacuum analyses them, tables filled in one go look empty, and joins over
        # authorships (co-authors, positions) get nested loops over every row (13 s for one
        # co-author list of the 2,800-paper sample).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE researchers_researcher, researchers_authorship")
    if progress:
        progress(len(pending))
    summary.seconds = time.perf_counter() - started
    return summary


def researchers_match_authors(
    *,
    sources: list[str] | None = None,
    fetch: Callable[[str, list[str]], Iterable[SourceWork]] | None = None,
    batch_size: int = 100,
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> MatchSummary:
    """Match every unmatched author slot, newest paper first: sources, then local evidence.

    ``sources`` lists enabled registries (``IdentitySource`` values; default
    ``settings.RESEARCHER_SOURCES``, empty in local runs so the demo never touches the
    network). ``fetch(source, arxiv_ids)`` yields :class:`SourceWork` records for a batch
    of papers (default: :func:`researchers.clients.fetch_works`, network calls made outside
    any transaction). Papers no source answers for fall back to
    :func:`researchers_match_local`. Returns a :class:`MatchSummary`.
    """
    started = time.perf_counter()
    summary = MatchSummary()
    summary.collaborations_skipped = PaperAuthor.objects.filter(
        is_collaboration=True, paper__deleted=False
    ).count()
    sources = list(settings.RESEARCHER_SOURCES if sources is None else sources)
    if sources:
        if fetch is None:
            fetch = fetch_works
        paper_ids = list(
            Paper.objects.filter(deleted=False)
            .filter(Exists(unmatched_slots().filter(paper=OuterRef("pk"))))
            .order_by("-submitted_at", "-arxiv_id")
            .values_list("arxiv_id", flat=True)[: limit or None]
        )
        failed: set[str] = set()
        for start in range(0, len(paper_ids), batch_size):
            batch = paper_ids[start : start + batch_size]
            for source in sources:
                if source in failed:
                    continue
                try:
                    works = list(fetch(source, batch))  # network, outside any transaction
                except SourceUnavailable as exc:
                    # Local matching still covers these papers; the source is retried next run.
                    logger.warning("%s unavailable, not consulted for the rest of this run: %s", source, exc)
                    failed.add(source)
                    continue
                for work in works:
                    try:
                        summary.matched_by_source += researchers_attach_from_source(
                            work=work, summary=summary
                        )
                        if work.cited_by_count is not None:
                            summary.papers_with_citations += 1
                    except Paper.DoesNotExist:
                        logger.warning("%s answered for unknown paper %s", source, work.arxiv_id)
            if progress:
                progress(len(batch))
    # Local matching in chunks of newest slots: memory stays bounded on a large archive, and
    # each chunk sees the previous chunks' researchers as fixed groups to join.
    chunk = max(1, int(getattr(settings, "RESEARCHER_MATCH_CHUNK", 50_000)))
    remaining = limit
    while remaining is None or remaining > 0:
        size = chunk if remaining is None else min(chunk, remaining)
        local = researchers_match_local(limit=size, progress=progress)
        considered = local.slots + local.left_for_review
        if not considered:
            break
        summary.paper_ids |= local.paper_ids
        summary.slots += local.slots
        summary.matched_locally += local.matched_locally
        summary.researchers_created += local.researchers_created
        summary.left_for_review += local.left_for_review
        if remaining is not None:
            remaining -= considered
        if considered < size:
            break
    summary.papers = len(summary.paper_ids)
    summary.slots += summary.matched_by_source
    summary.evidence_backfilled = authorships_evidence_backfill()  # links older than issue 20
    summary.seconds = time.perf_counter() - started
    return summary


# Authorships per backfill transaction: each reads the whole of its researchers' slots.
EVIDENCE_BACKFILL_BATCH = 5_000


def _registry_evidence(rows: list[tuple]) -> dict[int, list[dict]]:
    """Evidence of registry and editor links written before issue 20, rebuilt from what the
    researcher holds: its ORCID iD (method ``orcid``), its id in the authorship's source
    (``external_id``), ``{"kind": "editor"}`` (``editor``). ``rows`` are ``(slot id,
    researcher id, method, source, block, name)``; a link whose id is gone keeps its name."""
    researcher_ids = {row[1] for row in rows}
    orcids = dict(Researcher.objects.filter(pk__in=researcher_ids).values_list("pk", "orcid"))
    ids: dict[tuple[int, str], str] = {}
    for rid, src, ext in (
        ExternalIdentity.objects.filter(researcher_id__in=researcher_ids)
        .order_by("researcher_id", "source", "external_id")
        .values_list("researcher_id", "source", "external_id")
    ):
        ids.setdefault((rid, src), ext)
    out: dict[int, list[dict]] = {}
    for slot_id, rid, method, source, block, name in rows:
        if method == MatchMethod.EDITOR:
            out[slot_id] = [{"kind": "editor"}]
        elif method == MatchMethod.ORCID and orcids.get(rid):
            out[slot_id] = [{"kind": "orcid", "orcid": orcids[rid], "source": source}]
        elif (rid, source) in ids:
            out[slot_id] = [{"kind": "external_id", "source": source, "id": ids[(rid, source)]}]
        else:
            out[slot_id] = [{"kind": "name", "name": name, "block": block}]
    return out


_NO_EVIDENCE_SQL = """
    SELECT a.slot_id, a.researcher_id, a.method, a.source, a.block, s.name
      FROM researchers_authorship a JOIN papers_paperauthor s ON s.id = a.slot_id
     WHERE a.evidence = '[]'::jsonb
     ORDER BY a.researcher_id, a.slot_id
     LIMIT %s
"""


def authorships_evidence_backfill(*, batch_size: int = EVIDENCE_BACKFILL_BATCH) -> int:
    """Fill ``evidence`` (and then ``unconfirmed``) of authorships written before issue 20,
    ``batch_size`` at a time, each batch its own transaction under the matcher's lock, until
    none is left; :func:`researchers_match_authors` runs it after every match, so an archive
    fills itself unattended and a fresh one has nothing to do (one indexed query).

    Local links are explained by the researcher's slots as they are now
    (:func:`researchers.evidence.researcher_clusters`, :func:`~researchers.evidence.cluster_evidence`),
    registry links by the ids the researcher holds (:func:`_registry_evidence`): the ids the
    registry gave then are not stored. Returns the number of authorships filled.
    """
    filled = 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            advisory_xact_lock(_MATCH_LOCK)
            cursor.execute(_NO_EVIDENCE_SQL, [batch_size])
            rows = cursor.fetchall()
            if not rows:
                return filled
            local = [row for row in rows if row[2] == MatchMethod.LOCAL]
            signals = _registry_evidence([row for row in rows if row[2] != MatchMethod.LOCAL])
            wanted = {row[0] for row in local}
            for members in researcher_clusters(row[1] for row in local).values():
                signals.update(cluster_evidence(members, wanted.intersection(m.slot_id for m in members)))
            for slot_id, _rid, _method, _source, block, name in local:
                signals.setdefault(slot_id, [{"kind": "name", "name": name, "block": block}])
            authorships_evidence_write(signals)
            authorships_unconfirmed_refresh(blocks={row[4] for row in rows})
        filled += len(rows)
        if len(rows) < batch_size:
            return filled


def researcher_set_orcid(*, researcher: Researcher, orcid: str) -> Researcher:
    """Give a researcher its ORCID iD (any accepted input form), validated and normalised.

    Raises :class:`researchers.orcid.InvalidOrcid` for a bad iD and ``ValueError`` when the
    researcher already has a different iD or another researcher holds this one.
    """
    value = normalize_orcid(orcid)
    if researcher.orcid and researcher.orcid != value:
        raise ValueError(f"researcher {researcher.pk} already has ORCID iD {researcher.orcid}")
    if Researcher.objects.filter(orcid=value).exclude(pk=researcher.pk).exists():
        raise ValueError(f"ORCID iD {value} belongs to another researcher")
    researcher.orcid = value
    researcher.save(update_fields=["orcid", "modified_at"])
    return researcher


__all__ = [
    "IdentitySource",
    "MatchSummary",
    "SourceAuthor",
    "SourceWork",
    "align_authors",
    "orcid_or_none",
    "authorships_evidence_backfill",
    "researcher_set_orcid",
    "researchers_attach_from_source",
    "researchers_match_authors",
    "researchers_match_local",
    "researchers_refresh",
]
