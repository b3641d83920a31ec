"""Which ROR record an affiliation matched, and how it led to the institution (allenai/S2AFF#35).

An author link moved from a withdrawn record to its successor kept only the end: the link
said "Asia University 038a1tp19" and nothing of 03z7kp760, the record the string or id had
named. Now every writer keeps ``matched_institution`` and ``resolution`` ("direct" or
"via successor"), and the paper API shows them.

The records are tests/fixtures/ror's real ones edited with ror-updates #10836 (Asia University
03z7kp760 withdrawn, successor 038a1tp19), #10837 (038a1tp19 renamed from "Asian University"
to "Asia University") and #12240 (Istanbul Topkapi University 00tabsj08 withdrawn as a
duplicate of 00g241p78). The affiliation string is a real one: author d of MGraphDTA (Chem.
Sci. 2022, 13, 816, doi:10.1039/d1sc05180f), "Department of Bioinformatics and Medical
Engineering, Asia University, Taichung, 41354, Taiwan" (the PDF's line break read as a space).
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from institutions.models import AuthorAffiliation, Institution
from institutions.services import affiliations_link_ror_ids, affiliations_match, institutions_load
from papers.models import Paper, PaperAuthor

from .conftest import ROR_FIXTURES

pytestmark = pytest.mark.django_db

ASIA_ACTIVE_2023 = ROR_FIXTURES / "edited_03z7kp760_asia_university_active.json"
ASIA_WITHDRAWN = ROR_FIXTURES / "edited_03z7kp760_asia_university_withdrawn.json"
ASIAN_2023 = ROR_FIXTURES / "edited_038a1tp19_asian_university.json"
ASIA = ROR_FIXTURES / "edited_038a1tp19_asia_university.json"
TOPKAPI_WITHDRAWN = ROR_FIXTURES / "edited_00tabsj08_istanbul_topkapi_university_withdrawn_v1.json"
TOPKAPI = ROR_FIXTURES / "edited_00g241p78_istanbul_topkapi_university.json"

MGRAPHDTA_D = "Department of Bioinformatics and Medical Engineering, Asia University, Taichung, 41354, Taiwan"
TOPKAPI_STRING = (
    "Department of Computer Engineering, Faculty of Engineering, "
    "Istanbul Topkapi University, Istanbul, Turkey"
)


def _slot(affiliations: list[str], arxiv_id: str) -> PaperAuthor:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug="mgraphdta", title="MGraphDTA")
    return PaperAuthor.objects.create(
        paper=paper, position=4, name="Calvin Yu-Chian Chen", affiliations=affiliations
    )


def _link(slot: PaperAuthor) -> tuple[str, str, str | None, str]:
    """``(institution ROR ID, source, matched ROR ID, resolution)`` of the slot's one link."""
    link = slot.institution_links.select_related("institution", "matched_institution").get()
    matched = link.matched_institution.ror_id if link.matched_institution else None
    return (link.institution.ror_id, link.source, matched, link.resolution)


def test_a_link_moved_to_the_successor_keeps_the_record_it_matched():
    # 2023: 03z7kp760 is the active "Asia University", 038a1tp19 "Asian University".
    institutions_load(paths=[ASIA_ACTIVE_2023, ASIAN_2023])
    by_string = _slot([MGRAPHDTA_D], "2401.00001")
    by_id = _slot([], "2401.00002")
    affiliations_match(pending_only=True)
    affiliations_link_ror_ids(pairs=[(by_id.pk, "https://ror.org/03z7kp760")])
    assert _link(by_string) == ("03z7kp760", "string-match", "03z7kp760", "direct")
    assert _link(by_id) == ("03z7kp760", "openalex", "03z7kp760", "direct")

    # ror-updates #10836 loaded: 03z7kp760 withdrawn, successor 038a1tp19 (not yet renamed).
    institutions_load(paths=[ASIA_WITHDRAWN])
    assert _link(by_string) == ("038a1tp19", "string-match", "03z7kp760", "via-successor")
    assert _link(by_id) == ("038a1tp19", "openalex", "03z7kp760", "via-successor")
    # The affiliations stage matches the string again: only the withdrawn record carries the
    # name, so the link still says so.
    affiliations_match(pending_only=True)
    assert _link(by_string) == ("038a1tp19", "string-match", "03z7kp760", "via-successor")

    # #10837: the successor takes the name itself, so the string now names it directly;
    # the id named the withdrawn record and still says so.
    institutions_load(paths=[ASIA])
    affiliations_match(pending_only=True)
    assert _link(by_string) == ("038a1tp19", "string-match", "038a1tp19", "direct")
    assert _link(by_id) == ("038a1tp19", "openalex", "03z7kp760", "via-successor")


