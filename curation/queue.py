"""The same-name queue: pairs of researcher records that may be one person, ranked by evidence."""

from __future__ import annotations

import string
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from django.core.cache import cache
from django.db import connection

from papers.affiliations import affiliation_tokens
from researchers.family_names import MIN_PART, VARIANT_NAME_REGEX, FamilyVariant, family_variants
from researchers.models import ExternalIdentity, IdentitySource, Researcher
from researchers.names import (
    PersonName,
    given_compatible,
    name_similarity,
    parse_name,
    person_names_compatible,
    umlaut_key,
)

from .coauthors import CoauthorKey, coauthor_keys, coauthors_shared
from .models import PairDecision

# Name blocks held by more researcher records than this are skipped by the queue: common
# initials-and-surname blocks ("y wang") give pairs by the thousand and little evidence.
QUEUE_MAX_BLOCK = 40
# The whole queue is kept in Django's cache under its version (same_name_queue_entries); this
# bounds how long a change the version does not see (an edited display name) goes unseen.
QUEUE_CACHE_SECONDS = 300
# Evidence weights of the same-name queue (a ranking, not a decision).
W_COAUTHOR = 0.5
W_CATEGORY = 0.4
W_AFFILIATION = 1.0
W_NAME = 0.5
W_ORCID = 3.0
W_SAME_GIVEN = 0.2  # the first given name spelled out identically ("Lucas"), not just an initial

# --------------------------------------------------------------------------- same-name queue

# How two records' names relate (PairCandidate.name_relation).
SAME_NAME = "same name"
COMPATIBLE = "compatible names"
VARIANT = "variant spelling"
SHORT_FORM = "given names differ"
# The queue's tiers, best first (PairCandidate.tier); same_name_queue's docstring says why.
QUEUE_TIERS = {
    1: "same name, shared co-authors",
    2: "compatible names, shared co-authors",
    3: "same name",
    4: "compatible names",
    5: "given names differ",
    6: "authors of one paper together",
}
# Two slots of one author list are two people (S2AND's hard rule), unless the byline names
# one person twice: such pairs go last, whatever else they share.
TOGETHER_TIER = 6


@dataclass
class PairCandidate:
    """Two active researcher records that may be one person, with the evidence.

    ``tier`` (1 best .. 6) and ``score`` order the queue (:func:`same_name_queue`);
    ``name_relation`` is one of ``"same name"``, ``"compatible names"``, ``"variant
    spelling"`` (different name blocks: :func:`researchers.family_names.family_variants`)
    or ``"given names differ"``; ``why`` says in words why the names were paired
    (``"“Vidal” is one part of the family name “Soler-Vidal”"``).
    """

    a: Researcher
    b: Researcher
    score: float
    shared_coauthors: list[str]
    shared_categories: list[str]
    shared_affiliation_words: list[str]
    name_similarity: float
    orcid: str  # "same person" (an iD of one is an identity of the other), "different", ""
    tier: int = 4
    name_relation: str = COMPATIBLE
    why: str = ""
    together: list[str] = field(default_factory=list)  # arXiv ids of papers both records are authors of
    variant: FamilyVariant | None = None  # the variant spelling that paired them, if it did

    @property
    def tier_label(self) -> str:
        """The tier in words (``"same name, shared co-authors"``)."""
        return QUEUE_TIERS[self.tier]


# ``{scope}`` is "" for the whole archive, or :data:`_IN_BLOCKS` for the blocks of a filter.
_QUEUE_SQL = """
    WITH rb AS (
        SELECT DISTINCT a.researcher_id AS rid, a.block
          FROM researchers_authorship a
          JOIN researchers_researcher r ON r.id = a.researcher_id
         WHERE r.merged_into_id IS NULL{scope}
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
_IN_BLOCKS = " AND a.block = ANY(%s)"
# Active researchers one of whose spellings may be filed under another family key (the
# last column: filed under the filter's blocks, always true for the whole archive).
_VARIANT_NAMES_SQL = """
    SELECT r.id, r.display_name, r.name_variants, true
      FROM researchers_researcher r
     WHERE r.merged_into_id IS NULL
       AND EXISTS (SELECT 1 FROM unnest(r.name_variants || r.display_name::varchar) n WHERE n ~ %s)
     ORDER BY r.id
