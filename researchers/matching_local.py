"""Matching author slots on the archive's own evidence: co-authors, affiliations, categories, years."""

from __future__ import annotations

import json
import logging
import math
import time
import zlib
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from papers.text import make_slug
from wove.bulk import gc_paused, int_array, text_array
from wove.locks import advisory_xact_lock
from wove.statistics import tables_settle

from .clustering import Mention, cluster_mentions, name_counts, name_turned
from .evidence import (
    SlotFacts,
    authorships_evidence_write,
    authorships_unconfirmed_refresh,
    cluster_evidence,
    name_only_slots,
    slot_institutions,
)
from .matching_common import (
    CONFIDENCE_LOCAL_ALONE,
    CONFIDENCE_LOCAL_LINKED,
    MATCH_LOCK,
    MATCHED_TABLES,
    MatchSummary,
    OneSlotPerPaper,
    constraints_for,
    researchers_refresh,
)
from .models import (
    MatchMethod,
    SlotReview,
)
from .name_choices import name_choices
from .names import (
    PersonName,
    best_name,
    parse_name,
)

logger = logging.getLogger(__name__)

# --------------------------------------------------------------------------- local

_PENDING_SQL = """
    SELECT s.id, s.paper_id, s.name, s.keyname, s.forenames
      FROM papers_paperauthor s
      JOIN papers_paper p ON p.id = s.paper_id
     WHERE NOT s.is_collaboration AND NOT p.deleted
       AND NOT EXISTS (SELECT 1 FROM researchers_authorship a WHERE a.slot_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM researchers_slotreview v WHERE v.slot_id = s.id)
"""
_NEWEST_FIRST = " ORDER BY p.submitted_at DESC NULLS LAST, p.arxiv_id DESC, s.position"
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
    (:func:`researchers.name_choices.name_choices`; none an editor constrained): a slot written
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


# Pending slots read per round trip while they are put in chunks.
PENDING_FETCH = 20_000


def pending_by_block(chunk: int, *, limit: int | None = None) -> list[array]:
    """The pending person slots (unmatched, not under review, of live papers; the newest
    ``limit`` when given) as ``ceil(n / chunk)`` arrays of slot ids, every slot of one name
    block in one array: the chunks :func:`researchers_match_local` takes one at a time.

    By block, not by age: a block's slots are clustered together once, as in one run over
    them all, where chunks of the newest slots made every later chunk re-read the earlier
    chunks' researchers in its blocks (work growing with the square of a first load) and
    left its new slots of a name shared by two of them for review (113,000 of 302,000 slots
    on a 100,000-paper load). The block is the one clustering will use: the name turned round
    where the other order is written twice as often (:func:`researchers.clustering.name_turned`
    over all pending slots). Chunks differ in size by how blocks fall (CRC-32 of the block).
    Memory: two machine words a slot and one parsed name per distinct spelling.
    """
    spellings: dict[tuple[str, str, str], int] = {}
    ids, spelled = array("q"), array("l")
    with connection.chunked_cursor() as cursor:
        # Unordered unless a limit picks the newest: the chunks order their own slots.
        cursor.execute(*_pending_query(limit, None, ordered=bool(limit)))
        while rows := cursor.fetchmany(PENDING_FETCH):
            for slot_id, _pid, name, keyname, forenames in rows:
                ids.append(slot_id)
                spelled.append(spellings.setdefault((name, keyname, forenames), len(spellings)))
    if not ids:
        return []
    names = [parse_name(*spelling) for spelling in spellings]
    counts = name_counts(names[index] for index in spelled)
    parts = math.ceil(len(ids) / chunk)
    part_of = [zlib.crc32(name_turned(name, counts).block.encode()) % parts for name in names]
    chunks = [array("q") for _ in range(parts)]
    for slot_id, index in zip(ids, spelled, strict=True):
        chunks[part_of[index]].append(slot_id)
    return [c for c in chunks if c]


def _pending_query(
    limit: int | None, slot_ids: Iterable[int] | None, *, ordered: bool = True
) -> tuple[str, list]:
    """The pending slots' query and parameters: all of them, the newest ``limit``, or those
    of ``slot_ids`` still pending; newest first when ``ordered``."""
    sql, params = _PENDING_SQL, []
    if slot_ids is not None:
        sql += " AND s.id = ANY(%s::bigint[])"
        params.append(int_array(slot_ids))
    if ordered:
        sql += _NEWEST_FIRST
    if limit:
        sql += " LIMIT %s"
        params.append(limit)
    return sql, params


def researchers_match_local(
    *,
    limit: int | None = None,
    slot_ids: Iterable[int] | None = None,
    settle: bool = True,
    progress: Callable[[int], None] | None = None,
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
    (newest papers first); ``slot_ids`` takes only those slots (a chunk of
    :func:`pending_by_block`). ``settle=False`` leaves the planner statistics to the caller
    (the stage refreshes them after its chunks). ``progress`` is called with the number of
    slots handled.
    """
    started = time.perf_counter()
    summary = MatchSummary()
    name_of = _name_parser()

    with gc_paused(), transaction.atomic(), connection.cursor() as django_cursor:
        cursor = django_cursor.cursor  # the psycopg cursor, for COPY
        advisory_xact_lock(MATCH_LOCK)
        cursor.execute(*_pending_query(limit, slot_ids))
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
        # Fresh planner statistics after a large run, as the harvester does for papers: until
        # autovacuum analyses them, joins over authorships (co-authors, positions) get nested
        # loops over every row (13 s for one co-author list of the 2,800-paper sample). In
        # the transaction, so analysed only: the authors stage vacuums once after its chunks.
        if settle:
            tables_settle(MATCHED_TABLES, written)

    summary.slots = len(pending) - summary.left_for_review
    summary.paper_ids = {row[1] for row in pending if row[0] in evidence.blocks}
    summary.papers = len(summary.paper_ids)
    summary.matched_locally = written
    summary.researchers_created = len(new_ids)
    if progress:
        progress(len(pending))
    summary.seconds = time.perf_counter() - started
    return summary
