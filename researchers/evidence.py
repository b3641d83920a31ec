"""Evidence per authorship: the signals that decided a link, and which links are unconfirmed (issue 20).

Every matching method stores a list of signals on :attr:`researchers.models.Authorship.evidence`,
strongest first. Each signal is a JSON object with a ``kind``; values are strings and
integers only (never floats), so the list can go into a signed provenance event as it is
(RFC 8785 / /work/shared/PROVENANCE.md: "stay with integers and strings in signed content").

Shapes, one per kind (lists of values hold at most :data:`EVIDENCE_VALUES` items;
``count`` is the full number):

- ``{"kind": "orcid", "orcid": "0000-0002-5250-9277", "source": "openalex"}``: the ORCID iD
  the registry ``source`` gave for the author (``source`` is an ``IdentitySource`` value).
- ``{"kind": "external_id", "source": "semantic_scholar", "id": "1741101"}``: a registry's
  author id (the record's own source, or another registry it names, e.g. ``dblp``).
- ``{"kind": "coauthors", "count": 2, "values": ["A. Smith", "B. Jones"]}``: co-authors of
  this paper (as written on it) whose name blocks also sign other papers of the researcher.
- ``{"kind": "affiliation", "count": 1, "values": ["University of Iowa"]}``: this slot's
  affiliation strings that, normalised (:func:`papers.affiliations.affiliation_keys`), also
  appear on other papers of the researcher.
- ``{"kind": "institution", "count": 1, "values": ["University of Iowa"], "ror_ids":
  ["036jqmy94"]}``: ROR institutions linked to this slot and to another slot of the researcher.
- ``{"kind": "categories", "count": 1, "values": ["hep-th"]}``: arXiv categories of this
  paper shared with other papers of the researcher.
- ``{"kind": "years", "first": 2005, "last": 2011, "papers": 4}``: the span of submission
  years of this paper and the researcher's ``papers`` other papers it was weighed with.
- ``{"kind": "name", "name": "J. Smith", "block": "j smith"}``: the slot's name as written
  and its name block (every local link carries it).
- ``{"kind": "editor", ...}``: an editor's decision (written by curation; its other keys
  are curation's).
- ``{"kind": "owner", "action": "confirmed"|"rejected"|"taken", "user": username, "curation_id": id,
  "strong": true|false}``: the researcher who claimed the record said this paper is theirs
  (``confirmed``; ``taken`` from another record's unconfirmed link or the review queue) or
  not (``rejected``: the link then holds the slot's new researcher);
  ``strong`` when their claim was proved by ORCID sign-in (written by curation, issue 31).

The evidence is what decided a link when it was made: as a researcher gains papers, only
its name-only links are recomputed (they may become confirmed); the others keep their
signals (a years span stays the one the link was weighed with).

**Unconfirmed** (:func:`authorships_unconfirmed_refresh`): a link whose evidence holds a
``name`` signal and none of the decisive kinds (:data:`DECISIVE_KINDS`: ORCID iD, external
id, shared co-authors, affiliation, institution, editor), while its name block is held by
two or more researchers, and its researcher holds another paper. Two rules added to the
issue's: shared categories and the years span alone do not confirm a link (thousands of
people publish in ``hep-th`` in one decade), so a link with only those beside its name is
treated as resting on the name alone; and a slot that is its researcher's only paper links
it to nothing, so it is not marked (whether that researcher is someone else of the block
is the same-name queue's question). Authorships with no evidence recorded (written before
issue 20, not yet backfilled) are never marked. When a researcher gains a paper, its
name-only links are recomputed with the newcomer (:func:`name_only_slots`,
:func:`authorships_evidence_write`), so a shared co-author confirms both sides.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from papers.affiliations import affiliation_keys
from wove.bulk import int_array, text_array

from .names import parse_name
from .records import SourceAuthor

ORCID = "orcid"
EXTERNAL_ID = "external_id"
COAUTHORS = "coauthors"
AFFILIATION = "affiliation"
INSTITUTION = "institution"
CATEGORIES = "categories"
YEARS = "years"
NAME = "name"
EDITOR = "editor"
OWNER = "owner"
# The owner's actions that say a link is theirs (``rejected`` says it is not).
OWNER_CONFIRMING = frozenset({"confirmed", "taken"})
KINDS = (ORCID, EXTERNAL_ID, COAUTHORS, AFFILIATION, INSTITUTION, CATEGORIES, YEARS, NAME, EDITOR, OWNER)
# Any of these beside the name confirms a link; categories and years alone do not.
DECISIVE_KINDS = frozenset({ORCID, EXTERNAL_ID, COAUTHORS, AFFILIATION, INSTITUTION, EDITOR, OWNER})
# Values kept per list signal (co-author names, affiliations, categories): enough to check
# by hand, small enough that a 3,000-author paper's page and events stay light.
EVIDENCE_VALUES = 3


# --------------------------------------------------------------------------- registries


def source_evidence(*, source: str, author: SourceAuthor) -> list[dict]:
    """The signals of a slot matched through a registry's record (``source``, an
    ``IdentitySource`` value): the ORCID iD the record gave, then the record's author id,
    then the other registries' ids it names (sorted by registry). ``author`` has been
    checked (:func:`researchers.matching_sources.source_authors_checked`): what it still carries
    is what was taken."""
    out: list[dict] = []
    if author.orcid:
        out.append({"kind": ORCID, "orcid": author.orcid, "source": source})
    if author.author_id:
        out.append({"kind": EXTERNAL_ID, "source": source, "id": str(author.author_id)})
    for other, value in sorted(author.other_ids.items()):
        out.append({"kind": EXTERNAL_ID, "source": other, "id": str(value)})
    return out


# --------------------------------------------------------------------------- local evidence

# Institutions of author slots, supplied by the institutions app (researchers may not import
# it): ``lookup(slot_ids) -> {slot_id: {ror_id: name}}``.
_INSTITUTIONS: list[Callable[[list[int]], dict[int, dict[str, str]]]] = []


def evidence_institutions_register(lookup: Callable[[list[int]], dict[int, dict[str, str]]]) -> None:
    """Supply the ROR institutions of author slots (``lookup(slot_ids)`` returns ``{slot id:
    {ror_id: name}}``, slots without any left out); called from the institutions app's
    ``ready()``. Registering again replaces the lookup."""
    _INSTITUTIONS[:] = [lookup]


def slot_institutions(slot_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """``{slot id: {ror_id: name}}`` for ``slot_ids`` from the registered lookup; ``{}`` when
    no app supplies one (researchers alone, as in some tests)."""
    ids = sorted(set(slot_ids))
    if not _INSTITUTIONS or not ids:
        return {}
    return _INSTITUTIONS[0](ids)


@dataclass(frozen=True, slots=True)
class SlotFacts:
    """What one author slot brings to its researcher, for :func:`cluster_evidence`.

    ``coauthors`` maps the name blocks of the paper's person slots to their names as
    written (it may hold the slot's own block, which is ignored; one dict may be shared by
    all slots of a paper); ``institutions`` maps ROR IDs to names.
    """

    slot_id: int
    paper_id: int
    name: str
    block: str
    coauthors: dict[str, str]
    affiliations: tuple[str, ...] = ()
    categories: frozenset[str] = frozenset()
    year: int | None = None
    institutions: dict[str, str] | None = None


def _list_signal(kind: str, values: list[str], **extra) -> dict:
    return {"kind": kind, "count": len(values), "values": values[:EVIDENCE_VALUES], **extra}


def _paper_keys(members: list[SlotFacts]) -> dict[str, Counter]:
    """Per kind, how many distinct papers of the cluster carry each key (a must-linked
    second slot of one paper counts once)."""
    per_paper: dict[int, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for m in members:
        keys = per_paper[m.paper_id]
        keys[COAUTHORS].update(b for b in m.coauthors if b != m.block)
        keys[AFFILIATION].update(affiliation_keys(m.affiliations))
        keys[INSTITUTION].update(m.institutions or ())
        keys[CATEGORIES].update(m.categories)
    counts: dict[str, Counter] = {
        kind: Counter() for kind in (COAUTHORS, AFFILIATION, INSTITUTION, CATEGORIES)
    }
    for keys in per_paper.values():
        for kind, values in keys.items():
            counts[kind].update(values)
    return counts


def _years(slot: SlotFacts, members: list[SlotFacts]) -> dict | None:
    others = {m.paper_id: m.year for m in members if m.paper_id != slot.paper_id}
    if not others:
        return None
    years = [y for y in [slot.year, *others.values()] if y is not None]
    if not years:
        return None
    return {"kind": YEARS, "first": min(years), "last": max(years), "papers": len(others)}


def _slot_signals(slot: SlotFacts, members: list[SlotFacts], counts: dict[str, Counter]) -> list[dict]:
    """The signals of one slot against the rest of its cluster (see :func:`cluster_evidence`)."""
    out: list[dict] = []
    coauthors = [n for b, n in slot.coauthors.items() if b != slot.block and counts[COAUTHORS][b] >= 2]
    if coauthors:
        out.append(_list_signal(COAUTHORS, coauthors))
    institutions = sorted((n, r) for r, n in (slot.institutions or {}).items() if counts[INSTITUTION][r] >= 2)
    if institutions:
        out.append(
            _list_signal(
                INSTITUTION,
                [n for n, _ in institutions],
                ror_ids=[r for _, r in institutions][:EVIDENCE_VALUES],
            )
        )
    affiliations = list(
        dict.fromkeys(
            a for a in slot.affiliations if any(counts[AFFILIATION][k] >= 2 for k in affiliation_keys([a]))
        )
    )
    if affiliations:
        out.append(_list_signal(AFFILIATION, affiliations))
    categories = sorted(c for c in slot.categories if counts[CATEGORIES][c] >= 2)
    if categories:
        out.append(_list_signal(CATEGORIES, categories))
    years = _years(slot, members)
    if years:
        out.append(years)
    out.append({"kind": NAME, "name": slot.name, "block": slot.block})
    return out


def cluster_evidence(members: list[SlotFacts], wanted: Iterable[int] | None = None) -> dict[int, list[dict]]:
    """The signals linking each slot of ``wanted`` (default: all) to the other slots of its
    cluster ``members`` (one researcher's slots): co-authors, institutions, affiliations and
    categories shared with another paper of the cluster, the years span, and the name.

    Computed after the clustering decided, from the same facts it weighed; it explains the
    link, it does not re-decide it. Linear in the cluster's size (co-authors of every paper
    counted once). Returns ``{slot id: [signal, ...]}`` in the shapes of this module's
    docstring. Pure.
    """
    ids = set(wanted) if wanted is not None else None
    if len({m.paper_id for m in members}) < 2:
        # One paper: nothing is shared with another (and a mega-paper's thousands of
        # one-slot researchers skip counting its author list once each).
        return {
            m.slot_id: [{"kind": NAME, "name": m.name, "block": m.block}]
            for m in members
            if ids is None or m.slot_id in ids
        }
    counts = _paper_keys(members)
    return {m.slot_id: _slot_signals(m, members, counts) for m in members if ids is None or m.slot_id in ids}


_HELD_SQL = """
    SELECT a.researcher_id, a.slot_id, a.paper_id, a.block
      FROM researchers_authorship a WHERE a.researcher_id = ANY(%s::bigint[])