"""
# The same for a filter, through the block index alone: the records filed under its blocks,
# under a shorter form of its family key (``"j lopez"``: "Juan Garcia Lopez" read as one is
# ``"j garcialopez"``), or under a longer one starting with it (``"j garciabellido"``:
# "Juan Garcia-Bellido" has the part "Garcia"). The range finds a prefix in any collation
# (blocks are ``a``-``z`` and spaces); ``left`` keeps the prefix alone.
_SCOPED_VARIANT_NAMES_SQL = """
    SELECT r.id, r.display_name, r.name_variants,
           EXISTS (SELECT 1 FROM researchers_authorship f WHERE f.researcher_id = r.id AND f.block = ANY(%s))
      FROM researchers_researcher r
     WHERE r.merged_into_id IS NULL
       AND r.id IN (
            SELECT a.researcher_id FROM researchers_authorship a WHERE a.block = ANY(%s)
             UNION
            SELECT a.researcher_id
              FROM unnest(%s::text[]) p(prefix)
              JOIN researchers_authorship a
                ON a.block BETWEEN p.prefix AND p.prefix || repeat('z', 200)
               AND left(a.block, length(p.prefix)) = p.prefix)
       AND EXISTS (SELECT 1 FROM unnest(r.name_variants || r.display_name::varchar) n WHERE n ~ %s)
     ORDER BY r.id
"""
_QUEUE_VERSION_SQL = """
    SELECT (SELECT max(id) FROM curation_curationrecord),
           (SELECT max(id) FROM researchers_researcher),
           (SELECT max(id) FROM researchers_authorship),
           (SELECT max(id) FROM researchers_externalidentity)
"""
_BLOCK_HOLDERS_SQL = """
    SELECT DISTINCT a.researcher_id, a.block
      FROM researchers_authorship a
      JOIN researchers_researcher r ON r.id = a.researcher_id
     WHERE r.merged_into_id IS NULL AND a.block = ANY(%s)
"""
# Pairs among the given active records that share a block of 2..max_block records: the
# whole-archive query finds them as pairs of one block, so a filter must not offer them as
# variant spellings. Each block is counted through the block index.
_SHARED_BLOCK_PAIRS_SQL = """
    WITH rb AS (
        SELECT DISTINCT a.researcher_id AS rid, a.block
          FROM researchers_authorship a
         WHERE a.researcher_id = ANY(%s)
    ), ok AS (
        SELECT b.block
          FROM (SELECT DISTINCT block FROM rb) b
         WHERE (SELECT count(DISTINCT a.researcher_id)
                  FROM researchers_authorship a
                  JOIN researchers_researcher r ON r.id = a.researcher_id
                 WHERE a.block = b.block AND r.merged_into_id IS NULL) BETWEEN 2 AND %s
    )
    SELECT DISTINCT x.rid, y.rid
      FROM rb x JOIN rb y ON y.block = x.block AND x.rid < y.rid
     WHERE x.block IN (SELECT block FROM ok)