def test_an_id_of_a_withdrawn_record_links_its_successor_via_successor():
    institutions_load(paths=[TOPKAPI_WITHDRAWN, TOPKAPI])
    slot = _slot([], "2401.00003")
    result = affiliations_link_ror_ids(pairs=[(slot.pk, "00tabsj08")])
    assert (result.created, _link(slot)) == (1, ("00g241p78", "openalex", "00tabsj08", "via-successor"))
    # The institution's own id given later for the same slot: the link is direct now.
    result = affiliations_link_ror_ids(pairs=[(slot.pk, "00g241p78")])
    assert (result.updated, _link(slot)) == (1, ("00g241p78", "openalex", "00g241p78", "direct"))
    # Both ids in one call: the institution's own wins, whatever the order.
    other = _slot([], "2401.00004")
    affiliations_link_ror_ids(pairs=[(other.pk, "00g241p78"), (other.pk, "00tabsj08")])
    assert _link(other) == ("00g241p78", "openalex", "00g241p78", "direct")


def test_a_name_both_records_carry_is_a_direct_match():
    # #12240: the withdrawn duplicate and the active record are both "Istanbul Topkapi
    # University"; the active record carries the name itself, so nothing went via successor.
    institutions_load(paths=[TOPKAPI_WITHDRAWN, TOPKAPI])
    slot = _slot([TOPKAPI_STRING], "2401.00005")
    affiliations_match(pending_only=True)
    assert _link(slot) == ("00g241p78", "string-match", "00g241p78", "direct")


def test_the_database_refuses_a_resolution_that_contradicts_the_records():
    institutions_load(paths=[ASIA_WITHDRAWN, ASIA])
    slot = _slot([], "2401.00006")
    active, withdrawn = (Institution.objects.get(ror_id=r) for r in ("038a1tp19", "03z7kp760"))
    bad = [
        {"matched_institution": withdrawn, "resolution": "direct"},
        {"matched_institution": active, "resolution": "via-successor"},
        {"matched_institution": None, "resolution": "via-successor"},
        {"matched_institution": active, "resolution": ""},
    ]
    for fields in bad:
        with pytest.raises(IntegrityError), transaction.atomic():
            AuthorAffiliation.objects.create(slot=slot, institution=active, source="ror-id", **fields)


def test_the_paper_api_shows_the_record_matched_and_how(client, settings):
    settings.SITE_URL = "https://wove.example"
    institutions_load(paths=[ASIA_ACTIVE_2023, ASIAN_2023])
    slot = _slot([MGRAPHDTA_D], "2401.00007")
    affiliations_match(pending_only=True)
    institutions_load(paths=[ASIA_WITHDRAWN])
    active, withdrawn = (Institution.objects.get(ror_id=r) for r in ("038a1tp19", "03z7kp760"))
    body = client.get(f"/api/v1/papers/{slot.paper.arxiv_id}").json()
    [institution] = body["author_slots"][0]["institutions"]
    assert institution == {
        "id": active.pk,
        "ror_id": "038a1tp19",
        "name": "Asian University",
        "country_code": "TW",
        "url": f"https://wove.example/institutions/{active.pk}-asian-university",
        "source": "string-match",
        "matched_string": MGRAPHDTA_D,
        "matched": {
            "id": withdrawn.pk,
            "ror_id": "03z7kp760",
            "name": "Asia University",
            "status": "withdrawn",
            "url": f"https://wove.example/institutions/{withdrawn.pk}-asia-university",
        },
        "resolution": "via-successor",
    }
