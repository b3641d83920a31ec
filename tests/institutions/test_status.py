"""Institution status (issue 18): withdrawn and inactive ROR records and their successors.

The shared ROR records hold no withdrawn one: the records here are real ones edited with
what ROR's curators recorded (ror-community/ror-updates #12240: Istanbul Topkapi University
00tabsj08 withdrawn as a duplicate of 00g241p78; #10836 and #10837: Asia University
03z7kp760 withdrawn, successor 038a1tp19 renamed from "Asian University" to "Asia
University"); see tests/fixtures/ror/README.md. On the code before this change both pairs
matched nothing (``[]`` for either string), each name answered the page to choose from
(200), and the withdrawn records' ROR IDs led to their own pages.
"""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest

from institutions.matching import AffiliationMatcher
from institutions.models import AffiliationMatchMark, AuthorAffiliation, Institution
from institutions.ror import iter_records
from institutions.services import (
    affiliations_link_ror_ids,
    affiliations_match,
    institutions_load,
    matcher_build,
)
from institutions.succession import succession_edges, successor_ends
from papers.models import Paper, PaperAuthor

from .conftest import ROR_FIXTURES

TOPKAPI_WITHDRAWN = ROR_FIXTURES / "edited_00tabsj08_istanbul_topkapi_university_withdrawn_v1.json"
TOPKAPI = ROR_FIXTURES / "edited_00g241p78_istanbul_topkapi_university.json"
ASIA_WITHDRAWN = ROR_FIXTURES / "edited_03z7kp760_asia_university_withdrawn.json"
ASIA_ACTIVE_2023 = ROR_FIXTURES / "edited_03z7kp760_asia_university_active.json"
ASIA = ROR_FIXTURES / "edited_038a1tp19_asia_university.json"
ASIAN_2023 = ROR_FIXTURES / "edited_038a1tp19_asian_university.json"
MONTPELLIER_TO_SACLAY = ROR_FIXTURES / "edited_051escj72_inactive_successor_03xjwb503.json"
MONTPELLIER_CYCLE = ROR_FIXTURES / "edited_051escj72_inactive_successor_00wh4bp03.json"

TOPKAPI_STRING = (
    "Department of Computer Engineering, Faculty of Engineering, "
    "Istanbul Topkapi University, Istanbul, Turkey"
)
ASIA_STRING = "Department of Computer Science and Information Engineering, Asia University, Taichung, Taiwan"


def _institution(ror_id: str) -> Institution:
    return Institution.objects.get(ror_id=ror_id)


def _slot(affiliations: list[str], arxiv_id: str = "2401.00001") -> PaperAuthor:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug="x", title="A paper")
    return PaperAuthor.objects.create(paper=paper, position=1, name="A. Author", affiliations=affiliations)


def _links(slot: PaperAuthor) -> set[str]:
    return set(slot.institution_links.values_list("institution__ror_id", flat=True))


# -- Successor chains (pure) -------------------------------------------------------------


def test_successor_chains_are_followed_to_the_active_end():
    statuses = {"a": "withdrawn", "b": "inactive", "c": "active"}
    assert successor_ends(statuses, [("a", "b"), ("b", "c")]) == {"a": "c", "b": "c"}


def test_a_cycle_ends_without_a_successor_and_one_with_an_exit_leaves_by_it():
    statuses = {"a": "withdrawn", "b": "withdrawn", "c": "active"}
    assert successor_ends(statuses, [("a", "b"), ("b", "a")]) == {}
    assert successor_ends(statuses, [("a", "b"), ("b", "a"), ("b", "c")]) == {"a": "c", "b": "c"}
    assert successor_ends({"a": "inactive"}, [("a", "a")]) == {}  # a record naming itself


def test_splits_dead_ends_and_active_records_are_left_alone():
    statuses = {"a": "inactive", "b": "active", "c": "active", "d": "inactive", "e": "active"}
    edges = [("a", "b"), ("a", "c"), ("d", "not-loaded"), ("e", "b")]
    assert successor_ends(statuses, edges) == {}


def test_predecessor_relationships_count_the_other_way():
    rows = [("b", "predecessor", "a"), ("a", "successor", "b"), ("a", "parent", "x")]
    assert succession_edges(rows) == [("a", "b"), ("a", "b")]


# -- Records of both schemas -------------------------------------------------------------


def test_status_and_successor_read_from_v1_and_v2_records():
    [v1] = iter_records([TOPKAPI_WITHDRAWN])
    [v2] = iter_records([ASIA_WITHDRAWN])
    assert (v1.schema_version, v1.status, [(r.type, r.ror_id) for r in v1.relationships]) == (
        "1.0",
        "withdrawn",
        [("successor", "00g241p78")],  # v1 writes the type "Successor"
    )
    assert (v2.status, [(r.type, r.ror_id) for r in v2.relationships]) == (
        "withdrawn",
        [("successor", "038a1tp19")],
    )


