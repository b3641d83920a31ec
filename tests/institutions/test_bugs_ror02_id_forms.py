"""BUGS.md ROR-02: every written form of one ROR ID is one institution; typo'd ids are refused.

The record is ROR's real one for Caltech (``records_v2/05dxps055.json``); the loader tests
write copies whose ``id`` is edited to each BUGS.md form (named ``edited_…`` below). A ROR ID
is stored bare, its ``https://ror.org/`` URL derived. ``05dxps056`` fails the check digits:
98 - (Crockford base32 ``5dxps0`` × 100 mod 97) = 55.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from institutions.models import Institution
from institutions.ror import InvalidRorId, normalize_ror_id, ror_checksum
from institutions.services import institutions_load

from .conftest import ROR_FIXTURES

RECORD = ROR_FIXTURES / "records_v2" / "05dxps055.json"
FORMS = [
    "05dxps055",
    "https://ror.org/05dxps055",
    "http://ror.org/05dxps055",
    "ror.org/05dxps055",
    "https://ror.org/05DXPS055",
    " https://ror.org/05dxps055/ ",
]
REJECTED = {
    "05dxps056": "check digits do not match",
    "0iiiiii99": "not a ROR ID",  # i, l, o, u are not in Crockford base32
    "15dxps055": "not a ROR ID",  # ids start with 0
}


def test_check_digits_by_hand():
    # "5dxps0" (d=13, x=29, p=22, s=25): 5*32^5 + 13*32^4 + 29*32^3 + 22*32^2 + 25*32 + 0
    # = 182,377,248; 182,377,248 * 100 mod 97 = 43; 98 - 43 = 55.
    assert ror_checksum("5dxps0") == "55"


@pytest.mark.parametrize("form", FORMS)
def test_the_six_forms_are_one_id(form):
    """BUGS.md ROR-02: stored bare; the canonical URL ``https://ror.org/05dxps055`` derives from it."""
    assert normalize_ror_id(form) == "05dxps055"


@pytest.mark.parametrize(("value", "reason"), REJECTED.items())
def test_typos_are_refused(value, reason):
    with pytest.raises(InvalidRorId, match=reason):
        normalize_ror_id(value)


def _edited_copies(tmp_path, ids) -> list:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert record["id"] == "https://ror.org/05dxps055"
    paths = []
    for i, value in enumerate(ids):
        path = tmp_path / f"edited_05dxps055_id_form_{i}.json"
        path.write_text(json.dumps(dict(record, id=value)), encoding="utf-8")
        paths.append(path)
    return paths


def test_the_loader_makes_one_institution_of_the_six_forms(db, tmp_path):
    """BUGS.md ROR-02 through the loader: six records, one row; the three typos skipped, named."""
    result = institutions_load(paths=_edited_copies(tmp_path, FORMS + list(REJECTED)))
    caltech = Institution.objects.get()
    assert (caltech.ror_id, caltech.ror_url) == ("05dxps055", "https://ror.org/05dxps055")
    assert caltech.name == "California Institute of Technology"
    assert (result.created, result.skipped) == (1, 3)
    for value in REJECTED:
        assert sum(value in error for error in result.errors) == 1


@pytest.fixture
def caltech(db) -> Institution:
    institutions_load(paths=[RECORD])
    return Institution.objects.get(ror_id="05dxps055")


def test_the_lookup_url_of_each_form_leads_to_the_one_page(client, caltech):
    """BUGS.md ROR-02 through ``/institutions/<ror id>``: 301 to the canonical page; typos 404."""
    page = caltech.get_absolute_url()
    assert page == f"/institutions/{caltech.pk}-california-institute-of-technology"
    for form in FORMS:
        response = client.get("/institutions/" + quote(form))
        assert (response.status_code, response["Location"]) == (301, page), form
    assert client.get(page).status_code == 200
    for value in REJECTED:
        assert client.get(f"/institutions/{value}").status_code == 404


def test_the_api_answers_each_form_with_the_bare_id(client, caltech):
    """BUGS.md ROR-02 through ``/api/v1/institutions/<key>``."""
    for form in FORMS:
        response = client.get("/api/v1/institutions/" + quote(form))
        assert response.status_code == 200, form
        body = response.json()
        assert (body["id"], body["ror_id"], body["ror_url"]) == (
            caltech.pk,
            "05dxps055",
            "https://ror.org/05dxps055",
        )
    for value in REJECTED:
        response = client.get(f"/api/v1/institutions/{value}")
        assert (response.status_code, response.json()["code"]) == (404, "not_found")
