"""A newer author list that gives a position to someone else takes the old researcher off it.

Slots are keyed by ``(paper, position)``; before, an update in place kept the old person's
researcher on whatever name the position now holds (a collaboration included, issue 19).
Replays two edits of the real arXivRaw record 0801.3673 (tests/fixtures/provenance/README.md).
"""

from __future__ import annotations

import pytest

from papers.harvest import harvest_files
from papers.models import PaperAuthor
from researchers.models import Authorship
from researchers.services import researchers_match_authors
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

BEFORE = FIXTURES / "provenance" / "edited_arXivRaw_0801.3673_authors.xml"
AFTER = FIXTURES / "provenance" / "edited_arXivRaw_0801.3673_authors_renamed.xml"


def _slots() -> list[tuple[int, int, str, bool, str | None]]:
    """``(slot id, position, name, is_collaboration, researcher name or None)`` in order."""
    rows = PaperAuthor.objects.filter(paper__arxiv_id="0801.3673").order_by("position")
    held = dict(Authorship.objects.filter(slot__in=rows).values_list("slot_id", "researcher__display_name"))
    return [(s.pk, s.position, s.name, s.is_collaboration, held.get(s.pk)) for s in rows]


def test_a_position_given_to_someone_else_loses_its_researcher_and_is_matched_anew():
    harvest_files(paths=[BEFORE])
    researchers_match_authors(sources=[])
    before = _slots()
    assert [(p, n, c, r) for _id, p, n, c, r in before] == [
        (1, "Naoum C. Bacalis", False, "Naoum C. Bacalis"),
        (2, "Anne Other", False, "Anne Other"),
    ]

    harvest_files(paths=[AFTER])
    after = _slots()
    # Position 1 is now the CMS collaboration: Bacalis's researcher is no longer on it.
    # Position 2 still names Anne Other: the same slot, the same researcher.
    # Position 3 is new: unmatched until the authors stage runs.
    assert [(p, n, c, r) for _id, p, n, c, r in after] == [
        (1, "CMS Collaboration", True, None),
        (2, "Anne Other", False, "Anne Other"),
        (3, "Naoum C. Bacalis", False, None),
    ]
    assert after[1][0] == before[1][0]
    assert after[0][0] != before[0][0]

    researchers_match_authors(sources=[])
    matched = _slots()
    assert [(p, r) for _id, p, _n, _c, r in matched] == [
        (1, None),
        (2, "Anne Other"),
        (3, "Naoum C. Bacalis"),
    ]
    researcher_ids = list(
        Authorship.objects.filter(paper__arxiv_id="0801.3673").values_list("researcher_id", flat=True)
    )
    assert len(researcher_ids) == len(set(researcher_ids)) == 2