# -- Matching ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_istanbul_topkapi_university_matches_the_active_record_not_its_withdrawn_duplicate():
    institutions_load(paths=[TOPKAPI_WITHDRAWN, TOPKAPI])
    active = _institution("00g241p78")
    assert _institution("00tabsj08").superseded_by == active
    matcher = matcher_build()
    assert [m.institution_id for m in matcher.match(TOPKAPI_STRING)] == [active.pk]
    assert [m.institution_id for m in matcher.match("İstanbul Topkapı Üniversitesi")] == [active.pk]


@pytest.mark.django_db
def test_asia_university_matches_the_successor_that_took_its_name():
    institutions_load(paths=[ASIA_WITHDRAWN, ASIA])
    [match] = matcher_build().match(ASIA_STRING)
    # ror_display of 038a1tp19 since ror-updates #10837, and the country agrees (0.95 + 0.04).
    assert (match.institution_id, match.kind, match.confidence) == (
        _institution("038a1tp19").pk,
        "ror_display",
        0.99,
    )


@pytest.mark.django_db
def test_both_names_through_the_affiliations_stage():
    institutions_load(paths=[TOPKAPI_WITHDRAWN, TOPKAPI, ASIA_WITHDRAWN, ASIA])
    topkapi = _slot([TOPKAPI_STRING], "2401.00001")
    asia = _slot([ASIA_STRING], "2401.00002")
    affiliations_match(pending_only=True)
    assert (_links(topkapi), _links(asia)) == ({"00g241p78"}, {"038a1tp19"})


def test_a_withdrawn_namesake_without_successor_never_makes_the_active_record_ambiguous():
    names = [
        (1, "Istanbul Topkapi University", "ror_display", "TR"),  # active
        (2, "Istanbul Topkapi University", "ror_display", "TR"),  # withdrawn, no successor
        (3, "Old College", "ror_display", "TR"),  # inactive, alone with its name
    ]
    matcher = AffiliationMatcher(names, retired={2, 3})
    assert [m.institution_id for m in matcher.match(TOPKAPI_STRING)] == [1]
    assert [m.institution_id for m in matcher.match("Old College, Turkey")] == [3]  # no active one


# -- A newer dump that withdraws a record --------------------------------------------------


@pytest.mark.django_db
def test_loading_a_newer_dump_that_withdraws_a_record_repoints_the_matches():
    # Before ror-updates #10836/#10837: 03z7kp760 is "Asia University", 038a1tp19 "Asian University".
    institutions_load(paths=[ASIA_ACTIVE_2023, ASIAN_2023])
    by_string = _slot([ASIA_STRING], "2401.00001")
    by_id = _slot([], "2401.00002")
    affiliations_match(pending_only=True)
    affiliations_link_ror_ids(pairs=[(by_id.pk, "https://ror.org/03z7kp760")])
    assert (_links(by_string), _links(by_id)) == ({"03z7kp760"}, {"03z7kp760"})

    result = institutions_load(paths=[ASIA_WITHDRAWN, ASIA])
    assert (result.updated, _institution("03z7kp760").status) == (2, "withdrawn")
    assert _institution("03z7kp760").superseded_by == _institution("038a1tp19")
    assert AffiliationMatchMark.objects.count() == 0  # the affiliations stage re-matches all
    assert _links(by_id) == {"038a1tp19"}  # an id link is moved at once
    assert by_id.institution_links.get().source == AuthorAffiliation.Source.OPENALEX
    affiliations_match(pending_only=True)
    assert _links(by_string) == {"038a1tp19"}
    # A ROR ID given later for the withdrawn record links its successor too.
    later = _slot([], "2401.00003")
    affiliations_link_ror_ids(pairs=[(later.pk, "03z7kp760")])
    assert _links(later) == {"038a1tp19"}


# -- Chains and cycles through loads --------------------------------------------------------


def test_a_chain_of_successors_is_followed_to_the_end(visitor, ror_registry):
    # Real: Montpellier 2 (inactive) → Université de Montpellier; edited: that one inactive
    # too, succeeded by Université Paris-Saclay (active).
    institutions_load(paths=[MONTPELLIER_TO_SACLAY])
    saclay = _institution("03xjwb503")
    assert _institution("00wh4bp03").superseded_by == saclay
    assert _institution("051escj72").superseded_by == saclay
    response = visitor.get("/institutions/00wh4bp03")
    assert (response.status_code, response["Location"]) == (301, saclay.get_absolute_url())


def test_a_cycle_of_successors_leads_nowhere(visitor, ror_registry):
    # Edited: Université de Montpellier inactive, naming Montpellier 2 (which names it) as successor.
    result = institutions_load(paths=[MONTPELLIER_CYCLE])
    assert result.updated == 1
    montpellier_2 = _institution("00wh4bp03")
    assert (montpellier_2.superseded_by, _institution("051escj72").superseded_by) == (None, None)
    response = visitor.get("/institutions/00wh4bp03")
    assert (response.status_code, response["Location"]) == (301, montpellier_2.get_absolute_url())


# -- Pages, sitemap, API ---------------------------------------------------------------------


