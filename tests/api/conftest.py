"""API test data: the real sample loaded once for the whole tests/api package, rolled back after.

The sample (2,800 papers) is harvested as `make demo` does, plus one old-style paper and
one deleted header (see below); authors are matched locally,
the 40 bundled ROR records are loaded and affiliation strings matched, and a handful of
papers are signed. All of it happens inside one transaction that is rolled back when the
package's tests end; each test runs in a savepoint inside it (pytest-django's ``db``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction

from tests.conftest import ROOT, SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

ROR_RECORDS = ROOT / "data" / "ror" / "ror_records_v2.json"
OAI = ROOT / "tests" / "fixtures" / "arxiv" / "oai"
# physics/0112006: an old-style identifier (real INSPIRE-recorded OAI response).
OLD_STYLE = OAI / "inspirenext_oai_arxiv.xml"
# 0801.3674 arrives with status="deleted" (edited real arXivRaw page): it answers 410.
DELETED = OAI / "edited_arXivRaw_deleted_header.xml"
SIGNED = ["0704.0001", "0801.4566", "physics/0112006"]


@pytest.fixture(scope="package")
def api_data(django_db_setup, django_db_blocker, tmp_path_factory):
    """Load the sample once; yields nothing. Rolled back at the end of the package."""
    from institutions import services as institution_services
    from papers import harvest as paper_harvest
    from papers.models import Paper
    from provenance import services as provenance_services
    from researchers import matching_local as researcher_matching_local

    saved = (settings.PROVENANCE_SIGNING_KEY_FILE, settings.PROVENANCE_KEY_ID, settings.SITE_URL)
    settings.PROVENANCE_SIGNING_KEY_FILE = str(tmp_path_factory.mktemp("keys") / "provenance-ed25519.pem")
    settings.PROVENANCE_KEY_ID = ""
    settings.SITE_URL = "http://testserver"
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            paper_harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
            paper_harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
            paper_harvest.harvest_files(paths=[OLD_STYLE, DELETED])
            researcher_matching_local.researchers_match_local()
            institution_services.institutions_load(paths=[ROR_RECORDS])
            institution_services.affiliations_match()
            ids = list(Paper.objects.filter(arxiv_id__in=SIGNED).values_list("id", flat=True))
            provenance_services.records_sign(paper_ids=ids)
            yield
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            settings.PROVENANCE_SIGNING_KEY_FILE, settings.PROVENANCE_KEY_ID, settings.SITE_URL = saved


@pytest.fixture
def api(api_data, db, client):
    """A test client over the loaded sample (anonymous: the API has no accounts)."""
    return client


def fixture_path(name: str) -> Path:
    """A file under tests/fixtures."""
    return ROOT / "tests" / "fixtures" / name


def assert_count_capped(api, monkeypatch, path: str, q: str, module, cap_name: str, key: str) -> dict:
    """The list at ``path`` for ``q`` counts exactly (more than 10), then, with ``module``'s
    ``cap_name`` set to 10, says 10 matches on 2 pages of 5, ``count_capped``, and lists the
    same first items (compared by ``key``). Returns the capped page's JSON."""
    exact = api.get(path, {"q": q, "size": 5}).json()
    assert exact["count"] > 10 and exact["count_capped"] is False
    monkeypatch.setattr(module, cap_name, 10)
    capped = api.get(path, {"q": q, "size": 5}).json()
    assert (capped["count"], capped["pages"], capped["count_capped"]) == (10, 2, True)
    assert [item[key] for item in capped["items"]] == [item[key] for item in exact["items"]]
    return capped
