"""Matching author slots to researchers: from Semantic Scholar / OpenAlex, or locally."""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, Min, OuterRef
from django.utils import timezone

from papers.models import Paper, PaperAuthor
from papers.text import make_slug
from wove.backlog import Backlog
from wove.bulk import gc_paused, int_array, text_array
from wove.locks import advisory_xact_lock

from .clients import fetch_works
from .clients.base import SourceUnavailable
from .clustering import Mention, cluster_mentions, name_choices
from .models import (
    Authorship,
    ExternalIdentity,
    IdentitySource,
    MatchConstraint,
    MatchMethod,
    Researcher,
    SlotReview,
)
from .names import PersonName, best_name, name_similarity, parse_name
from .orcid import normalize_orcid, orcid_or_none
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
    slots left for an editor (:class:`researchers.models.SlotReview`).
    """

    papers: int = 0
    slots: int = 0
    matched_by_source: int = 0
    matched_locally: int = 0
    researchers_created: int = 0
    collaborations_skipped: int = 0
    left_for_review: int = 0
    papers_with_citations: int = 0
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
            + f" ({self.seconds:.2f} s, {rate:,.0f} slots/s)"
        )


# --------------------------------------------------------------------------- alignment


def align_authors(
    slots: list[tuple[int, str, str, str]], authors: list[SourceAuthor]
) -> dict[int, SourceAuthor]:
    """Pair arXiv author slots with a source's author list.

    ``slots`` are ``(position, name, keyname, forenames)`` in arXiv order. Pairs are chosen
    greedily by name similarity (:func:`researchers.names.name_similarity`: accents,
    initials, hyphens, particles, "Last, First", CJK order, TeX accents), ties broken by
    closeness of position; a pair needs ``ALIGN_MIN_SIMILARITY``. Returns
    ``{slot position: SourceAuthor}``; unaligned slots are absent.
    """
    parsed_slots = [(pos, parse_name(name, keyname, forenames)) for pos, name, keyname, forenames in slots]
    parsed_authors = [
        (i, [parse_name(n) for n in [a.name, *a.alt_names] if n]) for i, a in enumerate(authors)
    ]
    candidates: list[tuple[float, int, int]] = []
    for si, (pos, sname) in enumerate(parsed_slots):
        for ai, anames in parsed_authors:
            sim = max((name_similarity(sname, aname) for aname in anames), default=0.0)
            if sim >= ALIGN_MIN_SIMILARITY:
                candidates.append((sim - 0.01 * abs(si - ai), pos, ai))
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
                   name_variants = COALESCE(sub.names, '{}')
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
            """,
            [int_array(ids)] * 2,
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
    orcids = {a.orcid for a in aligned.values() if a.orcid}
    by_orcid = {r.orcid: r for r in Researcher.objects.filter(orcid__in=orcids)}
    wanted = [(work.source, a.author_id) for a in aligned.values() if a.author_id]
    wanted += [(src, ext) for a in aligned.values() for src, ext in a.other_ids.items()]
    identities: dict[tuple[str, str], Researcher] = {}
    if wanted:
        q = ExternalIdentity.objects.select_related("researcher").filter(
            source__in={s for s, _ in wanted}, external_id__in={e for _, e in wanted}
        )
        identities = {(i.source, i.external_id): i.researcher for i in q}
    return by_orcid, identities


def _source_researcher(
    work: SourceWork,
    author: SourceAuthor,
    slot_name: str,
    by_orcid: dict[str, Researcher],
    identities: dict[tuple[str, str], Researcher],
) -> tuple[Researcher, str, float, bool]:
    """The researcher one aligned author stands for: ``(researcher, method, confidence, created)``.

    The holder of the ORCID iD, else of the source's author id (unless its ORCID iD
    differs), followed to the end of its ``merged_into`` chain; else a new researcher. A
    holder without an ORCID iD gets the author's. ``by_orcid`` learns what it creates or gives.
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
        # The fuller spelling wins: Semantic Scholar often abbreviates ("M. Patwary").
        display = best_name([author.name, slot_name])[:300]
        researcher = Researcher(display_name=display, orcid=author.orcid)
        researcher.slug = make_slug(researcher.display_name, fallback="researcher")
        researcher.save()
        if author.orcid:
            by_orcid[author.orcid] = researcher
        return researcher, method, confidence, True
    if author.orcid and not researcher.orcid and author.orcid not in by_orcid:
        researcher.orcid = author.orcid
        researcher.save(update_fields=["orcid", "modified_at"])
        by_orcid[author.orcid] = researcher
    return researcher, method, confidence, False


def _source_identities(
    work: SourceWork,
    author: SourceAuthor,
    researcher: Researcher,
    identities: dict[tuple[str, str], Researcher],
) -> None:
    """Record the author's ids (the source's and the other registries') not yet held, as
    ``researcher``'s external identities; ``identities`` learns them."""
    ids = {}
    if author.author_id:
        ids[work.source] = author.author_id
    ids.update(author.other_ids)
    for src, ext in ids.items():
        if (src, ext) not in identities:
            ExternalIdentity.objects.get_or_create(
                source=src, external_id=ext, defaults={"researcher": researcher, "name": author.name}
            )
            identities[(src, ext)] = researcher


