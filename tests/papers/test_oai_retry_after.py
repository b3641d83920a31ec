"""BUGS.md OAI-02: arXiv's flow-control 503 with ``Retry-After`` is a pause, not the end: the
client waits as told (seconds, or an HTTP date counted from the response's own ``Date``),
sends the same token again, and if the 503s outlast its retries the run keeps what it wrote
and where to resume.

Input from BUGS.md, through a scripted transport and a fake clock (no real sleeping): the
first five records of the recorded arXiv-format page renumbered 2405.00011 … 2405.00015 with
datestamps 2024-05-01/01/02 and 02/03, in two pages joined by ``tok-A``
(``edited_arXiv_2405_page1_tok-A.xml``, ``edited_arXiv_2405_page2_last.xml``, the second
ending with an empty ``<resumptionToken/>``).
"""

from __future__ import annotations

from datetime import date

import httpx
import pytest

from papers import harvest
from papers.models import HarvestRun, Paper
from tests.conftest import FIXTURES
from tests.papers.test_harvest import FakeTime, Replay, client_for

OAI = FIXTURES / "arxiv" / "oai"
PAGE_A = (OAI / "edited_arXiv_2405_page1_tok-A.xml").read_bytes()
PAGE_B = (OAI / "edited_arXiv_2405_page2_last.xml").read_bytes()
FIRST = {"verb": "ListRecords", "metadataPrefix": "arXiv", "from": "2024-05-01"}
AGAIN = {"verb": "ListRecords", "resumptionToken": "tok-A"}
IDS = ["2405.00011", "2405.00012", "2405.00013", "2405.00014", "2405.00015"]


def busy(**headers: str) -> httpx.Response:
    return httpx.Response(503, headers=headers, content=b"<html><body>Retry later</body></html>")


def harvest_may_2024(replay: Replay, fake: FakeTime) -> HarvestRun:
    return harvest.harvest_oai(
        client=client_for(replay, fake), metadata_prefix="arXiv", from_date=date(2024, 5, 1)
    )


@pytest.mark.django_db
def test_a_503_with_retry_after_waits_once_then_sends_the_same_token():
    """BUGS.md OAI-02: exactly one sleep of ≥ 20 s, then ``tok-A`` again; 5 Paper rows and
    the run complete. (The 3 s before the second request is arXiv's request spacing.)"""
    fake = FakeTime()
    replay = Replay(PAGE_A, busy(**{"Retry-After": "20"}), PAGE_B)
    run = harvest_may_2024(replay, fake)
    assert [replay.params(i) for i in range(3)] == [FIRST, AGAIN, AGAIN]
    assert fake.sleeps == [3.0, 20.0]
    assert [s for s in fake.sleeps if s >= 20] == [20.0]
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == IDS
    assert run.status == HarvestRun.Status.COMPLETE


@pytest.mark.django_db
def test_a_retry_after_date_is_counted_from_the_responses_date():
    """BUGS.md OAI-02 variant: ``Retry-After: Wed, 01 May 2024 10:00:20 GMT`` with ``Date:
    Wed, 01 May 2024 10:00:00 GMT`` waits 20 s (counted from the local clock, 2024 is long
    past and the wait was 0 s)."""
    fake = FakeTime()
    response = busy(
        **{"Retry-After": "Wed, 01 May 2024 10:00:20 GMT", "Date": "Wed, 01 May 2024 10:00:00 GMT"}
    )
    replay = Replay(PAGE_A, response, PAGE_B)
    run = harvest_may_2024(replay, fake)
    assert fake.sleeps == [3.0, 20.0]
    assert [replay.params(i) for i in range(3)] == [FIRST, AGAIN, AGAIN]
    assert (run.status, Paper.objects.count()) == (HarvestRun.Status.COMPLETE, 5)


@pytest.mark.django_db
def test_503_on_every_retry_keeps_the_records_and_the_checkpoint():
    """BUGS.md OAI-02 variant: 503 on every retry up to the client's limit (5 retries) → the
    3 records of page 1 stay committed, the checkpoint holds ``tok-A`` and the last complete
    datestamp (2024-05-01: page 1's newest day is the 2nd), and the run is incomplete:
    failed, resumable, never complete and never rolled back."""
    fake = FakeTime()
    replay = Replay(PAGE_A, *[busy(**{"Retry-After": "20"}) for _ in range(6)])
    with pytest.raises(httpx.HTTPStatusError):
        harvest_may_2024(replay, fake)
    assert [replay.params(i) for i in range(7)] == [FIRST] + [AGAIN] * 6
    assert fake.sleeps == [3.0] + [20.0] * 5
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == IDS[:3]
    run = HarvestRun.objects.get()
    assert (run.status, run.resumption_token, run.last_complete_datestamp) == (
        HarvestRun.Status.FAILED,
        "tok-A",
        date(2024, 5, 1),
    )
    assert (run.pages, run.records_written, run.finished_at is not None) == (1, 3, True)
    assert "503" in run.error
    assert harvest.harvest_run_resumable(metadata_prefix="arXiv") == run

    # The next harvest resumes from tok-A and completes the list.
    replay = Replay(PAGE_B)
    run = harvest.harvest_oai(client=client_for(replay, fake), metadata_prefix="arXiv")
    assert replay.params(0) == AGAIN
    assert (run.status, Paper.objects.count(), HarvestRun.objects.count()) == (
        HarvestRun.Status.COMPLETE,
        5,
        1,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("ending", ["empty", "missing"])
def test_an_empty_or_missing_resumption_token_ends_the_list(ending):
    """BUGS.md OAI-02: an empty ``<resumptionToken/>`` and a page without the element both
    end the list (OAI-PMH 2.0 §3.5): two requests, 5 papers, the run complete."""
    last = PAGE_B if ending == "empty" else PAGE_B.replace(b"<resumptionToken/>\n", b"")
    assert (b"<resumptionToken/>" in last) == (ending == "empty")
    replay = Replay(PAGE_A, last)
    run = harvest_may_2024(replay, FakeTime())
    assert len(replay.requests) == 2
    assert (run.status, run.resumption_token, Paper.objects.count()) == (HarvestRun.Status.COMPLETE, "", 5)
