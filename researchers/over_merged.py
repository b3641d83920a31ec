"""Over-merged registry profiles (ourresearch/OpenAlex#5): one too large for a person is never a link target.

A registry's author profile can hold every "J. Smith" it could not tell apart: tens of
thousands of works at dozens of institutions at once. Taking such a profile's author id (or
the one ORCID iD it carries, which is at most one of its people's) as a person's would give
one researcher every slot of that name the registry lists, and pull all their works in.

**The rule** (:func:`profile_implausible`): a profile is implausible for one person when

- it holds more than :data:`MAX_WORKS` works, or
- its works name more than :data:`MAX_INSTITUTIONS` distinct institutions within some
  :data:`INSTITUTION_WINDOW_YEARS` consecutive years.

A profile the registry did not describe (not fetched, or no counts) is plausible, as every
profile was before this check.

**What happens to its slot** (:func:`over_merged_slots_settle`): the registry's ids for it
are not taken (no researcher is created for the profile, none is given its id). The slot goes
to the one researcher already filed under its name block whose papers agree with it on
**both** an institution (a ROR ID, or an affiliation string, normalised) **and** a co-author
(a name block of another author of this paper also writing with that researcher); a
researcher holding the over-merged profile's id from before is never one. Any other case (the
name alone agrees, or several researchers agree) is left for an editor
(:class:`researchers.models.SlotReview`, the slot review queue) with the block's researchers
as candidates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from papers.affiliations import affiliation_keys
from papers.models import Paper, PaperAuthor

from .evidence import (
    AFFILIATION,
    COAUTHORS,
    EVIDENCE_VALUES,
    INSTITUTION,
    NAME,
    SlotFacts,
    authorships_unconfirmed_refresh,
    researcher_clusters,
    slot_institutions,
)
from .matching_common import CONFIDENCE_LOCAL_LINKED, OneSlotPerPaper, researchers_refresh, slot_block
from .models import Authorship, ExternalIdentity, MatchMethod, Researcher, SlotReview
from .names import parse_name, person_names_compatible
from .records import SourceAuthor, SourceProfile, SourceWork

# Works one person's profile can hold. Real profiles recorded in shared/data/openalex/authors:
# the largest is Vincent Larivière's, 617 works in a prolific bibliometrics career (56 in his
# busiest year); the other eleven hold 2 to 265. "Hyperprolific" authors (Ioannidis, Klavans
# and Boyack, Nature 561, 167-169, 2018) publish 72 or more papers in a year. The bound must
# also leave room for high-energy physics: a member of ATLAS or CMS since 2008 signs every
# collaboration paper (over 1,000 each by 2024, several hundred a year with conference notes),
# and a registry that lists preprint and journal version apart doubles that, so a real person
# there can hold 2,000-3,500 works. 5,000 keeps them and still refuses the over-merged profiles
# of ourresearch/OpenAlex#5, which hold tens of thousands. A real person above it loses only the
# registry's id as evidence: the slot still goes where the archive's institution and co-authors
# agree, or to an editor.
MAX_WORKS = 5_000
# Institutions one person's works name within INSTITUTION_WINDOW_YEARS consecutive years.
# The recorded profiles name 1 to 10 institutions over careers of up to 21 years (Jevin D.
# West: 8 over 2004-2025; four stop at exactly 10, which may be the API's cap, so this is a
# second line, for registries that list them all). A joint post, a visiting year and a move
# make a handful at once; forty in five years is a crowd, not a career.
MAX_INSTITUTIONS = 40
INSTITUTION_WINDOW_YEARS = 5


def _institutions_at_once(profile: SourceProfile) -> int:
    """The most distinct institutions the profile names within any window of
    :data:`INSTITUTION_WINDOW_YEARS` consecutive years (institutions without years: all of them)."""
    undated = sum(1 for years in profile.institutions.values() if not years)
    starts = sorted({y for years in profile.institutions.values() for y in years})
    most = 0
    for start in starts:
        end = start + INSTITUTION_WINDOW_YEARS - 1
        most = max(
            most, sum(1 for years in profile.institutions.values() if any(start <= y <= end for y in years))
        )
    return most + undated


def profile_implausible(profile: SourceProfile | None) -> str:
    """Why ``profile`` cannot be one person, in words (``"48,000 works (more than 5,000)"``),
    or ``""`` when it can (or nothing is known of it). The thresholds and their grounds are
    :data:`MAX_WORKS` and :data:`MAX_INSTITUTIONS`. Pure."""
    if profile is None:
        return ""
    if profile.works_count is not None and profile.works_count > MAX_WORKS:
        return f"{profile.works_count:,} works (more than {MAX_WORKS:,})"
    at_once = _institutions_at_once(profile)
    if at_once > MAX_INSTITUTIONS:
        return (
            f"{at_once} institutions within {INSTITUTION_WINDOW_YEARS} years (more than {MAX_INSTITUTIONS})"
        )
    return ""


def over_merged_positions(work: SourceWork, aligned: dict[int, SourceAuthor]) -> dict[int, str]:
    """``{slot position: reason}`` of the aligned authors whose profile in ``work.profiles``
    is implausible (:func:`profile_implausible`). Pure."""
    out = {}
    for position, author in aligned.items():
        reason = profile_implausible(work.profiles.get(author.author_id or ""))
        if reason:
            out[position] = reason
    return out


@dataclass(frozen=True, slots=True)
class _SlotSide:
    """What the slot brings: the name blocks of the paper's other person slots (to names),
    its normalised affiliation keys and ROR IDs."""

    coauthors: dict[str, str]
    affiliation_keys: frozenset[str]
    ror_ids: frozenset[str]


def _ror_id(value: str) -> str:
    return value.rstrip("/").rsplit("/", 1)[-1].lower()


def _agreement(side: _SlotSide, members: list[SlotFacts], block: str) -> list[dict] | None:
    """The signals a candidate's slots share with the slot (co-authors, then institution or
    affiliation), or ``None`` unless both a co-author and an institution agree."""
    blocks = {b for m in members for b in m.coauthors if b != m.block} - {block}
    coauthors = [name for b, name in side.coauthors.items() if b in blocks]
    institutions = {r: n for m in members for r, n in (m.institutions or {}).items()}
    rors = sorted(side.ror_ids & set(institutions))
    affiliations = [
        a for m in members for a in m.affiliations if affiliation_keys([a]) & side.affiliation_keys
    ]
    if not coauthors or not (rors or affiliations):
        return None
    signals = [{"kind": COAUTHORS, "count": len(coauthors), "values": coauthors[:EVIDENCE_VALUES]}]
    if rors:
        names = [institutions[r] for r in rors]
        signals.append(
            {
                "kind": INSTITUTION,
                "count": len(rors),
                "values": names[:EVIDENCE_VALUES],
                "ror_ids": rors[:EVIDENCE_VALUES],
            }
        )
    else:
        kept = list(dict.fromkeys(affiliations))
        signals.append({"kind": AFFILIATION, "count": len(kept), "values": kept[:EVIDENCE_VALUES]})
    return signals


def _candidates(work: SourceWork, author: SourceAuthor, slot: tuple, block: str) -> list[int]:
    """Active researchers filed under ``block`` whose display name can be the slot's person,
    less any holding the over-merged profile's id (one query each)."""
    _id, _position, name, keyname, forenames = slot
    slot_name = parse_name(name, keyname, forenames)
    held = Researcher.objects.filter(merged_into=None, authorships__block=block).distinct()
    excluded = set(
        ExternalIdentity.objects.filter(source=work.source, external_id=author.author_id or "").values_list(
            "researcher_id", flat=True
        )
    )
    return sorted(
        r.pk
        for r in held
        if r.pk not in excluded and person_names_compatible(parse_name(r.display_name), slot_name)
    )


