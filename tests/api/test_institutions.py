"""Institutions API on the 40 bundled ROR records and the sample's matched affiliations."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

CALTECH = "05dxps055"


def test_list_and_filters(api):
    body = api.get("/api/v1/institutions", {"size": 2}).json()
    assert body["count"] == 40  # data/ror/ror_records_v2.json holds 40 records
    assert [i["name"] for i in body["items"]] == ["Bangor University", "California Institute of Technology"]
    assert api.get("/api/v1/institutions", {"country": "us"}).json()["count"] == 11
    assert api.get("/api/v1/institutions", {"type": "education"}).json()["count"] == 31
    assert api.get("/api/v1/institutions", {"status": "inactive"}).json()["count"] == 2
    caltech = api.get("/api/v1/institutions", {"q": "caltech"}).json()
    assert [i["ror_id"] for i in caltech["items"]] == [CALTECH]


def test_detail_by_id_and_every_ror_form(api):
    by_ror = api.get(f"/api/v1/institutions/{CALTECH}").json()
    assert by_ror["name"] == "California Institute of Technology"
    assert by_ror["city"] == "Pasadena" and by_ror["country_code"] == "US"
    assert by_ror["established"] == 1891
    assert by_ror["aliases"] == ["Caltech"] and by_ror["acronyms"] == ["CIT"]
    assert by_ror["external_ids"]["grid"]["preferred"] == "grid.20861.3d"
    assert {
        "type": "child",
        "ror_id": "027k65916",
        "label": "Jet Propulsion Laboratory",
        "institution_id": None,
    } in (by_ror["relationships"])
    assert by_ror["fields"][0] == {"code": "astro-ph", "name": "Astrophysics", "count": 5}
    for key in (str(by_ror["id"]), f"https://ror.org/{CALTECH}", f"ror.org/{CALTECH}"):
        response = api.get(f"/api/v1/institutions/{key}")
        assert response.status_code == 200, key
        assert response.json()["id"] == by_ror["id"]
    assert api.get("/api/v1/institutions/05dxps056").status_code == 404  # check digits wrong
    assert api.get("/api/v1/institutions/999999").status_code == 404


def test_researchers_and_papers_of_caltech(api):
    researchers = api.get(f"/api/v1/institutions/{CALTECH}/researchers").json()
    assert researchers["count"] == 6
    assert (researchers["items"][0]["researcher"]["name"], researchers["items"][0]["papers"]) == (
        "Daniel Babich",
        2,
    )
    papers = api.get(f"/api/v1/institutions/https://ror.org/{CALTECH}/papers").json()
    assert [p["arxiv_id"] for p in papers["items"]] == [
        "0705.0987",
        "0705.0986",
        "0705.0935",
        "0705.0338",
        "0704.0794",
        "0704.0663",
        "0704.0455",
    ]
    # The same papers through the paper list's institution filter.
    filtered = api.get("/api/v1/papers", {"institution": CALTECH}).json()
    assert [p["arxiv_id"] for p in filtered["items"]] == [p["arxiv_id"] for p in papers["items"]]


def test_list_query_counts(api, django_assert_num_queries):
    with django_assert_num_queries(1):  # all 40 fit one page: no COUNT
        api.get("/api/v1/institutions", {"size": 100})
    with django_assert_num_queries(2):  # the institution, its researchers
        api.get(f"/api/v1/institutions/{CALTECH}/researchers")
    with django_assert_num_queries(2):  # the institution, its papers
        api.get(f"/api/v1/institutions/{CALTECH}/papers")


def test_cursor_paging_matches_one_page(api):
    for path in ("/api/v1/institutions", f"/api/v1/institutions/{CALTECH}/researchers"):
        whole = api.get(path, {"size": 100}).json()["items"]
        walked, cursor = [], None
        while True:
            body = api.get(path, {"size": 4, **({"cursor": cursor} if cursor else {})}).json()
            walked += body["items"]
            cursor = body["next_cursor"]
            if not cursor:
                break
        assert walked == whole and len(whole) in (40, 6)


def test_detail_by_exact_name_as_the_pages_resolve_it(api):
    # "Caltech" is the record's alias and "CIT" its acronym (data/ror/ror_records_v2.json).
    for key in ("Caltech", "california institute of technology", "CIT"):
        response = api.get(f"/api/v1/institutions/{key}")
        assert response.status_code == 200, key
        assert response.json()["ror_id"] == CALTECH
    missing = api.get("/api/v1/institutions/Nowhere University")
    assert missing.status_code == 404
    assert missing.json()["detail"] == "No institution has the id, ROR ID or name 'Nowhere University'."
    assert api.get(f"/api/v1/institutions/{2**70}").status_code == 404
