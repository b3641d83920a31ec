"""Reads for the site's paper pages that combine apps (author slots with their researchers)."""

from __future__ import annotations

from papers.models import Paper
from researchers.selectors import authors_with_researchers


def authors_for_page(paper: Paper) -> list[dict]:
    """The ordered author slots as dicts ``{slot, researcher, position}``.

    ``researcher`` is the researcher the slot is matched to
    (``researchers.selectors.authors_with_researchers``), ``None`` while unmatched.
    """
    slots = list(paper.authors.all())
    researchers: dict[int, object] = {}
    for slot, researcher in authors_with_researchers(paper):
        researchers[slot.pk] = researcher
    count = len(slots)
    out = []
    for slot in slots:
        slot._author_count = count
        out.append({"slot": slot, "researcher": researchers.get(slot.pk), "position": slot.author_position})
    return out
