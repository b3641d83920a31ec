"""``manage.py archive_summary``: one line of counts for the archive."""

import io

import pytest
from django.core.management import call_command

from tests.conftest import FIXTURES


@pytest.mark.django_db
def test_archive_summary_counts_every_stage():
    # The recording holds 3 papers (arXiv format, one version each) with 8 author slots,
    # 8 different names; no ROR records are loaded.
    path = str(FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml")
    call_command("harvest_arxiv", "--no-progress", "--file", path, stdout=io.StringIO())
    call_command("match_authors", "--no-progress", stdout=io.StringIO())
    call_command("sign_provenance", "--no-progress", stdout=io.StringIO())
    out = io.StringIO()
    call_command("archive_summary", stdout=out)
    assert out.getvalue().strip() == (
        "wovepaper: 3 papers, 8 author slots, 8 researchers, 0 institutions, 3 signed records"
    )
