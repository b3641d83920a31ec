"""BUGS.md ORC-01: ORCID iDs checked by their ISO 7064 MOD 11-2 digit, ``X`` accepted, stored canonically.

The valid iDs are ORCID's public test record and invented ones from the ``0000-0000-`` block.
The matching test replays OpenAlex's real work W3188841554 (arXiv 2108.04680) with three
authors' ORCID iDs edited to BUGS.md's invalid ones: the match runs, those iDs are ignored as
evidence, the authors still match by their OpenAlex ids, and nothing raises.
"""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from papers.models import Paper, PaperAuthor
from researchers.clients import openalex
from researchers.models import Authorship, MatchMethod, Researcher
from researchers.orcid import InvalidOrcid, normalize_orcid
from researchers.services import researcher_set_orcid, researchers_match_authors
from tests.conftest import FIXTURES

VALID = {
    "0000-0002-1825-0097": "0000-0002-1825-0097",
    "0000-0000-4242-008X": "0000-0000-4242-008X",
    "0000-0000-4242-008x": "0000-0000-4242-008X",
    "https://orcid.org/0000-0000-6022-1404": "0000-0000-6022-1404",
    "0000000060221404": "0000-0000-6022-1404",
}
INVALID = {
    "0000-0000-6022-1405": "check digit mismatch",  # the check digit must be 4
    "0000-0000-0000-0000": "check digit mismatch",  # the check digit must be 1
    "0000-0000-3141-592": "not an ORCID iD",  # 15 characters
}


@pytest.mark.parametrize(("value", "stored"), VALID.items())
def test_valid_forms_are_stored_canonically(value, stored):
    """BUGS.md ORC-01: the five valid inputs and their stored forms (``x`` upper-cased)."""
    assert normalize_orcid(value) == stored


@pytest.mark.parametrize(("value", "reason"), INVALID.items())
def test_invalid_ids_are_refused(value, reason):
    with pytest.raises(InvalidOrcid, match=reason):
        normalize_orcid(value)


@pytest.mark.django_db
def test_the_service_and_the_lookup_api_use_the_stored_form(client):
    """BUGS.md ORC-01 through ``researcher_set_orcid`` and ``/api/v1/researchers/lookup``."""
    stored = {}
    for i, (value, canonical) in enumerate(VALID.items()):
        researcher = stored.get(canonical) or Researcher.objects.create(
            display_name=f"Test {i}", slug=f"test-{i}"
        )
        researcher = researcher_set_orcid(researcher=researcher, orcid=value)
        assert researcher.orcid == canonical
        stored[canonical] = researcher
    assert sorted(Researcher.objects.values_list("orcid", flat=True)) == [
        "0000-0000-4242-008X",
        "0000-0000-6022-1404",
        "0000-0002-1825-0097",
    ]
    for value, canonical in VALID.items():
        response = client.get("/api/v1/researchers/lookup", {"orcid": value})
        assert (response.status_code, response.json()["id"]) == (200, stored[canonical].pk)
    researcher = Researcher.objects.create(display_name="Nobody", slug="nobody")
    for value, reason in INVALID.items():
        with pytest.raises(InvalidOrcid):
            researcher_set_orcid(researcher=researcher, orcid=value)
        response = client.get("/api/v1/researchers/lookup", {"orcid": value})
        assert (response.status_code, response.json()["code"]) == (400, "bad_request")
        assert reason in response.json()["detail"]


def _edited_work() -> dict:
    """W3188841554 with the ORCID iDs of authors 1, 3 and 5 edited to BUGS.md's invalid ones."""
    work = json.loads((FIXTURES / "openalex" / "W3188841554.json").read_text())
    edits = {
        "https://orcid.org/0000-0001-7718-3181": "https://orcid.org/0000-0000-6022-1405",
        "https://orcid.org/0000-0002-3361-627X": "0000-0000-0000-0000",
        "https://orcid.org/0000-0001-9308-3885": "0000-0000-3141-592",
    }
    for authorship in work["authorships"]:
        orcid = authorship["author"]["orcid"]
        authorship["author"]["orcid"] = edits.get(orcid, orcid)
    return work


