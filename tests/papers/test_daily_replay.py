"""The "day of arXiv" replay server (tests/oai_replay.DailyOaiServer) drives the real harvester
day by day: day 1 writes the day-1 papers, day 2 exactly the day-2 changes, a re-run nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx
import pytest

from papers import harvest
from papers.models import HarvestRun, Paper
from papers.oai import OaiClient, parse_oai_response
from tests.oai_replay import DailyOaiServer

DAY1_RAW = {f"0801.{n}" for n in range(3673, 3697)} | {
    "0801.3711", "0801.3836", "0801.3916", "0801.3917", "0801.3955", "0801.3965", "0801.3971",
    "0801.4026", "0801.4028", "0801.4050", "0801.4119", "0801.4307", "0801.4312", "0801.4314",
    "0801.4355", "0801.4666",
}  # fmt: skip
DAY1_ARXIV = {
    "0705.0139", "0705.0171", "0705.0209", "0705.0210", "0705.0380", "0705.0536",
    "0705.0712", "0705.0782", "0705.0935", "0705.0986", "0705.0987",
}  # fmt: skip
DAY2_NEW = {f"2611.0000{n}" for n in range(1, 9)}
DAY2_V2, DAY2_DELETED = "0801.3673", "0801.3675"


def _snapshot() -> dict[str, tuple[str, datetime]]:
    rows = Paper.objects.values_list("arxiv_id", "content_hash", "modified_at")
    return {arxiv_id: (content_hash, modified) for arxiv_id, content_hash, modified in rows}


def _harvest_day(server: DailyOaiServer) -> set[str]:
    """One incremental harvest of each prefix, as the daily task runs; the arXiv ids written."""
    before = _snapshot()
    for prefix in ("arXivRaw", "arXiv"):
        with OaiClient(server.url, min_interval=0) as client:
            run = harvest.harvest_oai(client=client, metadata_prefix=prefix)
        assert run.status == HarvestRun.Status.COMPLETE
    return {arxiv_id for arxiv_id, row in _snapshot().items() if before.get(arxiv_id) != row}


@pytest.mark.django_db
def test_harvest_writes_day_one_then_only_day_two_then_nothing():
    with DailyOaiServer.pipeline(today="2026-11-01", page_size=7) as server:
        assert _harvest_day(server) == DAY1_RAW | DAY1_ARXIV
        assert server.requests[0] == {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
        assert len(server.requests) == 6 + 2  # 40 arXivRaw records in pages of 7, 11 arXiv
        run = HarvestRun.objects.filter(metadata_prefix="arXivRaw").get()
        assert run.response_date == datetime(2026, 11, 1, 12, tzinfo=UTC)

        server.today = "2026-11-02"
        server.requests.clear()
        assert _harvest_day(server) == DAY2_NEW | {DAY2_V2, DAY2_DELETED}
        assert server.requests[0] == {
            "verb": "ListRecords",
            "metadataPrefix": "arXivRaw",
            "from": "2026-11-01",
        }
        assert Paper.objects.get(arxiv_id=DAY2_V2).latest_version == 2
        assert Paper.objects.get(arxiv_id=DAY2_DELETED).deleted
        new = Paper.objects.filter(arxiv_id__in=DAY2_NEW)
        assert {p.submitted_at.date() for p in new} == {date(2026, 11, 2)}

        server.requests.clear()
        assert _harvest_day(server) == set()
        assert server.requests[0]["from"] == "2026-11-02"
    assert Paper.objects.count() == len(DAY1_RAW | DAY1_ARXIV | DAY2_NEW)


def test_server_answers_oai_errors_and_windows():
    with DailyOaiServer.pipeline(today="2026-10-31", page_size=5) as server:

        def get(**params) -> bytes:
            return httpx.get(server.url, params={"verb": "ListRecords", **params}).content

        assert b"noRecordsMatch" in get(metadataPrefix="arXivRaw")  # nothing released yet
        server.today = "2026-11-02"
        assert b"cannotDisseminateFormat" in get(metadataPrefix="oai_dc")
        assert b"badArgument" in get(metadataPrefix="arXiv", **{"from": "2026-11-02", "until": "2026-11-01"})
        assert b"badResumptionToken" in get(resumptionToken="nonsense")
        # Full datetimes are reduced to their day; day 2 holds its 10 records.
        page = parse_oai_response(get(metadataPrefix="arXivRaw", **{"from": "2026-11-02T23:59:59Z"}))
        assert (page.complete_list_size, len(page.records)) == (10, 5)
        assert page.resumption_token.startswith("daily|arXivRaw|2026-11-02|2026-11-02|")
        assert page.response_date == datetime(2026, 11, 2, 12, tzinfo=UTC)
        last = parse_oai_response(get(resumptionToken=page.resumption_token))
        assert (len(last.records), last.resumption_token) == (5, None)
        assert [r.arxiv_id for r in last.records if r.deleted] == [DAY2_DELETED]
        # A record has one datestamp, its latest: until day 1 leaves out the two day-1
        # papers re-issued on day 2.
        day1 = parse_oai_response(get(metadataPrefix="arXivRaw", until="2026-11-01"))
        assert day1.complete_list_size == len(DAY1_RAW) - 2
        # ``set`` takes a setSpec and those below it (physics ⊃ physics:astro-ph).
        assert parse_oai_response(get(metadataPrefix="arXiv", set="physics")).complete_list_size == 9
        assert parse_oai_response(get(metadataPrefix="arXiv", set="physics:astro-ph")).complete_list_size == 6
