"""BUGS.md OAI-01: arXiv's resumptionTokens expire, so a harvest resumed days later gets
``badResumptionToken``; the restart must ask from the last complete datestamp, not for the
whole set again, and re-read what it already has without writing anything new.

Input from BUGS.md: the checkpoint ``{"verb":"ListRecords","metadataPrefix":"arXiv",
"set":"cs","resumptionToken":"7318204|1001","last_complete_datestamp":"2024-03-04",
"saved_at":"2024-03-05T23:10:00Z"}`` and the reply to resuming with it (below, verbatim).
The reply to the restart is three real cs records (0705.0010, 0705.0017, 0705.0025) with
their datestamps edited to 2024-03-04/05 (``edited_arXiv_cs_from_2024-03-04.xml``), the
records the stopped run had already written.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

import httpx
import pytest

from papers import harvest
from papers.models import HarvestRun, Paper
from provenance.models import Event, Record
from provenance.services import records_sign
from tests.conftest import FIXTURES
from tests.papers.test_harvest import ENDPOINT, FakeTime, Replay, client_for

CS_PAGE = FIXTURES / "arxiv" / "oai" / "edited_arXiv_cs_from_2024-03-04.xml"
# BUGS.md OAI-01's reply to the resumed request, byte for byte.
EXPIRED = b"""<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2024-03-07T09:00:00Z</responseDate>
<request verb="ListRecords">https://arxiv.org/oai</request>
<error code="badResumptionToken">Error from database: noDataForResultSet - may have expired</error></OAI-PMH>"""  # noqa: E501
STALE = "7318204|1001"


@pytest.fixture(autouse=True)
def signing_key(tmp_path, settings):
    settings.PROVENANCE_SIGNING_KEY_FILE = str(tmp_path / "keys" / "provenance-ed25519.pem")
    settings.PROVENANCE_KEY_ID = ""


@pytest.mark.django_db
def test_an_expired_token_restarts_from_the_last_complete_day_and_writes_nothing_new(caplog):
    """BUGS.md OAI-01: the stale token is sent once; the next request is
    ``verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2024-03-04`` (the day inclusive, no
    ``until``); the run is not marked complete by the error and does not crash; 0 new
    Paper rows and 0 new provenance events; one warning for the restart."""
    harvest.harvest_files(paths=[CS_PAGE])  # what the run that stopped early had written
    records_sign()
    papers, records, events = Paper.objects.count(), Record.objects.count(), Event.objects.count()
    assert (papers, records) == (3, 3)
    checkpoint = HarvestRun.objects.create(
        kind=HarvestRun.Kind.OAI,
        endpoint=ENDPOINT,
        metadata_prefix="arXiv",
        set_spec="cs",
        resumption_token=STALE,
        last_complete_datestamp=date(2024, 3, 4),
        status=HarvestRun.Status.FAILED,
        error="interrupted: its process stopped before the run finished",
        finished_at=datetime(2024, 3, 5, 23, 10, tzinfo=UTC),
    )
    states: list[tuple[str, str]] = []
    script = Replay(EXPIRED, CS_PAGE.read_bytes())

    def answer(request: httpx.Request) -> httpx.Response:
        states.append(HarvestRun.objects.values_list("status", "resumption_token").get(pk=checkpoint.pk))
        return script(request)

    caplog.set_level(logging.WARNING, logger="papers")
    run = harvest.harvest_oai(client=client_for(answer, FakeTime()), metadata_prefix="arXiv", set_spec="cs")

    assert run.pk == checkpoint.pk and run.restarts == 1
    assert [dict(r.url.params) for r in script.requests] == [
        {"verb": "ListRecords", "resumptionToken": STALE},
        {"verb": "ListRecords", "metadataPrefix": "arXiv", "set": "cs", "from": "2024-03-04"},
    ]
    assert [r.url.params.get("resumptionToken") for r in script.requests].count(STALE) == 1
    # When the restart went out, the run was still running and had forgotten the token.
    assert states == [("running", STALE), ("running", "")]
    assert run.status == HarvestRun.Status.COMPLETE  # the restarted list then ran to its end
    assert Paper.objects.count() == papers
    assert records_sign().events_created == 0
    assert (Record.objects.count(), Event.objects.count()) == (records, events)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name.startswith("papers")]
    assert [r.getMessage() for r in warnings] == [
        f"harvest run {run.pk}: resumptionToken '7318204|1001' expired; "
        "restarting the list from 2024-03-04 (inclusive)"
    ]


@pytest.mark.django_db
def test_the_checkpoint_moves_to_the_day_before_the_newest_datestamp_written():
    """The last complete datestamp a page leaves: arXiv pages a list in datestamp order, so
    after the cs page (datestamps 2024-03-04, 2024-03-04, 2024-03-05) every day before the
    5th is complete. A page that goes back before that day shows a list in another order:
    then no day counts as complete and an expired token restarts the whole window."""
    page = CS_PAGE.read_bytes().replace(
        b"<resumptionToken cursor='0' completeListSize='3'>", b"<resumptionToken>"
    )
    first = page.replace(b"<resumptionToken></resumptionToken>", b"<resumptionToken>t|3</resumptionToken>")
    expired = (FIXTURES / "arxiv" / "errors" / "saelim_ErrorResponseBadResumptionToken.xml").read_bytes()
    fake = FakeTime()
    replay = Replay(first, expired, page)
    run = harvest.harvest_oai(
        client=client_for(replay, fake), metadata_prefix="arXiv", set_spec="cs", from_date=date(2024, 3, 1)
    )
    assert replay.params(2)["from"] == "2024-03-04"
    assert (run.last_complete_datestamp, run.datestamps_in_order) == (date(2024, 3, 4), True)

    backwards = first.replace(b"2024-03-05", b"2024-03-06").replace(b"t|3", b"t|6")
    replay = Replay(backwards, first, expired, page)  # the second page goes back to the 4th
    run = harvest.harvest_oai(
        client=client_for(replay, fake), metadata_prefix="arXiv", set_spec="cs", from_date=date(2024, 3, 2)
    )
    assert (run.last_complete_datestamp, run.datestamps_in_order) == (None, False)
    assert replay.params(3)["from"] == "2024-03-02"
