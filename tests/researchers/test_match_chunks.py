"""A first load matched in chunks gives the researchers one run gives (issue 29).

The names are the sample's (``data/arxiv/oai``: ``Richard Smith``, ``Roger R. Smith``), one
written with its initial only (edited), and a name in both orders.
"""

import pytest

from papers.models import PaperAuthor
from researchers.matching_local import pending_by_block
from researchers.models import Authorship, Researcher, SlotReview
from researchers.services import researchers_match_authors

from .test_hard_names import paper_with

pytestmark = pytest.mark.django_db


def load():
    # Newest first is the highest arXiv identifier: chunks of two newest slots would be
    # (6, 5), (4, 3), (2, 1).
    paper_with("9904.00001", [("R.", "Smith")], categories=("hep-ph",))
    paper_with("9904.00002", [("Wang", "Wei")], affiliations=["Fudan University"])
    paper_with("9904.00003", [("Roger R.", "Smith")], categories=("hep-ph",))
    paper_with("9904.00004", [("Richard", "Smith")], categories=("hep-ph",))
    paper_with("9904.00005", [("Wei", "Wang")], affiliations=["Fudan University"])
    paper_with("9904.00006", [("Wei", "Wang")], affiliations=["Fudan University"])


def people() -> set[frozenset[str]]:
    """Each researcher as the set of the papers its slots are on."""
    found: dict[int, set[str]] = {}
    for arxiv_id, rid in Authorship.objects.values_list("paper__arxiv_id", "researcher_id"):
        found.setdefault(rid, set()).add(arxiv_id)
    return {frozenset(papers) for papers in found.values()}


def test_chunks_keep_a_name_block_and_its_turned_name_together():
    load()
    slots = dict(PaperAuthor.objects.values_list("paper__arxiv_id", "id"))
    smith = {slots[f"9904.0000{i}"] for i in (1, 3, 4)}
    # "Wang Wei" goes with the "Wei Wang" slots: that order is written twice as often.
    wang = {slots[f"9904.0000{i}"] for i in (2, 5, 6)}
    chunks = [set(chunk) for chunk in pending_by_block(2)]
    assert all(chunk in (smith, wang, smith | wang) for chunk in chunks)
    assert set().union(*chunks) == smith | wang
    assert [sorted(chunk) for chunk in pending_by_block(6)] == [sorted(smith | wang)]


def test_a_load_in_chunks_matches_as_one_run(settings):
    load()
    researchers_match_authors(sources=[])
    one_run = people()
    # Roger R. and Richard are two people; "R." could be either and has only a shared field.
    assert one_run == {
        frozenset({"9904.00001"}),
        frozenset({"9904.00003"}),
        frozenset({"9904.00004"}),
        frozenset({"9904.00002", "9904.00005", "9904.00006"}),
    }
    assert not SlotReview.objects.exists()

    Authorship.objects.all().delete()
    Researcher.objects.all().delete()
    settings.RESEARCHER_MATCH_CHUNK = 2
    summary = researchers_match_authors(sources=[])
    # Before: chunks of the newest slots made Richard and Roger R. two researchers in the
    # second chunk, and sent the third's "R. Smith", fitting both, to review; its "Wang Wei"
    # met no "Wei Wang" there and became a researcher of its own.
    assert summary.left_for_review == 0
    assert not SlotReview.objects.exists()
    assert people() == one_run
    assert summary.slots == 6
