"""Provenance fixtures: a throw-away signing key per test, the real seed bundle, signed papers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEED = FIXTURES / "provenance" / "pith_bundle_2401.10241.json"
HEP_TH = FIXTURES / "arxiv" / "oai" / "hepcrawl_arxiv-physics-hep-th.xml"
RAW_PAGE1 = FIXTURES / "arxiv" / "oai" / "edited_arXivRaw_ListRecords_page1.xml"
EDITED = FIXTURES / "provenance"


@pytest.fixture(autouse=True)
def signing_key_file(tmp_path, settings):
    """Each test signs with its own new key under ``tmp_path`` (never the repository's var/)."""
    path = tmp_path / "keys" / "provenance-ed25519.pem"
    settings.PROVENANCE_SIGNING_KEY_FILE = str(path)
    settings.PROVENANCE_KEY_ID = ""
    settings.SITE_URL = "http://testserver"
    return path


@pytest.fixture
def seed() -> dict:
    """The real registry bundle for arXiv 2401.10241, parsed."""
    return json.loads(SEED.read_text(encoding="utf-8"))


@pytest.fixture
def signed_raw_page(db):
    """The three real arXivRaw records of page 1 (0801.3673-0801.3675) harvested and signed."""
    from papers import harvest as paper_harvest
    from provenance import services

    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    return services.records_sign()