"""
_PAPER_SLOTS_SQL = """
    SELECT s.id, s.paper_id, s.name, s.keyname, s.forenames, s.affiliations, s.is_collaboration
      FROM papers_paperauthor s WHERE s.paper_id = ANY(%s::bigint[]) ORDER BY s.paper_id, s.position
"""
_PAPER_FACTS_SQL = """
    SELECT id, categories, extract(year FROM submitted_at)::int FROM papers_paper WHERE id = ANY(%s::bigint[])
"""


def researcher_clusters(researcher_ids: Iterable[int]) -> dict[int, list[SlotFacts]]:
    """Every slot each researcher holds, as :class:`SlotFacts` (``{researcher id: [facts]}``):
    what :func:`cluster_evidence` needs to explain links already written (the backfill of
    authorships recorded before issue 20). Four queries: authorships, the papers' slots
    (for co-author names), the papers' categories and years, the slots' institutions."""
    ids = sorted(set(researcher_ids))
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_HELD_SQL, [int_array(ids)])
        held = cursor.fetchall()
        paper_ids = sorted({row[2] for row in held})
        cursor.execute(_PAPER_SLOTS_SQL, [int_array(paper_ids)])
        slots = cursor.fetchall()
        cursor.execute(_PAPER_FACTS_SQL, [int_array(paper_ids)])
        facts = {pid: (frozenset(categories or ()), year) for pid, categories, year in cursor.fetchall()}
    rows = {row[0]: row for row in slots}
    coauthors: dict[int, dict[str, str]] = defaultdict(dict)
    for _slot_id, paper_id, name, keyname, forenames, _affiliations, collaboration in slots:
        if not collaboration:
            coauthors[paper_id].setdefault(parse_name(name, keyname, forenames).block[:200], name)
    institutions = slot_institutions(row[1] for row in held)
    out: dict[int, list[SlotFacts]] = defaultdict(list)
    for researcher_id, slot_id, paper_id, block in held:
        row = rows.get(slot_id)
        if row is None:
            continue
        categories, year = facts.get(paper_id, (frozenset(), None))
        out[researcher_id].append(
            SlotFacts(
                slot_id=slot_id,
                paper_id=paper_id,
                name=row[2],
                block=block,
                coauthors=coauthors[paper_id],
                affiliations=tuple(row[5] or ()),
                categories=categories,
                year=year,
                institutions=institutions.get(slot_id),
            )
        )
    return dict(out)


# --------------------------------------------------------------------------- in words

METHOD_WORDS = {
    "orcid": "by ORCID iD",
    "external_id": "by a registry's author id",
    "local": "by this archive's own evidence",
    "editor": "by an editor",
}
SOURCE_WORDS = {
    "semantic_scholar": "Semantic Scholar",
    "openalex": "OpenAlex",
    "dblp": "DBLP",
    "orcid": "ORCID",
}


def _values(signal: dict) -> str:
    values = ", ".join(str(v) for v in signal.get("values", ()))
    more = signal.get("count", 0) - len(signal.get("values", ()))
    return values + (f" and {more} more" if more > 0 else "")


def signal_words(signal: dict) -> str:
    """One signal in words (``"2 co-authors also on other papers: A. Lee, B. Kim"``);
    an unknown kind gives its name."""
    kind, source = (
        signal.get("kind", ""),
        SOURCE_WORDS.get(signal.get("source", ""), signal.get("source", "")),
    )
    count = signal.get("count", 0)
    words = {
        ORCID: lambda: f"ORCID iD {signal.get('orcid')}, given by {source}",
        EXTERNAL_ID: lambda: f"{source} author id {signal.get('id')}",
        COAUTHORS: lambda: (
            f"{count} co-author{'s' if count != 1 else ''} also on other papers: {_values(signal)}"
        ),
        AFFILIATION: lambda: f"same affiliation as on other papers: {_values(signal)}",
        INSTITUTION: lambda: f"same institution as on other papers: {_values(signal)}",
        CATEGORIES: lambda: f"same arXiv categor{'ies' if count != 1 else 'y'}: {_values(signal)}",
        YEARS: lambda: (
            f"weighed with {signal.get('papers')} other paper{'s' if signal.get('papers') != 1 else ''}, "
            f"{signal.get('first')}"
            + (f"–{signal.get('last')}" if signal.get("last") != signal.get("first") else "")
        ),
        NAME: lambda: f"the name “{signal.get('name')}”",
        EDITOR: lambda: "an editor's decision",
        OWNER: lambda: (
            {
                "confirmed": "confirmed by the researcher",
                "taken": "the researcher took this paper as theirs",
            }.get(str(signal.get("action")), "the researcher of the former link said it is not theirs")
            + (" (signed in with ORCID)" if signal.get("strong") else "")
        ),
    }
    return words[kind]() if kind in words else str(kind)


# Author lists longer than this get the brief "why" (method, confidence, the unconfirmed
# note): a 3,000-author page with every signal in words would weigh a megabyte more.
WHY_FULL_AUTHORS = 100


def evidence_words(
    *, method: str, confidence: float, evidence: list[dict], unconfirmed: bool, brief: bool = False
) -> list[str]:
    """An authorship's reasons as short lines for people: how it was matched and how sure
    (``"Matched by ORCID iD, confidence 0.98"``), then one line per signal
    (:func:`signal_words`; left out when ``brief``), then, for an unconfirmed link, what
    that means."""
    lines = [f"Matched {METHOD_WORDS.get(method, method)}, confidence {confidence:.2f}"]
    if brief:
        lines.append("the signals are in the API's author_slots")
    else:
        lines += [signal_words(signal) for signal in evidence]
        if not evidence:
            lines.append("signals not recorded (matched before they were kept)")
    if unconfirmed:
        lines.append("unconfirmed: only the name links it, and several researchers share this name")
    return lines


def evidence_owner_confirmed(evidence: list[dict]) -> bool:
    """True when the researcher who claimed the record confirmed this link (an ``owner``
    signal with action ``confirmed``, or ``taken``: they took the paper from another record
    or the review queue): the paper page's "confirmed by the researcher"."""
    return any(s.get("kind") == OWNER and s.get("action") in OWNER_CONFIRMING for s in evidence or ())


