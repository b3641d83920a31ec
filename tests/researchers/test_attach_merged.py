"""researchers_attach_from_source follows merged_into chains to the surviving record."""

import pytest

from papers.models import Paper, PaperAuthor
from researchers.matching_sources import researchers_attach_from_source
from researchers.models import Authorship, ExternalIdentity, MatchMethod, Researcher
from researchers.records import SourceAuthor, SourceWork

ORCID = "0000-0001-9308-3885"  # Panagiotis D. Ritsos (recorded OpenAlex work W3188841554)


def _paper(arxiv_id: str) -> Paper:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug=arxiv_id, title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=paper, position=1, name="P. D. Ritsos", keyname="Ritsos", forenames="P. D."
    )
    return paper


@pytest.mark.django_db
def test_orcid_and_author_id_of_a_merged_chain_attach_to_the_survivor():
    # Three records of one person: the ORCID holder was merged into a record that was itself
    # merged later (a chain not flattened, e.g. written before merges flattened chains).
    survivor = Researcher.objects.create(display_name="Panagiotis D. Ritsos", slug="p-ritsos")
    middle = Researcher.objects.create(display_name="P. Ritsos", slug="p-ritsos-2", merged_into=survivor)
    first = Researcher.objects.create(
        display_name="P. D. Ritsos", slug="p-ritsos-3", orcid=ORCID, merged_into=middle
    )
    ExternalIdentity.objects.create(researcher=first, source="openalex", external_id="A5065371627")

    by_orcid = _paper("2109.00001")
    author = SourceAuthor(1, "Panagiotis D. Ritsos", None, ORCID)
    assert researchers_attach_from_source(work=SourceWork("openalex", "2109.00001", [author])) == 1
    attached = Authorship.objects.get(slot__paper=by_orcid)
    assert (attached.researcher_id, attached.method) == (survivor.pk, MatchMethod.ORCID)

    by_id = _paper("2109.00002")
    author = SourceAuthor(1, "Panagiotis D. Ritsos", "A5065371627", None)
    assert researchers_attach_from_source(work=SourceWork("openalex", "2109.00002", [author])) == 1
    attached = Authorship.objects.get(slot__paper=by_id)
    assert (attached.researcher_id, attached.method) == (survivor.pk, MatchMethod.EXTERNAL_ID)
    survivor.refresh_from_db()
    assert survivor.paper_count == 2
    # No new record was made, and the merged-away records gained nothing.
    assert Researcher.objects.count() == 3
    assert not Authorship.objects.filter(researcher__in=[middle, first]).exists()
