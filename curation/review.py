"""The editors' review lists: author slots left for review, and unconfirmed links with their evidence."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from researchers.evidence import signal_words
from researchers.models import Authorship, Researcher
from researchers.selectors import slots_for_review

# Slots left for review shown on the queue page (the admin list has them all).
REVIEW_SHOWN = 50


@dataclass
class ReviewRow:
    """An author slot the matcher left for an editor, with the researchers it could be."""

    review: object  # researchers.models.SlotReview, its slot and paper loaded
    candidates: list[Researcher]


def review_rows(*, limit: int = REVIEW_SHOWN) -> tuple[list[ReviewRow], int]:
    """The newest ``limit`` slots left for review (:func:`researchers.selectors.slots_for_review`)
    with their candidate researchers, and how many there are in all; two queries."""
    reviews = slots_for_review()
    shown = reviews[:limit]
    researchers = Researcher.objects.in_bulk({pk for r in shown for pk in r.candidates})
    rows = [ReviewRow(r, [researchers[pk] for pk in r.candidates if pk in researchers]) for r in shown]
    return rows, len(reviews)


# --------------------------------------------------------------------------- unconfirmed links

# Other researchers of a name block shown beside an unconfirmed link (most papers first),
# and how many of them the one-click comparison opens beside the link's researcher.
BLOCK_OTHERS_SHOWN = 8
BLOCK_OTHERS_COMPARED = 4


# Evidence kinds (``Authorship.evidence``) in words, strongest first.
@dataclass
class UnconfirmedRow:
    """One unconfirmed link of the review queue: the authorship (slot, paper and researcher
    loaded), its evidence in words, and the other researchers of its name block (at most
    :data:`BLOCK_OTHERS_SHOWN`, most papers first; ``others_count`` is all of them)."""

    authorship: Authorship
    evidence: list[str]
    others: list[Researcher]
    others_count: int

    @property
    def compare_ids(self) -> str:
        """``"<researcher>,<other>,..."``: the ids the merge comparison opens with."""
        ids = [self.authorship.researcher_id] + [r.pk for r in self.others[:BLOCK_OTHERS_COMPARED]]
        return ",".join(str(i) for i in ids)


def _signal_in_words(signal: dict[str, Any]) -> str:
    kind = str(signal.get("kind", ""))
    if kind == "editor":
        action = str(signal.get("action") or "decided").capitalize()
        source = f" from researcher {signal['from_researcher']}" if signal.get("from_researcher") else ""
        record = f" (curation #{signal['curation_id']})" if signal.get("curation_id") else ""
        return f"{action}{source} by editor {signal.get('editor') or 'unknown'}{record}"
    if kind == "name":
        words = f"Name only: “{signal.get('name')}”"
        count = signal.get("block_researchers")
        return words + (f", {count} researchers in its name block" if count is not None else "")
    # Every other kind as the public "why" says it (researchers.evidence owns the shapes).
    words = signal_words(signal)
    return words[:1].upper() + words[1:]


def evidence_in_words(evidence: Iterable[dict[str, Any]] | None) -> list[str]:
    """Each signal of an ``Authorship.evidence`` list as one line for editors, in order:
    ``{"kind": "name", "name": "D. Mozyrsky", "block_researchers": 2}`` reads “Name only:
    “D. Mozyrsky”, 2 researchers in its name block”; an ``editor`` signal reads “Confirmed by
    editor ed (curation #12)”; other kinds read as on the paper page's "why"
    (:func:`researchers.evidence.signal_words`: “2 co-authors also on other papers: …”).
    Entries that are not dicts are skipped."""
    return [_signal_in_words(s) for s in evidence or () if isinstance(s, dict)]


def unconfirmed_authorships(*, block: str = "") -> QuerySet[Authorship]:
    """Unconfirmed links (``Authorship.unconfirmed``), by name block, paper and author
    position, with slot, paper and researcher loaded; only name block ``block`` when given."""
    links = Authorship.objects.filter(unconfirmed=True).select_related("slot", "paper", "researcher")
    if block:
        links = links.filter(block=block)
    return links.order_by("block", "paper__arxiv_id", "slot__position", "pk")


def unconfirmed_rows(authorships: Iterable[Authorship]) -> list[UnconfirmedRow]:
    """:class:`UnconfirmedRow` of each authorship (one page of
    :func:`unconfirmed_authorships`): its evidence in words and the other researchers of its
    name block; two queries."""
    links = list(authorships)
    members: dict[str, set[int]] = defaultdict(set)
    for block, rid in (
        Authorship.objects.filter(block__in={a.block for a in links})
        .values_list("block", "researcher_id")
        .distinct()
    ):
        members[block].add(rid)
    researchers = Researcher.objects.in_bulk({rid for ids in members.values() for rid in ids})
    rows = []
    for link in links:
        others = sorted(
            (
                researchers[rid]
                for rid in members[link.block]
                if rid != link.researcher_id and rid in researchers
            ),
            key=lambda r: (-r.paper_count, r.pk),
        )
        rows.append(
            UnconfirmedRow(link, evidence_in_words(link.evidence), others[:BLOCK_OTHERS_SHOWN], len(others))
        )
    return rows