"""


def queue_filter_blocks(name: str) -> list[str]:
    """The name blocks a queue filter covers, sorted: those of ``name`` as written
    (``"M. Vidal"``: ``m vidal``) and of the whole filter read as a family name under every
    initial (``"de la Cruz"``: ``cruz``, ``a cruz`` .. ``z cruz``; folded initials are ``a``
    to ``z``, :func:`papers.text.fold`). Empty for a filter with no family name in it. No
    database access."""
    written, family = parse_name(name), parse_name(name, name)
    blocks = {written.block} if written.key else set()
    if family.key:
        blocks |= {family.key, *(f"{initial} {family.key}" for initial in string.ascii_lowercase)}
    return sorted(block[:200] for block in blocks)  # Authorship.block's length


def _scoped_variant_names(blocks: list[str]) -> list[tuple[int, str, list[str], bool]]:
    """:data:`_SCOPED_VARIANT_NAMES_SQL` for the blocks of a filter: ``(id, display name,
    name variants, filed under blocks)`` of the records whose variants may fall in
    ``blocks``, or which are filed there. A record filed under a longer key ending with the
    filter's (``"m solervidal"`` for ``vidal``) is not looked up: no index finds a suffix.
    One query."""
    keys = {block.rpartition(" ")[2] for block in blocks}
    initials = {block.partition(" ")[0] for block in blocks if " " in block}
    shorter = {f"{i} {k[cut:]}" for k in keys for cut in range(len(k)) for i in initials}
    # A part shorter than MIN_PART is never offered as a variant.
    prefixes = {f"{i} {k}" for k in keys if len(k) >= MIN_PART for i in initials}
    with connection.cursor() as cursor:
        cursor.execute(
            _SCOPED_VARIANT_NAMES_SQL,
            [blocks, sorted(shorter | set(blocks)), sorted(prefixes), VARIANT_NAME_REGEX],
        )
        return cursor.fetchall()


def _variant_pairs(
    max_block: int, blocks: list[str] | None = None
) -> dict[tuple[int, int], tuple[int, FamilyVariant]]:
    """Pairs of active records filed under one family name spelled two ways, across name
    blocks: ``{(low id, high id): (id of the record whose spelling has the variant, the
    variant)}``. An index, not all pairs: the records whose names can vary (a hyphen or three
    words, found in SQL) give their variant blocks (``"m vidal"`` from ``M. Soler-Vidal``);
    one query finds who is filed under those blocks (``Authorship.block``, indexed). A record
    already filed under a variant block is a same-block pair (the block query has it); blocks
    of more than ``max_block`` records are skipped, as there. Given names are checked by the
    caller. With ``blocks`` (a filter's, :func:`queue_filter_blocks`), only the pairs with a
    record filed under one of them or a variant falling in one. Two queries."""
    wanted: dict[str, list[tuple[int, FamilyVariant]]] = defaultdict(list)
    if blocks is None:
        with connection.cursor() as cursor:
            cursor.execute(_VARIANT_NAMES_SQL, [VARIANT_NAME_REGEX])
            rows = cursor.fetchall()
    else:
        rows = _scoped_variant_names(blocks)
    scope = set(blocks or ())
    for rid, display_name, variants, filed in rows:
        for name in dict.fromkeys([display_name, *variants]):
            for variant in family_variants(name):
                if filed or variant.block in scope:
                    wanted[variant.block].append((rid, variant))
    if not wanted:
        return {}
    holders: dict[str, set[int]] = defaultdict(set)
    with connection.cursor() as cursor:
        cursor.execute(_BLOCK_HOLDERS_SQL, [sorted(wanted)])
        for rid, block in cursor.fetchall():
            holders[block].add(rid)
    out: dict[tuple[int, int], tuple[int, FamilyVariant]] = {}
    # Sorted, so a pair found through two variants always says the same why.
    for block, held in sorted(holders.items()):
        if len(held) > max_block:
            continue
        for rid, variant in wanted[block]:
            if rid in held:
                continue
            for other in sorted(held):
                out.setdefault((min(rid, other), max(rid, other)), (rid, variant))
    return out


def _evidence_sets(ids: list[int]) -> tuple[dict, dict, dict, dict]:
    """Per researcher id: its co-authors (:func:`curation.coauthors.coauthor_keys`, the one
    rule the comparison reads too), its papers' categories, the words of its slots'
    affiliations (:func:`papers.affiliations.affiliation_tokens`), its papers' arXiv ids.
    Two queries."""
    papers: dict[int, set[str]] = defaultdict(set)
    categories: dict[int, set[str]] = defaultdict(set)
    affiliations: dict[int, set[str]] = defaultdict(set)
    coauthors = coauthor_keys(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT a.researcher_id, p.categories, s.affiliations, p.arxiv_id
              FROM researchers_authorship a
              JOIN papers_paper p ON p.id = a.paper_id
              JOIN papers_paperauthor s ON s.id = a.slot_id
             WHERE a.researcher_id = ANY(%s)
            """,
            [ids],
        )
        for rid, cats, affs, arxiv_id in cursor.fetchall():
            categories[rid].update(cats or ())
            affiliations[rid] |= affiliation_tokens(affs or ())
            papers[rid].add(arxiv_id)
    return coauthors, categories, affiliations, papers