@pytest.fixture
def statuses(db):
    """The two pairs loaded: ``{ror_id: Institution}``."""
    institutions_load(paths=[TOPKAPI_WITHDRAWN, TOPKAPI, ASIA_WITHDRAWN, ASIA])
    return {i.ror_id: i for i in Institution.objects.all()}


@pytest.mark.parametrize(
    ("key", "successor"),
    [
        ("https://ror.org/00tabsj08", "00g241p78"),
        ("ror.org/00tabsj08", "00g241p78"),
        ("00tabsj08", "00g241p78"),
        ("Istanbul Topkapi University", "00g241p78"),
        ("03z7kp760", "038a1tp19"),
        ("Asia University", "038a1tp19"),
    ],
)
def test_ror_id_and_name_of_a_withdrawn_record_answer_301_to_the_successor(visitor, statuses, key, successor):
    response = visitor.get(f"/institutions/{key}")
    assert (response.status_code, response["Location"]) == (301, statuses[successor].get_absolute_url())


def test_the_withdrawn_records_own_page_stays_with_a_banner(visitor, statuses):
    withdrawn, active = statuses["00tabsj08"], statuses["00g241p78"]
    assert withdrawn.get_absolute_url() == f"/institutions/{withdrawn.pk}-istanbul-topkapi-university"
    response = visitor.get(withdrawn.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    assert (
        "ROR lists this institution as <strong>Withdrawn</strong>. It was succeeded by "
        f'<a href="{active.get_absolute_url()}">Istanbul Topkapi University</a>.'
    ) in html
    # Its internal id still leads to its own page; the successor's page has no banner.
    assert visitor.get(f"/institutions/{withdrawn.pk}")["Location"] == withdrawn.get_absolute_url()
    assert "ROR lists this institution as" not in visitor.get(active.get_absolute_url()).content.decode()


def test_the_list_shows_one_row_per_institution_and_a_search_names_the_successor(visitor, statuses):
    # Four records, two withdrawn into the other two: the list shows the two active ones
    # (before: all four, "Istanbul Topkapi University" and "Asia University" twice each).
    html = visitor.get("/institutions/").content.decode()
    assert "2 institutions." in html
    rows = re.findall(r'class="entity-name" href="(/institutions/[^"]+)"', html)
    assert rows == [statuses["038a1tp19"].get_absolute_url(), statuses["00g241p78"].get_absolute_url()]
    # A search still finds the withdrawn duplicate, and its row leads to the active record.
    html = visitor.get("/institutions/", {"q": "Topkapi"}).content.decode()
    withdrawn, active = statuses["00tabsj08"], statuses["00g241p78"]
    assert "2 institutions." in html
    assert f'<p>Now <a href="{active.get_absolute_url()}">Istanbul Topkapi University</a></p>' in html
    assert html.count(withdrawn.get_absolute_url()) == 1


def test_superseded_records_leave_the_sitemap(client, settings, statuses, ror_registry):
    settings.SITE_URL = "https://wove.example"
    response = client.get("/sitemap-institutions.xml")
    namespace = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    urls = {loc.text for loc in ElementTree.fromstring(response.content).iterfind(".//sm:loc", namespace)}
    institutions = {**statuses, **{i.ror_id: i for i in Institution.objects.all()}}
    # 40 real records + 4 edited; out: 00tabsj08, 03z7kp760 (withdrawn) and the two inactive
    # real ones whose successors are loaded (00wh4bp03 → 051escj72, 028rypz17 → 03xjwb503).
    gone = {"00tabsj08", "03z7kp760", "00wh4bp03", "028rypz17"}
    assert urls == {
        "https://wove.example" + i.get_absolute_url() for r, i in institutions.items() if r not in gone
    }
    assert len(urls) == 40


def test_api_carries_status_and_successor(client, settings, statuses):
    settings.SITE_URL = "https://wove.example"
    active = statuses["00g241p78"]
    withdrawn = client.get("/api/v1/institutions/00tabsj08").json()
    assert (withdrawn["ror_id"], withdrawn["status"]) == ("00tabsj08", "withdrawn")
    assert withdrawn["successor"] == {
        "id": active.pk,
        "ror_id": "00g241p78",
        "name": "Istanbul Topkapi University",
        "country_code": "TR",
        "url": f"https://wove.example{active.get_absolute_url()}",
    }
    current = client.get("/api/v1/institutions/00g241p78").json()
    assert (current["status"], current["successor"]) == ("active", None)
    # A name the withdrawn duplicate shares names the active record, not two.
    assert client.get("/api/v1/institutions/Istanbul Topkapi University").json()["ror_id"] == "00g241p78"
    schema = client.get("/openapi.json").json()["components"]["schemas"]["InstitutionDetailOut"]
    assert "followed to the end of a chain" in json.dumps(schema["properties"]["successor"])


def test_papers_api_filter_by_a_withdrawn_record_lists_its_successors_papers(client, statuses):
    slot = _slot([TOPKAPI_STRING])
    affiliations_match(pending_only=True)
    for key in ("00tabsj08", "00g241p78"):
        body = client.get("/api/v1/papers", {"institution": key}).json()
        assert [p["arxiv_id"] for p in body["items"]] == [slot.paper.arxiv_id]
