"""A short soak (issue 11): browsing and API clients at once against gunicorn, bench/soak.py's
clients for 8 s on a few real papers; no answer may be a 5xx. The two-minute run on the
whole sample is the bench (BENCHMARKS.md, "Reliability drills")."""

from __future__ import annotations

import importlib.util

import pytest
from django.core.management import call_command

from tests import celery_helpers
from tests.conftest import FIXTURES
from tests.servers import gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

OAI = FIXTURES / "arxiv" / "oai"


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", celery_helpers.ROOT / "bench" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_soak_answers_no_5xx():
    from papers import harvest

    harvest.harvest_files(
        paths=[OAI / "hepcrawl_arxiv-physics-hep-th.xml", OAI / "edited_arXivRaw_ListRecords_page1.xml"]
    )
    call_command("match_authors", "--no-progress")
    soak = load_soak()
    with gunicorn(celery_helpers.test_database_url(), workers=2, threads=2) as base:
        tally = soak.soak(base, seconds=8, browsers=3, api_clients=2, seed=1, max_requests=5000)
    assert soak.report(tally, 8) == 0, tally.failures
    # Every kind of client got through, and pages that exist answered 200.
    assert tally.statuses["browse"][200] > 0
    assert tally.statuses["api"][200] > 0
    assert tally.statuses["baseline"][200] > 0