def _slot_side(paper: Paper, slot: tuple, author: SourceAuthor, block: str) -> _SlotSide:
    """The slot's co-author blocks, affiliation keys (arXiv's and the registry's strings) and
    ROR IDs (the registry's and the archive's links). Two queries."""
    slot_id = slot[0]
    coauthors: dict[str, str] = {}
    affiliations: list[str] = list(author.affiliations)
    for other_id, name, keyname, forenames, affs, collaboration in PaperAuthor.objects.filter(
        paper=paper
    ).values_list("id", "name", "keyname", "forenames", "affiliations", "is_collaboration"):
        if other_id == slot_id:
            affiliations += list(affs or ())
        elif not collaboration:
            coauthors.setdefault(slot_block(name, keyname, forenames), name)
    coauthors.pop(block, None)
    rors = {_ror_id(r) for r in author.ror_ids} | set(slot_institutions([slot_id]).get(slot_id, {}))
    return _SlotSide(coauthors, frozenset(affiliation_keys(affiliations)), frozenset(rors))


def over_merged_slots_settle(
    *,
    paper: Paper,
    work: SourceWork,
    slots: Iterable[tuple],
    over: dict[int, str],
    aligned: dict[int, SourceAuthor],
) -> tuple[int, int]:
    """Settle the slots whose aligned author has an over-merged profile (``over``: ``{slot
    position: reason}``, :func:`over_merged_positions`) by the rule of this module's
    docstring: to the one researcher of the slot's name block that an institution and a
    co-author agree with (an authorship of method ``local``, confidence 0.6, its signals as
    evidence), else a :class:`SlotReview`. ``slots`` are the paper's unmatched
    ``(id, position, name, keyname, forenames)`` rows. Run inside the caller's transaction,
    after the paper's other slots were attached (their co-authorship is read).

    Returns ``(linked, left for review)``. A few queries per such slot (they are rare).
    """
    linked = reviewed = 0
    on_paper = OneSlotPerPaper.of_papers([paper.pk])
    blocks: set[str] = set()
    for slot in slots:
        slot_id, position, name, keyname, forenames = slot
        if position not in over or Authorship.objects.filter(slot_id=slot_id).exists():
            continue
        author, block = aligned[position], slot_block(name, keyname, forenames)
        candidates = _candidates(work, author, slot, block)
        side = _slot_side(paper, slot, author, block)
        clusters = researcher_clusters(candidates)
        agreeing = {
            rid: signals
            for rid in candidates
            if (signals := _agreement(side, clusters.get(rid, []), block)) is not None
            and on_paper.allows(paper.pk, rid, slot_id)
        }
        if len(agreeing) == 1:
            [(rid, signals)] = agreeing.items()
            Authorship.objects.create(
                slot_id=slot_id,
                paper=paper,
                researcher_id=rid,
                method=MatchMethod.LOCAL,
                confidence=CONFIDENCE_LOCAL_LINKED,
                block=block,
                evidence=[*signals, {"kind": NAME, "name": name, "block": block}],
            )
            on_paper.add(paper.pk, rid, slot_id)
            researchers_refresh(researcher_ids=[rid])
            blocks.add(block)
            linked += 1
        else:
            SlotReview.objects.get_or_create(slot_id=slot_id, defaults={"candidates": candidates})
            reviewed += 1
    authorships_unconfirmed_refresh(blocks=blocks)
    return linked, reviewed


__all__ = [
    "INSTITUTION_WINDOW_YEARS",
    "MAX_INSTITUTIONS",
    "MAX_WORKS",
    "over_merged_positions",
    "over_merged_slots_settle",
    "profile_implausible",
]
