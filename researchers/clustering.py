"""Author-mention clustering: which author slots are one person (local disambiguation).

The same code serves the local matcher (:func:`researchers.matching_local.researchers_match_local`)
and the quality bench (``bench/disambiguation.py``), so the figures the bench prints are the
figures of what the archive does.

Method (S2AND-style blocking, then constrained agglomeration):

0. A name written the other way round more often elsewhere in the data ("Wang Wei" among
   many "Wei Wang") is turned round (:data:`SWAP_RATIO`).
1. Block mentions by ``"<first initial> <family key>"``; only mentions in one block can merge.
2. Seed groups: mentions already attached to one researcher, sharing an ORCID iD, or joined
   by a must-link constraint start as one group.
3. Score every name-compatible pair in a block from evidence: affiliation overlap
   (IDF-weighted cosine over the normalised words that name a place, not the words that
   say what kind of place it is: :data:`GENERIC_AFFILIATION_WORDS`), shared co-authors, shared categories or
   venues, a spelled-out identical given name, year distance. Two different affiliation
   strings that are both institution names (written word for word in several name blocks)
   count as two institutions, whatever words they share. Merge pairs in descending
   score above :data:`THRESHOLD`, refusing merges that would put two ORCID iDs, two
   existing researchers, two authors of one paper, incompatible given names
   (``John``/``James``) or a cannot-link pair in one group.
4. A mention with no evidence at all joins the largest group with the same spelled name
   (the likeliest person), else stays alone; small leftovers join a dominant group.
5. A spelled-out given name left in at most :data:`FEW_GROUPS` groups is one person who
   moved (unless the groups' fields are disjoint, each seen on :data:`FIELD_PAPERS` papers);
   a name the archive shows to be common (:class:`NamePriors`, learned from the unlabelled
   mentions) may be held to fewer groups (:data:`COMMON_NAME`).

The settings (:class:`ClusterSettings`) are chosen by ``bench/disambiguation.py --cv 5``:
cross-validation over the name blocks of half h0 of S2AND's Qian development set, with the
one-standard-error rule; ``--halves`` then scores h0 and the held-out h1.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace

from papers.affiliations import affiliation_keys, affiliation_tokens

from .names import PersonName, family_key, given_compatible

# Merge when the evidence score reaches this (weights below; not tuned to any one name).
THRESHOLD = 0.5
W_AFFILIATION = 1.0
W_COAUTHOR = 0.5
W_CATEGORY = 0.4
W_SAME_GIVEN = 0.15
W_SAME_INITIALS = 0.1
SMALL_BLOCK = 50
# Blocks up to this size score every pair; larger ones only pairs sharing some evidence.
ALL_PAIRS_MAX = 500
WINDOW = 50
W_YEAR_GAP = 0.15
YEAR_GAP = 12
# Leftover groups this small join their name's dominant group (one holding this share).
SMALL_GROUP = 2
DOMINANT_SHARE = 0.5
# A mention with no evidence joins its name's largest group when that holds this share.
LONE_SHARE = 0.0
# A name read the other way round this many times as often is turned round (Wang Wei).
SWAP_RATIO = 2
# A spelled-out name found in at most this many groups after scoring is one person.
FEW_GROUPS = 4
# Disjoint fields keep two groups of one name apart only when each is seen on this many papers.
FIELD_PAPERS = 2
# An affiliation string written verbatim in this many name blocks is an institution's name.
INSTITUTION_BLOCKS = 2
# A spelled name more common than this (:meth:`NamePriors.commonness`) is kept to at most
# FEW_GROUPS_COMMON groups by the few-groups rule (step 5); chosen by ``bench/disambiguation.py --cv``.
COMMON_NAME = math.inf
FEW_GROUPS_COMMON = 1


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """The tunable settings of :func:`cluster_mentions` (defaults: the module constants).

    ``threshold`` is the evidence score at which two mentions merge; ``few_groups`` the most
    groups a spelled-out name may be left in and still be taken for one person who moved
    (step 5), ``few_groups_common`` the same for a name whose :meth:`NamePriors.commonness`
    exceeds ``common_name``; ``small_group``, ``dominant_share`` and ``lone_share`` the
    leftover rule (step 4).
    Chosen by cross-validation over the name blocks of the development half
    (``bench/disambiguation.py --cv``), never on the held-out half.
    """

    threshold: float = THRESHOLD
    few_groups: int = FEW_GROUPS
    few_groups_common: int = FEW_GROUPS_COMMON
    common_name: float = COMMON_NAME
    small_group: int = SMALL_GROUP
    dominant_share: float = DOMINANT_SHARE
    lone_share: float = LONE_SHARE


@dataclass(frozen=True, slots=True)
class NamePriors:
    """How common spelled names are, learned from unlabelled mentions (never from gold).

    ``family_givens`` maps a family key to how many distinct spelled-out first given names
    are written with it (``wang``: many; ``chablat``: one), ``given_families`` a spelled-out
    first given name to how many distinct family keys carry it, ``names`` the number of
    distinct (first given, family key) names. Built by :meth:`of` from the mentions being
    clustered, or from a whole archive by a caller that has it.
    """

    family_givens: dict[str, int]
    given_families: dict[str, int]
    names: int

    @classmethod
    def of(cls, mentions: Iterable[Mention]) -> NamePriors:
        """The priors of ``mentions`` (initials are no spelled name and are not counted)."""
        pairs = {(m.name.given[0], m.name.key) for m in mentions if m.name.has_full_given and m.name.key}
        return cls(
            family_givens=dict(Counter(key for _given, key in pairs)),
            given_families=dict(Counter(given for given, _key in pairs)),
            names=len(pairs),
        )

    def commonness(self, name: PersonName) -> float:
        """How many people may write ``name``: distinct first names of its family times
        distinct families of its first name, over all distinct names (independence of the
        two parts, as name-frequency priors assume); ``inf`` for initials (any of many)."""
        if not name.has_full_given or not self.names:
            return math.inf
        givens = self.family_givens.get(name.key, 1)
        families = self.given_families.get(name.given[0], 1)
        return givens * families / self.names


# Words that say what kind of place an affiliation is, or where, not which one: two
# affiliations sharing only these ("Hong Kong University of Science and Technology",
# "Norwegian University of Science and Technology"; "University of New South Wales",
# "Central South University") are no evidence of one employer.
GENERIC_AFFILIATION_WORDS = frozenset(
    {
        "university",
        "institute",
        "technology",
        "science",
        "national",
        "college",
        "school",
        "department",
        "laboratory",
        "center",
        "research",
        "academy",
        "engineering",
        "faculty",
        "state",
        "polytechnic",
        "federal",
        "international",
        "foundation",
        "hospital",
        "medical",
        "medicine",
        "computer",
        "computing",
        "mathematics",
        "physics",
        "chemistry",
        "biology",
        "electrical",
        "electronic",
        "electronics",
        "information",
        "key",
        "division",
        "group",
        "graduate",
        "studies",
        "applied",
        "advanced",
        "higher",
        "education",
        "corporation",
        "inc",
        "ltd",
        "company",
        "society",
        "systems",
        "system",
        "mechanical",
        "civil",
        "chemical",
        "statistics",
        "economics",
        "technical",
        "technische",
        "hochschule",
        "ecole",
        "normale",
        "superieure",
        "free",
        "central",
        "joint",
        "program",
        "programme",
        "unit",
        "section",
        "north",
        "south",
        "east",
        "west",
        "new",
    }
)


@dataclass(slots=True)
class Mention:
    """One author on one paper, with the evidence used to cluster it.

    ``id`` is the caller's key (a PaperAuthor pk, an S2AND signature id). ``coauthors``
    holds the blocks (:attr:`PersonName.block`) of the other authors on the paper;
    ``coauthor_givens``, when the caller has them, maps each of those blocks to the given
    names written there (``{"s bhattacharya": (("srijit",),)}``), so that a shared block
    counts as a shared co-author only when the given names can be one person ("S." and
    "Srijit" can, "Wei" and "Wen" cannot); ``categories`` arXiv categories or venue names;
    ``group`` a fixed identity (an existing researcher's id): mentions with one group stay
    together and two groups never merge. ``orcid`` is a normalised ORCID iD. ``paper``
    identifies the paper: two authors of one paper are two people, so mentions sharing a
    paper never merge.
    """

    id: Hashable
    name: PersonName
    affiliations: tuple[str, ...] = ()
    coauthors: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()
    year: int | None = None
    orcid: str | None = None
    group: Hashable | None = None
    paper: Hashable | None = None
    coauthor_givens: dict[str, tuple[tuple[str, ...], ...]] | None = None
    aff_tokens: frozenset[str] = field(default=frozenset(), init=False)
    aff_keys: frozenset[str] = field(default=frozenset(), init=False)
    aff_core: frozenset[str] = field(default=frozenset(), init=False)

    def __post_init__(self) -> None:
        self.aff_tokens = affiliation_tokens(self.affiliations)
        self.aff_keys = affiliation_keys(self.affiliations)
        # The words naming which place, not what kind of place; all of them when there are
        # no others ("Institute of Physics").
        self.aff_core = (self.aff_tokens - GENERIC_AFFILIATION_WORDS) or self.aff_tokens

    @property
    def has_evidence(self) -> bool:
        """True when anything beyond the name can link this mention to another."""
        return bool(self.aff_tokens or self.coauthors or self.categories or self.orcid)


@dataclass(slots=True)
class _Group:
    members: list[int]
    orcids: set[str]
    seeds: set[Hashable]
    givens: set[tuple[str, ...]]
    cannot: set[Hashable]
    papers: set[Hashable]


class _Clusterer:
    def __init__(self, mentions: list[Mention], cannot_link: dict[Hashable, set[Hashable]]) -> None:
        self.mentions = mentions
        self.cannot_link = cannot_link
        self.parent = list(range(len(mentions)))
        self.index = {m.id: i for i, m in enumerate(mentions)}
        self.groups: dict[int, _Group] = {}
        for i, m in enumerate(mentions):
            self.groups[i] = _Group(
                members=[i],
                orcids={m.orcid} if m.orcid else set(),
                seeds={m.group} if m.group is not None else set(),
                givens={m.name.given} if m.name.given else set(),
                cannot=set(cannot_link.get(m.id, ())),
                papers={m.paper} if m.paper is not None else set(),
            )

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def can_merge(self, a: int, b: int) -> bool:
        ga, gb = self.groups[a], self.groups[b]
        if ga.orcids and gb.orcids and ga.orcids != gb.orcids:
            return False
        if ga.seeds and gb.seeds and ga.seeds != gb.seeds:
            return False
        if not ga.papers.isdisjoint(gb.papers):
            return False
        # Look up the shorter cannot-link list in the other group: no pass over its members,
        # which in a big block made every merge attempt cost the group's size.
        if len(ga.cannot) > len(gb.cannot):
            ga, gb, b = gb, ga, a
        for other in ga.cannot:
            j = self.index.get(other)
            if j is not None and self.find(j) == b:
                return False
        # Every spelled form must agree with every other: stops "J." chaining John to James.
        return all(given_compatible(x, y) for x in ga.givens for y in gb.givens)

    def union(self, a: int, b: int, *, force: bool = False) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if not force and not self.can_merge(ra, rb):
            return False
        ga, gb = self.groups[ra], self.groups[rb]
        if len(ga.members) < len(gb.members):
            ra, rb, ga, gb = rb, ra, gb, ga
        self.parent[rb] = ra
        ga.members.extend(gb.members)
        ga.orcids |= gb.orcids
        ga.seeds |= gb.seeds
        ga.givens |= gb.givens
        ga.cannot |= gb.cannot
        ga.papers |= gb.papers
        del self.groups[rb]
        return True


def affiliation_idf(mentions: list[Mention]) -> dict[str, float]:
    """Inverse document frequency of each affiliation word over ``mentions``:
    ``log(1 + n / df)``, the weights of :func:`pair_score`'s affiliation cosine."""
    df: Counter[str] = Counter()
    for m in mentions:
        df.update(m.aff_tokens)
    n = max(len(mentions), 1)
    return {t: math.log(1 + n / c) for t, c in df.items()}


def _institutions(mentions: list[Mention]) -> frozenset[str]:
    """Affiliation keys written verbatim by authors of at least two name blocks.

    A string several unrelated people use word for word is an institution's name as a
    source normalises it ("Iowa State University"); two different such names are two
    institutions even when they share words ("University of Iowa").
    """
    blocks: dict[str, set[str]] = defaultdict(set)
    for m in mentions:
        for key in m.aff_keys:
            blocks[key].add(m.name.block)
    return frozenset(k for k, b in blocks.items() if len(b) >= INSTITUTION_BLOCKS)


def _short_form(x: str, y: str) -> bool:
    """Whether one key is a single word of the other ("columbia", "columbia university")."""
    wx, wy = x.split(), y.split()
    return (len(wx) == 1 and wx[0] in wy) or (len(wy) == 1 and wy[0] in wx)


def _aff_similarity(
    a: Mention, b: Mention, idf: dict[str, float], institutions: frozenset[str] = frozenset()
) -> float:
    if not a.aff_tokens or not b.aff_tokens:
        return 0.0
    if not a.aff_keys.isdisjoint(b.aff_keys):
        return 1.0
    # Two institution names are two institutions, unless one is a one-word short form of the
    # other ("Columbia", "Columbia University"); "University of Iowa" is not "Iowa State
    # University" although its words are all in it.
    both_institutions = bool(institutions) and a.aff_keys <= institutions and b.aff_keys <= institutions
    if both_institutions and not any(_short_form(x, y) for x in a.aff_keys for y in b.aff_keys):
        return 0.0
    # Compared on the naming words only: kind-of-place words shared by many institutions
    # would otherwise make up most of the overlap coefficient below.
    ta, tb = a.aff_core, b.aff_core
    shared = ta & tb
    if not shared:
        return 0.0
    num = sum(idf[t] ** 2 for t in shared)
    den_a = sum(idf[t] ** 2 for t in ta)
    den_b = sum(idf[t] ** 2 for t in tb)
    # Half cosine, half overlap coefficient: "Fudan Univ., Shanghai, Dept. of Comput." holds
    # "Fudan University" whole, which a cosine alone would dilute.
    return 0.5 * num / math.sqrt(den_a * den_b) + 0.5 * num / min(den_a, den_b)


def shared_coauthors(a: Mention, b: Mention, *, at_most: int | None = None) -> int:
    """How many co-authors two mentions share: blocks both papers carry, counted only when
    some given names written there are compatible (:func:`given_compatible`: initials meet
    full names, ``Wei`` never meets ``Wen``); every shared block counts when either mention
    has no :attr:`Mention.coauthor_givens`. Stops counting at ``at_most``."""
    shared = a.coauthors & b.coauthors
    if not shared or a.coauthor_givens is None or b.coauthor_givens is None:
        return len(shared) if at_most is None else min(len(shared), at_most)
    found = 0
    for block in shared:
        left, right = a.coauthor_givens.get(block, ((),)), b.coauthor_givens.get(block, ((),))
        if any(given_compatible(x, y) for x in left for y in right):
            found += 1
            if found == at_most:
                break
    return found


def pair_score(
    a: Mention,
    b: Mention,
    idf: dict[str, float],
    *,
    small_block: bool = True,
    institutions: frozenset[str] = frozenset(),
) -> float:
    """Evidence that two name-compatible mentions are one person (merge at ``THRESHOLD``).

    Sum of: affiliation cosine (0..1) times ``W_AFFILIATION``; shared co-author blocks (at
    most 2) times ``W_COAUTHOR``; category overlap coefficient times ``W_CATEGORY``;
    ``W_SAME_GIVEN`` for identical given names with one spelled out (``W_SAME_INITIALS``
    for identical initials when ``small_block``); minus ``W_YEAR_GAP`` when the
    years are more than ``YEAR_GAP`` apart.
    """
    score = W_AFFILIATION * _aff_similarity(a, b, idf, institutions)
    if a.coauthors and b.coauthors:
        score += W_COAUTHOR * shared_coauthors(a, b, at_most=2)
    if a.categories and b.categories:
        shared = len(a.categories & b.categories)
        score += W_CATEGORY * shared / min(len(a.categories), len(b.categories))
    if a.name.given and a.name.given == b.name.given:
        if any(len(t) > 1 for t in a.name.given):
            score += W_SAME_GIVEN
        elif small_block:
            # Identical initials say less; only in a block too small to be a common name.
            score += W_SAME_INITIALS
    if a.year and b.year and abs(a.year - b.year) > YEAR_GAP:
        score -= W_YEAR_GAP
    return score


def _candidate_pairs(members: list[int], mentions: list[Mention]) -> Iterable[tuple[int, int]]:
    """Pairs of a block worth scoring, ``(i, j)`` with ``i < j`` in block order.

    Every pair for a block of at most ``ALL_PAIRS_MAX`` mentions. A larger block (a very
    common name in a large archive) only pairs mentions sharing a key that can lift the
    score (a co-author, an affiliation token, a category with the same spelled given
    name), each with at most ``WINDOW`` others per key: work grows linearly with the block.
    """
    if len(members) <= ALL_PAIRS_MAX:
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                yield members[x], members[y]
        return
    index: dict[tuple, list[int]] = defaultdict(list)
    for mi in members:
        m = mentions[mi]
        keys = {("c", c) for c in m.coauthors} | {("a", t) for t in m.aff_tokens}
        keys |= {("k", m.name.given, c) for c in m.categories}
        for key in keys:
            index[key].append(mi)
    seen: set[tuple[int, int]] = set()
    order = {mi: k for k, mi in enumerate(members)}
    for bucket in index.values():
        bucket.sort(key=order.__getitem__)
        # A crowded key ("Fudan University" on 500 papers) pairs each mention with the
        # WINDOW before it: enough for single-link merging to chain them, linear in size.
        for y in range(1, len(bucket)):
            for x in range(max(0, y - WINDOW), y):
                seen.add((bucket[x], bucket[y]))
    yield from sorted(seen, key=lambda p: (order[p[0]], order[p[1]]))


def _attach_to_dominant(
    clusterer: _Clusterer,
    members: list[int],
    mentions: list[Mention],
    settings: ClusterSettings,
    priors: NamePriors,
) -> None:
    """Give small leftover groups to the dominant person of their spelled name.

    A mention without evidence, or a group of at most ``SMALL_GROUP`` mentions whose
    evidence linked to nothing, joins the largest group spelling the given name the same
    way when that group holds at least ``DOMINANT_SHARE`` of the mentions with that name:
    the likeliest person, since authors move between affiliations. Never across a
    constraint (:meth:`_Clusterer.can_merge`).
    """
    by_given: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for mi in members:
        by_given[mentions[mi].name.given].append(mi)
    for given, same in by_given.items():
        if len(same) < 2:
            continue
        sizes: Counter[int] = Counter(clusterer.find(mi) for mi in same)
        ((top, top_size),) = sizes.most_common(1)
        if not given or (len(given[0]) < 2):
            continue  # initials alone name too many people to lean on a prior
        dominant = top_size >= settings.dominant_share * len(same)
        for root, size in list(sizes.items()):
            if root == top:
                continue
            group = clusterer.groups[clusterer.find(root)]
            no_evidence = size == 1 and not mentions[group.members[0]].has_evidence
            # "Dominant" needs a group clearly larger than the leftover: two singletons are a tie.
            small = len(group.members) <= settings.small_group and top_size > len(group.members)
            if (no_evidence and top_size >= settings.lone_share * len(same)) or (dominant and small):
                clusterer.union(top, root)
        common = priors.commonness(mentions[same[0]].name) > settings.common_name
        _merge_few(clusterer, same, mentions, settings.few_groups_common if common else settings.few_groups)


def _categories(clusterer: _Clusterer, root: int, mentions: list[Mention]) -> tuple[set[str], int]:
    """The group's categories, and how many of its mentions have any."""
    members = [mentions[i] for i in clusterer.groups[root].members if mentions[i].categories]
    return {c for m in members for c in m.categories}, len(members)


def _merge_few(clusterer: _Clusterer, same: list[int], mentions: list[Mention], few: int) -> None:
    """A spelled-out name left in at most ``few`` groups is taken for one person.

    Authors move: the same person writes from two or three institutions over the years, and
    a full name (not initials) shared by two people in one archive is rarer than one person
    moving. Groups whose categories (fields, venues) are disjoint, each seen on at least
    ``FIELD_PAPERS`` papers, are kept apart: that is evidence of two people (one paper's
    venue is one sample of a person's fields, and says little). Never across a constraint.
    """
    roots = sorted({clusterer.find(mi) for mi in same}, key=lambda r: -len(clusterer.groups[r].members))
    if len(roots) < 2 or len(roots) > few:
        return
    top = roots[0]
    for root in roots[1:]:
        (cats_top, papers_top), (cats, papers) = (
            _categories(clusterer, clusterer.find(top), mentions),
            _categories(clusterer, root, mentions),
        )
        if min(papers_top, papers) >= FIELD_PAPERS and cats_top.isdisjoint(cats):
            continue
        clusterer.union(top, root)


def _swapped(name: PersonName) -> PersonName | None:
    """``name`` read in the other order ("Wang Wei" as given ``wei``, family ``wang``), or
    ``None`` unless it is one spelled given name and a one-word family name."""
    if len(name.given) != 1 or len(name.given[0]) < 2 or not name.family or " " in name.family:
        return None
    key = family_key(name.given[0])
    return PersonName(
        raw=name.raw, given=(name.family,), family=name.given[0], key=key, block=f"{name.family[0]} {key}"
    )


NameCounts = Counter[tuple[tuple[str, ...], str]]


def name_counts(names: Iterable[PersonName]) -> NameCounts:
    """How often each reading ``(given names, family key)`` is written in ``names``: what
    :func:`name_turned` weighs."""
    return Counter((name.given, name.key) for name in names)


def name_turned(name: PersonName, counts: NameCounts) -> PersonName:
    """``name``, or ``name`` read the other way round when that reading is written at least
    ``SWAP_RATIO`` times as often in ``counts`` (:func:`name_counts` of the same data).

    East Asian names reach sources in both orders ("Wang Wei", "Wei Wang"); the order
    written more often is taken for both, so the minority spelling lands in the majority's
    block. Two readings equally frequent are left as written.
    """
    other = _swapped(name)
    if other is not None and counts[(other.given, other.key)] >= SWAP_RATIO * counts[(name.given, name.key)]:
        return other
    return name


def _reorder_names(mentions: list[Mention]) -> list[Mention]:
    """Mentions whose name reads more often the other way round in this data, turned round
    (:func:`name_turned`)."""
    counts = name_counts(m.name for m in mentions)
    out = []
    for m in mentions:
        turned = name_turned(m.name, counts)
        out.append(m if turned is m.name else replace(m, name=turned))
    return out


def cluster_mentions(
    mentions: list[Mention],
    *,
    must_link: Iterable[tuple[Hashable, Hashable]] = (),
    cannot_link: Iterable[tuple[Hashable, Hashable]] = (),
    threshold: float = THRESHOLD,
    settings: ClusterSettings | None = None,
    priors: NamePriors | None = None,
) -> list[list[Hashable]]:
    """Cluster mentions into persons; returns lists of mention ids, one list per person.

    ``must_link``/``cannot_link`` are pairs of mention ids (editor curation, S2AND
    ``cluster_seeds``: ``require``/``disallow``); a must-link is applied first and wins
    over name incompatibility, a cannot-link is never violated by the scoring. ``settings``
    overrides the module's settings (``threshold`` is kept for callers that set only it);
    ``priors`` gives name commonness learned from a whole archive (default: learned from
    ``mentions``). Order of the output: clusters in order of their first mention, ids in
    input order. Pure function: no database access.
    """
    settings = settings or ClusterSettings(threshold=threshold)
    mentions = _reorder_names(mentions)
    priors = priors or NamePriors.of(mentions)
    cannot: dict[Hashable, set[Hashable]] = defaultdict(set)
    for a, b in cannot_link:
        cannot[a].add(b)
        cannot[b].add(a)
    clusterer = _Clusterer(mentions, cannot)
    index = {m.id: i for i, m in enumerate(mentions)}
    idf = affiliation_idf(mentions)
    institutions = _institutions(mentions)

    # Seeds: fixed groups and shared ORCID iDs are one person whatever the names say.
    by_key: dict[tuple[str, Hashable], int] = {}
    for i, m in enumerate(mentions):
        for key in (("g", m.group), ("o", m.orcid)):
            if key[1] is None:
                continue
            if key in by_key:
                clusterer.union(by_key[key], i, force=key[0] == "g")
            else:
                by_key[key] = i
    for a, b in must_link:
        if a in index and b in index:
            clusterer.union(index[a], index[b], force=True)

    blocks: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(mentions):
        blocks[m.name.block].append(i)

    for members in blocks.values():
        if len(members) < 2:
            continue
        pairs: list[tuple[float, int, int]] = []
        small_block = len(members) <= SMALL_BLOCK
        for mi, mj in _candidate_pairs(members, mentions):
            a, b = mentions[mi], mentions[mj]
            if not given_compatible(a.name.given, b.name.given):
                continue
            score = pair_score(a, b, idf, small_block=small_block, institutions=institutions)
            if score >= settings.threshold:
                pairs.append((score, mi, mj))
        pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
        for _score, mi, mj in pairs:
            clusterer.union(mi, mj)

        _attach_to_dominant(clusterer, members, mentions, settings, priors)

    out: dict[int, list[Hashable]] = {}
    for i, m in enumerate(mentions):
        out.setdefault(clusterer.find(i), []).append(m.id)
    return list(out.values())