# --------------------------------------------------------------------------- unconfirmed


def evidence_is_name_only(evidence: list[dict]) -> bool:
    """True when ``evidence`` rests on the name: a ``name`` signal and no decisive one
    (:data:`DECISIVE_KINDS`). An empty list (not recorded yet) is not name-only."""
    kinds = {signal.get("kind") for signal in evidence}
    return NAME in kinds and not kinds & DECISIVE_KINDS


def authorships_unconfirmed_refresh(*, blocks: Iterable[str]) -> int:
    """Set ``unconfirmed`` on every authorship of ``blocks`` (name blocks) by the rule of
    this module's docstring: name-only evidence (:func:`evidence_is_name_only`) in a block
    held by two or more researchers, for a researcher holding another paper. A block
    gaining a second researcher marks its earlier name-only links too; one losing it (a
    merge) clears them. One statement (rows changed get ``modified_at`` now: raw SQL skips
    ``auto_now``); returns the number of rows changed."""
    wanted = sorted(set(blocks))
    if not wanted:
        return 0
    block_array = text_array(wanted)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH shared AS (
                SELECT block FROM researchers_authorship
                 WHERE block = ANY(%s::text[])
                 GROUP BY block HAVING count(DISTINCT researcher_id) >= 2
            ), computed AS (
                SELECT a.id,
                       (a.block IN (SELECT block FROM shared)
                        AND EXISTS (SELECT 1 FROM researchers_authorship o
                                     WHERE o.researcher_id = a.researcher_id AND o.paper_id <> a.paper_id)
                        AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.evidence) e WHERE e->>'kind' = %s)
                        AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(a.evidence) e
                                         WHERE e->>'kind' = ANY(%s::text[]))) AS value
                  FROM researchers_authorship a
                 WHERE a.block = ANY(%s::text[])
            )
            UPDATE researchers_authorship a SET unconfirmed = c.value, modified_at = %s
              FROM computed c
             WHERE a.id = c.id AND a.unconfirmed IS DISTINCT FROM c.value
            """,
            [block_array, NAME, text_array(sorted(DECISIVE_KINDS)), block_array, timezone.now()],
        )
        return cursor.rowcount


def name_only_slots(slot_ids: Iterable[int]) -> set[int]:
    """The slots of ``slot_ids`` whose authorship rests on the name alone
    (:func:`evidence_is_name_only`, checked in SQL): the ones a newcomer's evidence may
    confirm. One query."""
    ids = sorted(set(slot_ids))
    if not ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT a.slot_id FROM researchers_authorship a
             WHERE a.slot_id = ANY(%s::bigint[])
               AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.evidence) e WHERE e->>'kind' = %s)
               AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(a.evidence) e
                                WHERE e->>'kind' = ANY(%s::text[]))
            """,
            [int_array(ids), NAME, text_array(sorted(DECISIVE_KINDS))],
        )
        return {row[0] for row in cursor.fetchall()}


