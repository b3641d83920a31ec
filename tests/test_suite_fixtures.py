"""The suite's own fixtures keep tests apart when pytest-xdist runs them across processes.

Each process runs whole test files, so a file's transactional tests (their flush empties every
table) are followed by the next file's rolled-back tests, which read what the migrations seeded;
and a committed sample is removed whole, collaborations included.
"""

from __future__ import annotations

import pytest

from papers import harvest
from papers.models import Category, Collaboration, Paper, SearchChange
from researchers.models import Researcher
from tests.conftest import FIXTURES, sample_tables_wipe, seeded_restore

COLLABORATIONS = FIXTURES / "arxiv" / "oai" / "edited_arXivRaw_collaboration_forms.xml"


@pytest.mark.django_db(transaction=True)
def test_a_transactional_test_commits_and_is_flushed():
    # arXiv's taxonomy from papers 0002: 150+ categories, hep-th among them.
    assert Category.objects.filter(pk="hep-th").exists()


@pytest.mark.django_db(transaction=True)
def test_the_next_test_reads_the_seeded_rows_again():
    """Runs after the flush of the test above (pytest keeps a file's order): the taxonomy
    and the CMS pages are back, as the migrations left them."""
    from wagtail.models import Page

    assert Category.objects.filter(pk="hep-th").exists()
    assert Page.objects.filter(slug="about").exists()


@pytest.mark.django_db
def test_the_sample_wipe_leaves_no_collaboration_behind():
    """Collaborations have no foreign key to a paper: a cascading delete of the papers left
    them, and the next file's collaborations list counted them."""
    harvest.harvest_files(paths=[COLLABORATIONS])
    assert Collaboration.objects.exists() and Paper.objects.exists()
    sample_tables_wipe()
    assert (Collaboration.objects.count(), Paper.objects.count(), Researcher.objects.count()) == (0, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_a_restored_snapshot_leaves_the_sequences_ahead_of_its_rows():
    """The browser modules put back a snapshot taken when they began, search log rows
    included; with the sequences reset the next logged change took id 1 again (26 errors in
    a run across two processes: duplicate key in papers_searchchange)."""
    from django.db import connection

    harvest.harvest_files(paths=[COLLABORATIONS])
    sample_tables_wipe()  # the papers go; their search log rows stay (no foreign key)
    logged = SearchChange.objects.count()
    snapshot = connection.creation.serialize_db_to_string()
    seeded_restore(snapshot)
    assert SearchChange.objects.count() == logged > 0
    harvest.harvest_files(paths=[COLLABORATIONS])  # logged again, after the restored rows
    assert SearchChange.objects.count() == 2 * logged


def test_every_collected_test_has_its_own_node_id(request):
    """pytest-xdist schedules by node id: tests sharing one run once between them (the 22
    schemathesis operations ran as one until their ids named the operation)."""
    ids = [item.nodeid for item in request.session.items]
    assert len(ids) == len(set(ids))
    assert "tests/api/test_schemathesis.py::test_api_conforms_to_openapi[GET /api/v1/]" in ids or not any(
        "test_schemathesis" in i for i in ids
    )