def _name_relation(a: PersonName, b: PersonName) -> tuple[str, str]:
    """``(relation, why)`` of two compatible names of one block (see :data:`QUEUE_TIERS`)."""
    if a.key == b.key and a.given == b.given:
        return SAME_NAME, "written alike once accents, punctuation and particles are set aside"
    if (
        a.has_full_given
        and b.has_full_given
        and umlaut_key(a.given[0]) != umlaut_key(b.given[0])
        and umlaut_key("".join(a.given)) != umlaut_key("".join(b.given))
    ):
        # Compatible only as a prefix ("Ari"/"Ariyeh", "Jian-Guo"/"Jianping"): a short
        # form, or two people (S2AND calls different spelled-out first names incompatible).
        return SHORT_FORM, f"“{a.given_form}” and “{b.given_form}”: a short form, or two people"
    if not a.given or not b.given:
        return COMPATIBLE, "a name without given names"
    if a.key != b.key:
        return COMPATIBLE, "a family name split or ordered differently"
    return COMPATIBLE, "initials against spelled-out names, or a missing middle name"


def _tier(relation: str, linked: bool) -> int:
    if relation == SAME_NAME:
        return 1 if linked else 3
    if relation == SHORT_FORM:
        return 2 if linked else 5
    return 2 if linked else 4


@dataclass
class _QueueFacts:
    """What :func:`_candidate` reads for every pair: loaded once by :func:`same_name_queue`."""

    researchers: dict[int, Researcher]
    parsed: dict[int, PersonName]
    orcid_ids: dict[int, set[str]]
    coauthors: dict[int, dict[CoauthorKey, str]]
    categories: dict[int, set[str]]
    affiliations: dict[int, set[str]]
    papers: dict[int, set[str]]


def _candidate(a_id: int, b_id: int, facts: _QueueFacts, variant: FamilyVariant | None) -> PairCandidate:
    a, b = facts.researchers[a_id], facts.researchers[b_id]
    pa, pb = facts.parsed[a_id], facts.parsed[b_id]
    shared_co = coauthors_shared(facts.coauthors, a_id, b_id)
    together = sorted(facts.papers[a_id] & facts.papers[b_id])
    cats_a, cats_b = facts.categories[a_id], facts.categories[b_id]
    shared_cats = sorted(cats_a & cats_b)
    cat_overlap = len(shared_cats) / min(len(cats_a), len(cats_b)) if cats_a and cats_b else 0.0
    affs_a, affs_b = facts.affiliations[a_id], facts.affiliations[b_id]
    shared_affs = sorted(affs_a & affs_b)
    aff_jaccard = len(shared_affs) / len(affs_a | affs_b) if affs_a and affs_b else 0.0
    similarity = name_similarity(pa, pb)
    same_given = bool(pa.has_full_given and pb.has_full_given and pa.given[0] == pb.given[0])
    orcid = ""
    if (a.orcid and a.orcid in facts.orcid_ids[b_id]) or (b.orcid and b.orcid in facts.orcid_ids[a_id]):
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
    relation, why = (VARIANT, variant.why) if variant else _name_relation(pa, pb)
    tier = TOGETHER_TIER if together else _tier(relation, bool(shared_co) or orcid == "same person")
    return PairCandidate(
        a,
        b,
        round(score, 3),
        shared_co,
        shared_cats,
        shared_affs,
        round(similarity, 2),
        orcid,
        tier,
        relation,
        why,
        together,
        variant,
    )


def _undecided_variant_pairs(
    max_block: int, block_pairs: list[tuple[int, int]], blocks: list[str] | None
) -> dict:
    """:func:`_variant_pairs` less the pairs of one block and those an editor decided. With
    a filter's ``blocks``, the pairs of one block are looked up for the variant pairs' records
    (``block_pairs`` holds only those of the filter's blocks)."""
    variants = _variant_pairs(max_block, blocks)
    if variants and blocks is not None:
        with connection.cursor() as cursor:
            cursor.execute(_SHARED_BLOCK_PAIRS_SQL, [sorted({i for p in variants for i in p}), max_block])
            block_pairs = [*block_pairs, *cursor.fetchall()]
    for pair in block_pairs:
        variants.pop(pair, None)
    if variants:
        decided = PairDecision.objects.filter(
            researcher_low__in={low for low, _ in variants},
            researcher_high__in={high for _, high in variants},
        ).values_list("researcher_low", "researcher_high")
        for pair in decided:
            variants.pop(pair, None)
    return variants


