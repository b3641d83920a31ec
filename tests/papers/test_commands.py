"""``manage.py harvest_arxiv``: clear errors for bad input, one summary line on success."""

import io

import pytest
from django.core.management import CommandError, call_command

from papers.models import HarvestRun
from tests.conftest import FIXTURES


@pytest.mark.django_db
def test_harvest_files_prints_one_summary_line():
    out = io.StringIO()
    call_command(
        "harvest_arxiv",
        "--no-progress",
        "--file",
        str(FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml"),
        stdout=out,
    )
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("complete: 3 records seen, 3 papers written, 0 deleted, 0 skipped (1 pages)")


@pytest.mark.django_db
def test_a_file_that_is_not_oai_pmh_is_a_clear_error(tmp_path):
    path = tmp_path / "not-oai.xml"
    path.write_text("hello")
    with pytest.raises(CommandError, match="not an OAI-PMH response"):
        call_command("harvest_arxiv", "--no-progress", "--file", str(path))
    assert HarvestRun.objects.get().status == HarvestRun.Status.FAILED


@pytest.mark.django_db
def test_missing_file_is_a_clear_error():
    with pytest.raises(CommandError, match="no such file"):
        call_command("harvest_arxiv", "--no-progress", "--file", "/no/such/file.xml")


def test_bad_day_is_a_usage_error():
    with pytest.raises(CommandError, match="not a day"):
        call_command("harvest_arxiv", "--from", "2024-13-01")
