"""Fixtures for institutions tests: the real ROR records, loaded once per test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROR_DUMP = ROOT / "data" / "ror" / "ror_records_v2.json"
ROR_FIXTURES = ROOT / "tests" / "fixtures" / "ror"


@pytest.fixture
def ror_fixtures() -> Path:
    """``tests/fixtures/ror``."""
    return ROR_FIXTURES


@pytest.fixture
def ror_registry(db):
    """The 40 real ROR v2 records of ``data/ror`` loaded as ``make demo`` loads them;
    returns ``{ror_id: Institution}``."""
    from institutions.models import Institution
    from institutions.services import institutions_load

    institutions_load(paths=[ROR_DUMP])
    return {i.ror_id: i for i in Institution.objects.all()}