@pytest.mark.django_db
def test_an_invalid_orcid_in_external_data_is_ignored_as_evidence(caplog):
    """BUGS.md ORC-01 through source matching: no raise, no researcher holds an invalid iD,
    the authors still attach by their OpenAlex ids, the valid iD still counts."""
    paper = Paper.objects.create(
        arxiv_id="2108.04680", slug="x", title="Vis for visualisation", categories=[]
    )
    names = [("Roberts", "Jonathan C."), ("Mearman", "Joseph W."), ("Butcher", "Peter W. S.")]
    names += [("Al-Maneea", "Hayder M."), ("Ritsos", "Panagiotis D.")]
    for i, (key, fore) in enumerate(names, start=1):
        PaperAuthor.objects.create(paper=paper, position=i, name=f"{fore} {key}", keyname=key, forenames=fore)
    work = _edited_work()

    def replay(request: httpx.Request) -> httpx.Response:
        wanted = request.url.params["filter"].removeprefix("doi:").split("|")
        results = [work] if "10.48550/arxiv.2108.04680" in wanted else []
        return httpx.Response(200, json={"meta": {"count": len(results)}, "results": results})

    def fetch(source, ids):
        client = openalex.OpenAlexClient(
            "https://api.openalex.org", transport=httpx.MockTransport(replay), sleep=lambda s: None
        )
        return openalex.fetch_works(client, ids)

    with caplog.at_level(logging.WARNING, logger="researchers.clients.openalex"):
        summary = researchers_match_authors(sources=["openalex"], fetch=fetch)
    assert summary.matched_by_source == 5
    rows = [
        (a.slot.position, a.researcher.orcid, a.method)
        for a in Authorship.objects.filter(paper=paper)
        .select_related("slot", "researcher")
        .order_by("slot__position")
    ]
    assert rows == [
        (1, None, MatchMethod.EXTERNAL_ID),
        (2, None, MatchMethod.EXTERNAL_ID),
        (3, None, MatchMethod.EXTERNAL_ID),
        (4, "0000-0002-9841-1486", MatchMethod.EXTERNAL_ID),
        (5, None, MatchMethod.EXTERNAL_ID),
    ]
    assert list(Researcher.objects.exclude(orcid=None).values_list("orcid", flat=True)) == [
        "0000-0002-9841-1486"
    ]
    logged = caplog.text
    for raw in ("https://orcid.org/0000-0000-6022-1405", "0000-0000-0000-0000", "0000-0000-3141-592"):
        assert f"invalid ORCID '{raw}'" in logged


# Issue 32: other scripts' digits are digits to Python's \d, str.isdigit() and int(), never in
# an ORCID iD; the URI forms real records hold (http://www.orcid.org/...) are.
NOT_ASCII = [
    "٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X",  # Arabic-Indic: 0000-0002-1694-233X, whose check digit holds
    "۰۰۰۰-۰۰۰۲-۱۸۲۵-۰۰۹۷",  # Extended Arabic-Indic
    "०००००००२१८२५००९७",  # Devanagari, no hyphens
    "００００-０００２-１８２５-００９７",  # full-width
    "0000-0002-1825-009٧",  # one Arabic-Indic digit at the end
]


@pytest.mark.parametrize("value", NOT_ASCII)
def test_other_scripts_digits_are_not_an_orcid(value):
    assert normalize_orcid("0000-0002-1694-233X") == "0000-0002-1694-233X"  # the ASCII iD is valid
    with pytest.raises(InvalidOrcid, match="not an ORCID iD"):
        normalize_orcid(value)


@pytest.mark.parametrize(
    "value",
    [
        "http://www.orcid.org/0000-0002-1825-0097",
        "https://www.orcid.org/0000-0002-1825-0097",
        "http://orcid.org/0000-0002-1825-0097",
        "www.orcid.org/0000-0002-1825-0097",
        "orcid.org/0000-0002-1825-0097/",
        "HTTPS://ORCID.ORG/0000-0002-1825-0097",
    ],
)
def test_uri_forms_in_real_records(value):
    assert normalize_orcid(value) == "0000-0002-1825-0097"


@pytest.mark.parametrize(
    "value", ["ftp://orcid.org/0000-0002-1825-0097", "https://orcid.com/0000-0002-1825-0097"]
)
def test_other_prefixes_are_refused(value):
    with pytest.raises(InvalidOrcid):
        normalize_orcid(value)


@pytest.mark.django_db
def test_the_model_and_the_database_refuse_other_scripts_digits():
    """The model's validator (``full_clean``, the admin's form) passed the iD as written;
    written past it (``QuerySet.update``), the ``researcher_orcid_shape`` constraint refuses
    it. The constraint now reads ``[0-9]``: PostgreSQL's ``\\d`` is ``[[:digit:]]``, which
    under an ICU collation takes Arabic-Indic digits too (this cluster's C.UTF-8 does not)."""
    from django.core.exceptions import ValidationError
    from django.db import IntegrityError, connection, transaction

    with pytest.raises(ValidationError, match="not an ORCID iD"):
        Researcher(display_name="Test Arabic", slug="test-arabic", orcid="٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X").full_clean()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'researcher_orcid_shape'"
        )
        (definition,) = cursor.fetchone()
    assert "^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$" in definition and "\\d" not in definition
    researcher = Researcher.objects.create(display_name="Test Arabic", slug="test-arabic")
    with pytest.raises(IntegrityError, match="researcher_orcid_shape"), transaction.atomic():
        Researcher.objects.filter(pk=researcher.pk).update(orcid="٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X")
    with pytest.raises(InvalidOrcid):
        researcher_set_orcid(researcher=researcher, orcid="٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X")
    researcher.refresh_from_db()
    assert researcher.orcid is None