def _candidate_pairs(
    max_block: int, blocks: list[str] | None
) -> tuple[list[tuple[int, int, FamilyVariant | None]], dict, dict]:
    """``([(low id, high id, variant or None)], researchers by id, parsed display names by
    id)``: the pairs of one block with compatible names, then the variant pairs whose given
    names agree; with ``blocks`` (a filter's), only those found through them. At most five
    queries (six with ``blocks``)."""
    with connection.cursor() as cursor:
        if blocks is None:
            cursor.execute(_QUEUE_SQL.format(scope=""), [max_block])
        else:
            cursor.execute(_QUEUE_SQL.format(scope=_IN_BLOCKS), [blocks, max_block])
        block_pairs = cursor.fetchall()
    variants = _undecided_variant_pairs(max_block, block_pairs, blocks)
    ids = sorted({i for p in [*block_pairs, *variants] for i in p})
    researchers = Researcher.objects.in_bulk(ids) if ids else {}
    parsed = {pk: parse_name(r.display_name) for pk, r in researchers.items()}
    pairs: list[tuple[int, int, FamilyVariant | None]] = [
        (a, b, None) for a, b in block_pairs if person_names_compatible(parsed[a], parsed[b])
    ]
    for (a, b), (holder, variant) in variants.items():
        if given_compatible(variant.given, parsed[b if holder == a else a].given):
            pairs.append((a, b, variant))
    return pairs, researchers, parsed


def _queue_facts(researchers: dict[int, Researcher], parsed: dict[int, PersonName]) -> _QueueFacts:
    """The evidence :func:`_candidate` reads for ``researchers`` (their ORCID identities,
    co-authors, categories, affiliation words, papers). Three queries."""
    orcid_ids: dict[int, set[str]] = defaultdict(set)
    for rid, ext in ExternalIdentity.objects.filter(
        researcher_id__in=list(researchers), source=IdentitySource.ORCID
    ).values_list("researcher_id", "external_id"):
        orcid_ids[rid].add(ext)
    return _QueueFacts(researchers, parsed, orcid_ids, *_evidence_sets(sorted(researchers)))


def same_name_queue(*, max_block: int = QUEUE_MAX_BLOCK, name: str = "") -> list[PairCandidate]:
    """Candidate pairs of active researcher records that may be one person, best first.

    **Candidates.** Two records filed under one name block (``"d chablat"``) on some
    authorship, with names compatible by :func:`researchers.names.person_names_compatible`
    (S2AND-like: different initials or different spelled-out first names, ``John``/``James``,
    are never proposed); and, across name blocks, one family name spelled two ways
    (:func:`researchers.family_names.family_variants`: ``M. Vidal`` ~ ``M. Soler-Vidal``,
    ``Juan Garcia Lopez`` ~ ``J. Garcia-Lopez``, ``de la Cruz`` ~ ``Delacruz``) with
    compatible given names (:func:`researchers.names.given_compatible`). Pairs an editor
    declared distinct (:class:`PairDecision`) never appear. Blocks of more than
    ``max_block`` records are skipped. A ``name`` filter keeps the pairs found through its
    name blocks (:func:`queue_filter_blocks`: ``"Vidal"`` gives ``vidal``, ``a vidal`` ..
    ``z vidal``), read through the block index: the pairs of one such block, and the variant
    pairs with a record filed under one or a variant spelling falling in one; each as the
    whole queue has it. A compound's last part (``"Vidal"`` of ``"Soler-Vidal"``) is found
    from the compound's side only (filter ``"Soler-Vidal"``): no index finds a suffix.

    **Order: tiers, then evidence.** A shared co-author is the evidence that best tells one
    person from two of the same name, and an identical name is stronger than a compatible
    one, so the tiers (:data:`QUEUE_TIERS`, ``PairCandidate.tier``) are:

    1. the same name (equal given names and family key) with shared co-authors;
    2. compatible names (initials against spelled-out names, a missing middle name, a
       variant spelling of the family name, a given name that may be a short form) with
       shared co-authors;
    3. the same name, no shared co-author;
    4. compatible names or a variant spelling, no shared co-author;
    5. spelled-out first names that differ and agree only as a prefix (``Ari``/``Ariyeh``,
       ``Jian-Guo``/``Jianping``), no shared co-author: a short form, or two people;
    6. records that are authors of one paper together (``PairCandidate.together``): two
       slots of one author list are two people unless the byline names one twice, and
       their "shared co-authors" are only that paper's other authors. On the sample,
       ``Jian Wang`` and ``Jian-Sheng Wang`` are authors 1 and 2 of 0704.0702.

    An ORCID iD of one record held as an identity by the other counts as a shared co-author
    for the tier. Within a tier, by ``score`` (higher = stronger evidence): ``W_COAUTHOR``
    per shared co-author (at most 4; :mod:`curation.coauthors`: the same researcher, or the
    same spelling where no researcher holds the slot, never just the same name block),
    ``W_CATEGORY`` times the category overlap coefficient, ``W_AFFILIATION`` times the
    Jaccard index of affiliation words, ``W_NAME`` times the name similarity (0..1),
    ``W_SAME_GIVEN`` for the same spelled-out first name,
    ``+W_ORCID`` for the ORCID link above, ``-W_ORCID`` for two different iDs; then more
    shared co-authors, then more papers. ``PairCandidate.why`` says why the names were
    paired. At most eight queries (nine with ``name``), however many pairs.
    """
    blocks = queue_filter_blocks(name) if name.strip() else None
    if blocks == []:
        return []
    pairs, researchers, parsed = _candidate_pairs(max_block, blocks)
    if not pairs:
        return []
    ids = {i for a, b, _v in pairs for i in (a, b)}
    facts = _queue_facts({pk: researchers[pk] for pk in ids}, parsed)
    out = [_candidate(a, b, facts, variant) for a, b, variant in pairs]
    # Ties: more shared co-authors, then the pair with more papers (more to compare, more
    # readers affected), then ids, so the order is stable.
    out.sort(
        key=lambda c: (
            c.tier,
            -c.score,
            -len(c.shared_coauthors),
            -(c.a.paper_count + c.b.paper_count),
            c.a.pk,
            c.b.pk,
        )
    )
    return out


