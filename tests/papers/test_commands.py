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


def test_the_progress_bars_total_is_the_records_the_files_hold(tmp_path):
    """harvest_arxiv --file / --kaggle give the bar a total (rate and ETA): the records in the
    recorded pages and the lines of the snapshot, counted by a byte scan."""
    from papers.harvest import records_in_files
    from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

    # The two recorded 1,000-record ListRecords pages of the sample, and a 3-record page.
    pages = [SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml"]
    assert records_in_files(pages, b"<record>") == 2_003
    assert records_in_files([SAMPLE_KAGGLE], b"\n") == 800  # lines 1-800 of the recorded snapshot
    # A marker cut by the 16 MB read boundary is counted once.
    edge = tmp_path / "edge.xml"
    edge.write_bytes(b"x" * ((1 << 24) - 3) + b"<record></record><record>")
    assert records_in_files([edge], b"<record>") == 2
    with pytest.raises(FileNotFoundError):
        records_in_files([tmp_path / "missing.xml"], b"<record>")