@transaction.atomic
def researchers_attach_from_source(*, work: SourceWork, summary: MatchSummary | None = None) -> int:
    """Attach a paper's unmatched slots to researchers using one registry's record.

    Aligns the record's authors with the slots (:func:`align_authors`), then per slot: the
    researcher holding the ORCID iD, else the one holding the source's author id, else a
    new researcher; a holder an editor merged away stands for the record at the end of its
    ``merged_into`` chain. Never gives one researcher a second ORCID iD: an author id held by a
    researcher with a different ORCID iD yields a new researcher instead. Records the
    source's citation count on the paper. Idempotent: slots already matched are left
    alone. Returns the number of slots attached; with ``summary``, also adds the researchers
    it created and the paper to it. Sends :data:`researchers.signals.source_authors_aligned`
    with the aligned slots (institutions links their affiliations). Raises
    ``Paper.DoesNotExist`` for an unknown arXiv id.
    """
    paper = Paper.objects.get(arxiv_id=work.arxiv_id)
    # Serialised with every other matching write (local runs take the same lock): two workers
    # attaching papers of one new ORCID iD or author id would otherwise both create its
    # researcher, and the loser's unique-key error would leave its slot unmatched. Every read
    # below happens after the lock, so the second sees what the first committed.
    advisory_xact_lock(_MATCH_LOCK)
    slots, aligned = _aligned_unmatched_slots(paper, work)
    if not aligned:
        return 0
    by_orcid, identities = _source_holders(work, aligned)

    touched: set[int] = set()
    new_authorships: list[Authorship] = []
    created = 0
    for slot_id, position, name, keyname, forenames in slots:
        author = aligned.get(position)
        if author is None:
            continue
        researcher, method, confidence, is_new = _source_researcher(work, author, name, by_orcid, identities)
        created += is_new
        _source_identities(work, author, researcher, identities)
        new_authorships.append(
            Authorship(
                slot_id=slot_id,
                paper=paper,
                researcher=researcher,
                method=method,
                source=work.source,
                confidence=confidence,
                block=slot_block(name, keyname, forenames),
            )
        )
        touched.add(researcher.pk)
    Authorship.objects.bulk_create(new_authorships, ignore_conflicts=True)
    researchers_refresh(researcher_ids=touched)
    if summary is not None:
        summary.researchers_created += created
        if new_authorships:
            summary.paper_ids.add(paper.pk)
    return len(new_authorships)


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


def _copy_local_authorships(
    cursor,
    attach: list[tuple[int, int | None, int]],
    clusters: list[list[int]],
    new_ids: list[int],
    evidence: _LocalEvidence,
    now,
) -> tuple[int, set[int]]:
    """Write the local authorships with COPY (confidence by cluster size); returns how many
    and the existing researchers they joined (whose counts need a refresh)."""
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
                now,
            )
        )
    _copy_rows(
        cursor,
        "researchers_authorship",
        ["slot_id", "paper_id", "researcher_id", "method", "source", "confidence", "block", "created_at"],
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
    ``method=local`` with confidence 0.6 (linked to other slots) or 0.5 (alone).

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

        now = timezone.now()
        new_ids = _copy_new_researchers(cursor, new_clusters, evidence.slot_rows, now)
        written, touched = _copy_local_authorships(cursor, attach, clusters, new_ids, evidence, now)
        researchers_refresh(researcher_ids=touched)

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
    summary.seconds = time.perf_counter() - started
    return summary


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
    "researcher_set_orcid",
    "researchers_attach_from_source",
    "researchers_match_authors",
    "researchers_match_local",
    "researchers_refresh",
]