class QueueEntry(NamedTuple):
    """One pair of the same-name queue as cached: the records' ids (low, high), its tier and
    the variant spelling that paired them (``None``: one name block). :func:`queue_rows`
    turns a page of them back into :class:`PairCandidate`."""

    a: int
    b: int
    tier: int
    variant: FamilyVariant | None


def _queue_version() -> tuple:
    """What the cached queue is keyed on: the newest curation record (every merge, split,
    undo, reassignment and "not the same person" writes one), researcher, authorship (a
    re-match deletes and writes anew) and external identity. Maxima of primary keys, so one
    query of four index lookups, whatever the archive's size."""
    with connection.cursor() as cursor:
        cursor.execute(_QUEUE_VERSION_SQL)
        return cursor.fetchone()


def same_name_queue_entries(*, name: str = "", max_block: int = QUEUE_MAX_BLOCK) -> list[QueueEntry]:
    """:func:`same_name_queue` in its order as :class:`QueueEntry` rows. With a ``name``
    filter, computed on the filter's name blocks (bounded by them); without, from Django's
    cache under :func:`_queue_version`, computed over the whole archive only when that
    changed or after :data:`QUEUE_CACHE_SECONDS` (what the version does not see: an edited
    display name, a deleted paper). One query on a cache hit."""
    if name.strip():
        return _entries(same_name_queue(name=name, max_block=max_block))
    key = f"curation:same-name-queue:{max_block}:{':'.join(str(v) for v in _queue_version())}"
    entries = cache.get(key)
    if entries is None:
        entries = _entries(same_name_queue(max_block=max_block))
        cache.set(key, entries, QUEUE_CACHE_SECONDS)
    return entries


def _entries(candidates: Iterable[PairCandidate]) -> list[QueueEntry]:
    return [QueueEntry(c.a.pk, c.b.pk, c.tier, c.variant) for c in candidates]


def queue_rows(entries: Sequence[QueueEntry]) -> list[PairCandidate]:
    """The :class:`PairCandidate` of each entry (a page of the queue), its evidence read for
    these records alone: four queries. An entry whose record is gone is left out."""
    ids = sorted({i for e in entries for i in (e.a, e.b)})
    researchers = Researcher.objects.in_bulk(ids) if ids else {}
    if not researchers:
        return []
    parsed = {pk: parse_name(r.display_name) for pk, r in researchers.items()}
    facts = _queue_facts(researchers, parsed)
    return [
        _candidate(e.a, e.b, facts, e.variant) for e in entries if e.a in researchers and e.b in researchers
    ]
