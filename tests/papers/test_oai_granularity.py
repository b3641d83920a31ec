"""BUGS.md OAI-03: arXiv declares day granularity; a second-granularity ``from`` is refused
by the repository (badArgument), so the command sends every bound as a day.

Input from BUGS.md: a manual backfill asks for ``from=2024-03-05T00:00:00Z&until=2024-03-06``;
expected on the wire ``from=2024-03-05&until=2024-03-06`` (truncated, never rounded up to
the 6th). Before, the command refused the timestamp ("not a day").
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.management.commands.harvest_arxiv import _day
from tests.conftest import SAMPLE_OAI_RAW
from tests.oai_replay import PagedOaiServer


@pytest.mark.django_db(transaction=True)
def test_a_timestamp_bound_is_sent_as_its_day(settings):
    settings.ARXIV_OAI_MIN_INTERVAL = 0
    with PagedOaiServer(SAMPLE_OAI_RAW, page_size=1000) as server:
        call_command(
            "harvest_arxiv",
            "--no-progress",
            "--no-pipeline",
            "--endpoint",
            server.url,
            "--from",
            "2024-03-05T00:00:00Z",
            "--until",
            "2024-03-06",
        )
    first = server.requests[0]
    assert (first["verb"], first["from"], first["until"]) == ("ListRecords", "2024-03-05", "2024-03-06")


def test_a_timestamp_in_another_zone_is_cut_to_its_utc_day():
    assert _day("2024-03-05T23:30:00-02:00").isoformat() == "2024-03-06"


def test_neither_day_nor_timestamp_is_a_usage_error():
    with pytest.raises(CommandError, match="not a day"):
        call_command("harvest_arxiv", "--from", "last tuesday")
