"""A merge, split or undo recomputes the unconfirmed marks of the links it moves (issue 32).

On the matched sample, block "b malesevic" is held by two records: "Branko J. Malesevic"
(0704.0068, 0704.0747, 0704.0750: three links resting on the name, so unconfirmed) and
"Branko Malesevic" (0704.0755 alone). Merging them leaves the block to one researcher: his
links are no longer guesses, on the editors' queue and on his public page alike.
"""

from __future__ import annotations

import pytest

from curation.merge import researcher_merge
from curation.split import researcher_split
from curation.undo import curation_undo
from researchers.models import Authorship, Researcher

pytestmark = pytest.mark.django_db

BLOCK = "b malesevic"
QUEUE = "/admin/curation/unconfirmed/?block=b+malesevic"
BRANKO_J_PAPERS = ["0704.0068", "0704.0747", "0704.0750"]


def marks() -> dict[str, bool]:
    """``{arXiv id: unconfirmed}`` of the block's links."""
    return dict(Authorship.objects.filter(block=BLOCK).values_list("paper__arxiv_id", "unconfirmed"))


def public_page(client, researcher: Researcher) -> str:
    return client.get(f"/researchers/{researcher.pk}", follow=True).content.decode()


@pytest.fixture
def malesevic(curation_sample):
    """The two records, as the matcher left them: ``(Branko J. Malesevic, Branko Malesevic)``."""
    branko_j = Researcher.objects.get(display_name="Branko J. Malesevic", merged_into=None)
    branko = Researcher.objects.get(display_name="Branko Malesevic", merged_into=None)
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, True), "0704.0755": False}
    return branko_j, branko


def test_merge_clears_the_marks_split_and_undo_bring_them_back(malesevic, editor, editor_user, client):
    branko_j, branko = malesevic
    page = editor.get(QUEUE).content.decode()
    assert "3 unconfirmed links in block “b malesevic”" in page
    assert "3 papers unconfirmed" in public_page(client, branko_j)

    merge = researcher_merge(
        survivor_id=branko_j.pk, merged_ids=[branko.pk], editor=editor_user, reason="one person"
    )
    # One researcher holds the block now: nothing is a guess any more, in the same transaction.
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, False), "0704.0755": False}
    assert "0 unconfirmed links in block “b malesevic”" in editor.get(QUEUE).content.decode()
    assert "papers unconfirmed" not in public_page(client, branko_j)

    # The undo gives the block its second holder back, and the three marks with it.
    curation_undo(record_id=merge.pk, editor=editor_user, reason="two people after all")
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, True), "0704.0755": False}
    assert "3 papers unconfirmed" in public_page(client, branko_j)

    # Merge again, then split 0704.0755 off: two holders again, the three name-only links
    # are guesses again (0704.0755 is its new record's only paper, so it is not marked).
    researcher_merge(survivor_id=branko_j.pk, merged_ids=[branko.pk], editor=editor_user, reason="one")
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, False), "0704.0755": False}
    moved = Authorship.objects.get(block=BLOCK, paper__arxiv_id="0704.0755")
    split = researcher_split(
        researcher_id=branko_j.pk, authorship_ids=[moved.pk], editor=editor_user, reason="two people"
    )
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, True), "0704.0755": False}
    assert "3 unconfirmed links in block “b malesevic”" in editor.get(QUEUE).content.decode()

    # Undoing the split puts the link back on the one holder: cleared again.
    curation_undo(record_id=split.pk, editor=editor_user, reason="one person after all")
    assert marks() == {**dict.fromkeys(BRANKO_J_PAPERS, False), "0704.0755": False}
    assert "papers unconfirmed" not in public_page(client, branko_j)
