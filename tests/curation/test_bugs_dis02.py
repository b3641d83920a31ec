"""Curation side of BUGS.md DIS-02 (one person, two OpenAlex profiles, two ORCID iDs) and
DIS-03 (b) (a slot left for review, listed for editors)."""

import pytest
from django.contrib.auth import get_user_model

from curation.merge import researcher_merge
from curation.queue import same_name_queue
from provenance.models import Event
from provenance.services import records_sign
from researchers.matching_local import researchers_match_local
from researchers.models import ExternalIdentity, Researcher
from tests.researchers.test_bugs_name_parts import match, oa_work, paper, researcher_of, tomas_researchers

pytestmark = pytest.mark.django_db

SHARED = [
    ("Oriol Puig", "Puig", "Oriol"),
    ("Laia Ferrer", "Ferrer", "Laia"),
    ("Pau Serra", "Serra", "Pau"),
    ("Núria Vila", "Vila", "Núria"),
]


@pytest.mark.django_db
def test_dis02_two_profiles_proposed_merged_by_an_editor_and_kept_merged(client):
    """BUGS.md DIS-02: OpenAlex B1 ``Mireia Soler Vidal`` (ORCID …1414-2131, 52 works) and B2
    ``Mireia C. Soler-Vidal`` (…1732-0503, 9 works), same institution, 4 shared co-authors:
    two researchers and a merge candidate with its reasons; after an editor merges B2 into
    B1, one researcher with both iDs and 61 works, B2's URL answers 301, one signed merge
    event; a later OpenAlex answer carrying B2's iD attaches to B1."""
    b1_ids = [f"2302.{n:05d}" for n in range(1, 53)]
    b2_ids = [f"2302.{n:05d}" for n in range(101, 110)]
    for i, arxiv_id in enumerate(b1_ids):
        paper(
            arxiv_id,
            [("Mireia Soler Vidal", "Soler Vidal", "Mireia"), SHARED[i % 4]],
            affiliation="Universitat de Barcelona",
        )
    for i, arxiv_id in enumerate(b2_ids):
        paper(
            arxiv_id,
            [("Mireia C. Soler-Vidal", "Soler-Vidal", "Mireia C."), SHARED[i % 4]],
            affiliation="Universitat de Barcelona",
        )
    works = [oa_work("dis02_b1", a) for a in b1_ids] + [oa_work("dis02_b2", a) for a in b2_ids]
    match(works, "openalex")
    records_sign()  # the pipeline's signing stage: curation's events go on signed records

    b1 = Researcher.objects.get(orcid="0000-0000-1414-2131")
    b2 = Researcher.objects.get(orcid="0000-0000-1732-0503")
    assert (b1.paper_count, b2.paper_count) == (52, 9)  # not auto-merged across two iDs
    [candidate] = [c for c in same_name_queue() if {c.a.pk, c.b.pk} == {b1.pk, b2.pk}]
    assert candidate.shared_coauthors == ["Laia Ferrer", "Núria Vila", "Oriol Puig", "Pau Serra"]
    assert "barcelona" in candidate.shared_affiliation_words
    assert candidate.orcid == "different"
    # The names agree once hyphen, space and middle initial are set aside (a compatible pair).
    assert candidate.name_similarity == 0.8

    editor = get_user_model().objects.create_user("editor", "e@example.org", "pw")
    researcher_merge(
        survivor_id=b1.pk,
        merged_ids=[b2.pk],
        editor=editor,
        reason="one person, two profiles",
        override_orcid=True,
    )
    b1.refresh_from_db()
    assert (b1.orcid, b1.paper_count) == ("0000-0000-1414-2131", 61)
    assert ExternalIdentity.objects.filter(
        researcher=b1, source="orcid", external_id="0000-0000-1732-0503"
    ).exists()
    response = client.get(f"/researchers/{b2.pk}-{b2.slug}")
    assert (response.status_code, response["Location"]) == (301, b1.get_absolute_url())
    assert Event.objects.filter(event_type="researcher_merged").count() == 1

    later = "2302.00200"
    paper(later, [("M. C. Soler-Vidal", "Soler-Vidal", "M. C.")])
    match([oa_work("dis02_b2", later)], "openalex")
    assert researcher_of(later) == b1
    assert Researcher.objects.filter(merged_into__isnull=True, orcid__isnull=False).count() == 1


def test_dis03b_slot_left_for_review_is_listed_for_editors(editor):
    """BUGS.md DIS-03 (b), as an editor sees it: the ``Tomas Pena`` slot the matcher left
    unattached is listed on the same-name queue page with R1 and R2 as candidates."""
    r1, r2 = tomas_researchers()
    paper("2304.00004", [("Tomas Pena", "Pena", "Tomas")], categories=["physics.optics"])
    researchers_match_local()
    page = editor.get("/admin/curation/queue/").content.decode()
    section = page[page.index('id="review"') :]
    assert "1 slot whose name fits several researchers" in section
    assert "2304.00004" in section and "Tomas Pena (author 1)" in section
    assert f"#{r1.pk} (ORCID 0000-0000-3141-5920)" in section
    assert f"#{r2.pk} (ORCID 0000-0000-6180-3393)" in section
