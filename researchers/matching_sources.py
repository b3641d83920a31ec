"""Matching author slots from a registry's record (Semantic Scholar, OpenAlex): align, check, write."""

from __future__ import annotations

import logging
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from django.db import transaction
from django.db.models.expressions import RawSQL

from papers.models import Paper, PaperAuthor
from papers.text import make_slug
from wove.bulk import text_array, unnested
from wove.locks import advisory_xact_lock

from .constraints import must_linked_groups
from .evidence import (
    authorships_unconfirmed_refresh,
    source_evidence,
)
from .matching_common import (
    CONFIDENCE_EXTERNAL,
    CONFIDENCE_ORCID,
    MATCH_LOCK,
    MatchSummary,
    OneSlotPerPaper,
    researchers_refresh,
    slot_block,
)
from .models import (
    Authorship,
    ExternalIdentity,
    MatchMethod,
    Researcher,
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
from .orcid import orcid_is_placeholder
from .over_merged import over_merged_positions, over_merged_slots_settle
from .records import SourceAuthor, SourceWork
from .signals import source_authors_aligned

logger = logging.getLogger(__name__)

# Aligning a source's author to an arXiv slot needs at least this name similarity.
ALIGN_MIN_SIMILARITY = 0.75


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
    return unnested(text_array(values), "text")


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

    An aligned author whose profile is too large to be one person (``work.profiles``,
    :mod:`researchers.over_merged`) gives nothing: its slot goes to the researcher of its
    name block that an institution and a co-author agree with, else to review (counted in
    ``summary`` as matched locally or left for review, not in the return value).

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
    advisory_xact_lock(MATCH_LOCK)
    slots, aligned = _aligned_unmatched_slots(paper, work)
    # An over-merged profile (ourresearch/OpenAlex#5) is no one's: its ids are not taken.
    over = over_merged_positions(work, aligned)
    over_aligned = {p: aligned[p] for p in over}
    aligned = {p: a for p, a in aligned.items() if p not in over}
    aligned = source_authors_checked(work_source=work.source, slots=slots, aligned=aligned)
    plan = _SourcePlan()
    if aligned:
        by_orcid, identities = _source_holders(work, aligned)
        on_paper = OneSlotPerPaper.of_papers([paper.pk])
        plan = _source_plan(paper, work, slots, aligned, by_orcid, identities, on_paper)
        touched = _source_write(plan)
        researchers_refresh(researcher_ids=touched)
        # A researcher new to a name block makes its name-only links guesses (issue 20).
        authorships_unconfirmed_refresh(blocks={a.block for a in plan.authorships})
    # After the write: the paper's other slots are attached, their co-authorship is evidence.
    linked, reviewed = (
        over_merged_slots_settle(paper=paper, work=work, slots=slots, over=over, aligned=over_aligned)
        if over
        else (0, 0)
    )
    if summary is not None:
        summary.researchers_created += len(plan.researchers)
        summary.slots += linked
        summary.matched_locally += linked
        summary.left_for_review += reviewed
        if plan.authorships or linked:
            summary.paper_ids.add(paper.pk)
    return len(plan.authorships)