def authorships_evidence_write(signals: dict[int, list[dict]]) -> int:
    """Store ``signals`` (``{slot id: evidence}``) on the slots' authorships, in one
    statement (with ``modified_at`` now); rows whose evidence is already that are left alone.
    Returns rows changed."""
    if not signals:
        return 0
    ids = sorted(signals)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE researchers_authorship a SET evidence = v.evidence, modified_at = %s
              FROM unnest(%s::bigint[], %s::jsonb[]) AS v(slot_id, evidence)
             WHERE a.slot_id = v.slot_id AND a.evidence IS DISTINCT FROM v.evidence
            """,
            [timezone.now(), ids, [json.dumps(signals[i], ensure_ascii=False) for i in ids]],
        )
        return cursor.rowcount


__all__ = [
    "DECISIVE_KINDS",
    "EVIDENCE_VALUES",
    "KINDS",
    "WHY_FULL_AUTHORS",
    "SlotFacts",
    "authorships_evidence_write",
    "authorships_unconfirmed_refresh",
    "cluster_evidence",
    "evidence_institutions_register",
    "evidence_is_name_only",
    "evidence_owner_confirmed",
    "evidence_words",
    "name_only_slots",
    "researcher_clusters",
    "signal_words",
    "slot_institutions",
    "source_evidence",
]
