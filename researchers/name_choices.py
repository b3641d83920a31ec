"""New mentions whose name fits several existing researchers: which one the written form or
the evidence picks, and which are left for an editor (BUGS.md DIS-03).

Split from :mod:`researchers.clustering` (its scoring, :func:`pair_score`, decides here too).
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field

from .clustering import ALL_PAIRS_MAX, THRESHOLD, Mention, affiliation_idf, pair_score
from .names import PersonName, given_compatible


def _written(name: PersonName) -> str:
    return unicodedata.normalize("NFC", name.raw).casefold()


def _fixed_candidates(mention: Mention, fixed: list[Mention]) -> dict[Hashable, list[Mention]]:
    """The fixed mentions of ``mention``'s block with a compatible name, by their group."""
    found: dict[Hashable, list[Mention]] = defaultdict(list)
    for other in fixed:
        if given_compatible(mention.name.given, other.name.given):
            found[other.group].append(other)
    return found


@dataclass(slots=True)
class NameChoices:
    """What :func:`name_choices` found: ``ambiguous`` maps a new mention's id to the groups
    (researchers) it could be, sorted; ``exact`` maps a new mention's id to the id of a fixed
    mention written exactly as it is (accents kept), to be joined with it."""

    ambiguous: dict[Hashable, list[Hashable]] = field(default_factory=dict)
    exact: dict[Hashable, Hashable] = field(default_factory=dict)


def name_choices(mentions: list[Mention], *, threshold: float = THRESHOLD) -> NameChoices:
    """New mentions whose name fits several existing persons: which the written form decides,
    and which are left for an editor (BUGS.md DIS-03).

    Looks at each new mention (``group`` is ``None``, no ORCID iD) whose name block holds
    mentions of two or more fixed groups (existing researchers) with compatible names (at
    most ``ALL_PAIRS_MAX`` fixed mentions: work stays linear in the run). The evidence
    (:func:`pair_score`) picks a group when one reaches ``threshold`` above all others. A
    written name with accents (NFC) that is exactly the written name of one group decides
    for it, unless the evidence picks another (``Tomás Peña`` is R1's, not the ``Tomas
    Pena`` of R2: an exact match outranks a folded one). Otherwise, with no pick, the mention
    is ambiguous: ``Tomas Pena`` may be R1 folded or R2, so it is left for review rather
    than given to R2 for its ASCII spelling. The caller leaves out mentions an editor
    constrained. Pure.
    """
    fixed_by_block: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        if m.group is not None:
            fixed_by_block[m.name.block].append(m)
    # Blocks of two or more researchers, small enough to score each new mention against all
    # their mentions; a larger block (a very common name) is left to the clusterer's index.
    open_blocks = {
        block
        for block, fixed in fixed_by_block.items()
        if len(fixed) <= ALL_PAIRS_MAX and len({f.group for f in fixed}) >= 2
    }
    out = NameChoices()
    if not open_blocks:
        return out
    idf = affiliation_idf(mentions)
    for m in mentions:
        if m.group is not None or m.orcid or m.name.block not in open_blocks:
            continue
        candidates = _fixed_candidates(m, fixed_by_block[m.name.block])
        if len(candidates) < 2:
            continue
        scores = {g: max(pair_score(m, o, idf) for o in ms) for g, ms in candidates.items()}
        ranked = sorted(scores.values(), reverse=True)
        picked = ranked[0] >= threshold and ranked[0] > ranked[1]
        written = _written(m.name)
        exact = (
            []
            if written.isascii()
            else [o for ms in candidates.values() for o in ms if _written(o.name) == written]
        )
        if exact and len({o.group for o in exact}) == 1:
            if not picked or scores[exact[0].group] == ranked[0]:
                out.exact[m.id] = exact[0].id
            continue
        if not picked:
            out.ambiguous[m.id] = sorted(candidates, key=str)
    return out
