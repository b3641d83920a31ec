"""BUGS.md API-01 through the on-demand fetch, end to end: the visitor's request, the view,
the ``papers.fetch_paper`` task it queues (run eagerly), the API client (a replaying
transport and a fake clock: nothing waits), the upsert and the paper page.

arXiv answers an empty but valid feed both for an identifier it has no paper for and, at
times, for one it has (lukasschwab/arxiv.py#43, #82). The on-demand fetch lists one
identifier (``id_list``, no paging), so its empty page is an empty feed for a paper that
exists: it must be asked again with backoff, and when the retries run out the fetch is
``incomplete``, not "arXiv has no paper" (which the 404 page showed for an hour).

Answers: the real recorded ones of ``tests/fixtures/arxiv_api`` (astro-ph/0601001 and
1605.08386), and ``edited_id_1605.08386_empty.xml`` (the 1605.08386 answer without its entry,
totalResults 0).
"""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from papers import fetch_run
from papers.arxiv_api import ArxivApiClient
from papers.models import ArxivFetch, Paper
from papers.tasks import fetch_paper
from tests.clock import FakeClock
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

API = FIXTURES / "arxiv_api"
EMPTY = (API / "edited_id_1605.08386_empty.xml").read_bytes()


def _recorded(name: str) -> bytes:
    return json.loads((API / name).read_text())["body"].encode()


HOT_JUPITERS = _recorded("arxivpy_id_astro-ph_0601001_s0_m100_3150dca9dc76.json")
HEAT_BATH = _recorded("arxivpy_id_1605.08386_s0_m100_199195aa31ad.json")


class Arxiv:
    """The arXiv API as the task meets it: scripted answers in order, each request's fake
    time and query parameters recorded, the production 3 s interval."""

    def __init__(self, monkeypatch) -> None:
        self.clock = FakeClock()
        self.script: list[bytes] = []
        self.calls: list[tuple[float, dict]] = []
        transport = httpx.MockTransport(self._answer)
        monkeypatch.setattr(
            fetch_run,
            "arxiv_api_client",
            lambda: ArxivApiClient(
                "https://export.arxiv.org/api/query",
                min_interval=3.0,
                transport=transport,
                sleep=self.clock.sleep,
                clock=self.clock,
            ),
        )
        # The task runs where the view queues it, as a worker would run it.
        monkeypatch.setitem(fetch_paper.app.conf, "task_always_eager", True)
        monkeypatch.setitem(fetch_paper.app.conf, "task_eager_propagates", True)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.calls.append((self.clock.now, dict(request.url.params)))
        if not self.script:
            raise AssertionError(f"unscripted request {request.url}")
        return httpx.Response(
            200, content=self.script.pop(0), headers={"Content-Type": "application/atom+xml"}
        )

    def gaps(self) -> list[float]:
        return [b[0] - a[0] for a, b in zip(self.calls, self.calls[1:], strict=False)]


@pytest.fixture
def arxiv(monkeypatch):
    return Arxiv(monkeypatch)


def _ask(client, django_capture_on_commit_callbacks, arxiv_id: str):
    """The visitor opens the missing paper's page and presses its Fetch button."""
    page = client.get(f"/papers/{arxiv_id}")
    assert page.status_code == 404
    assert f"Fetch arXiv:{arxiv_id}" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/papers/fetch", {"arxiv_id": arxiv_id})
    assert (response.status_code, response["Location"]) == (303, f"/papers/fetch/{arxiv_id}")
    return ArxivFetch.objects.get(arxiv_id=arxiv_id)


def test_an_empty_page_between_real_ones_is_asked_again_and_the_paper_is_served(
    client, arxiv, django_capture_on_commit_callbacks
):
    arxiv.script = [HOT_JUPITERS, EMPTY, HEAT_BATH]
    assert _ask(client, django_capture_on_commit_callbacks, "astro-ph/0601001").status == "done"
    fetch = _ask(client, django_capture_on_commit_callbacks, "1605.08386")
    assert (fetch.status, fetch.attempts, fetch.message) == ("done", 1, "Fetched from arXiv.")
    assert [params["id_list"] for _, params in arxiv.calls] == [
        "astro-ph/0601001",
        "1605.08386",
        "1605.08386",
    ]
    # The empty answer was asked again after the 3 s backoff; nothing slept for real.
    assert arxiv.clock.slept == [3.0]
    assert arxiv.gaps()[1] == 3.0
    paper = Paper.objects.get(arxiv_id="1605.08386")
    assert [a.name for a in paper.authors.order_by("position")] == ["Caprice Stanley", "Tobias Windisch"]
    assert client.get("/papers/fetch/1605.08386")["Location"] == paper.get_absolute_url()
    page = client.get("/papers/1605.08386", follow=True)
    assert page.status_code == 200
    assert "Heat-bath random walks with Markov bases" in page.content.decode()
    assert client.get("/papers/astro-ph/0601001", follow=True).status_code == 200


def test_when_the_retries_run_out_the_fetch_is_incomplete_not_a_missing_paper(
    client, arxiv, django_capture_on_commit_callbacks
):
    arxiv.script = [EMPTY] * 4
    fetch = _ask(client, django_capture_on_commit_callbacks, "1605.08386")
    assert [params for _, params in arxiv.calls] == [
        {"id_list": "1605.08386", "start": "0", "max_results": "1"}
    ] * 4
    assert arxiv.gaps() == [3.0, 6.0, 12.0]
    assert fetch.status == "incomplete"
    assert fetch.message == (
        "arXiv answered 4 times, with growing pauses, with an empty list. It may have no paper "
        "1605.08386, or its API may be sending empty answers, as it does at times."
    )
    assert fetch.asks_again_at == fetch.finished_at + timedelta(minutes=10)
    state = client.get("/papers/fetch-status/1605.08386").json()
    assert (state["state"], state["url"]) == ("incomplete", None)
    progress = client.get("/papers/fetch/1605.08386").content.decode()
    assert "arXiv’s answers came back empty." in progress and "you can ask again in 9" in progress.lower()
    not_found = client.get("/papers/1605.08386").content.decode()
    assert "arXiv has no paper with this identifier" not in progress + not_found
    assert "which does not say it has no such paper. You can ask again in 9" in not_found

    # Ten minutes on, the visitor asks again and arXiv answers: the paper is served.
    ArxivFetch.objects.filter(pk=fetch.pk).update(finished_at=timezone.now() - timedelta(minutes=11))
    assert "Ask arXiv again" in client.get("/papers/fetch/1605.08386").content.decode()
    arxiv.script = [HEAT_BATH]
    fetch = _ask(client, django_capture_on_commit_callbacks, "1605.08386")
    assert (fetch.status, fetch.attempts) == ("done", 2)
    page = client.get("/papers/1605.08386", follow=True)
    assert page.status_code == 200 and "Heat-bath random walks with Markov bases" in page.content.decode()


def test_migration_0014_makes_the_stored_empty_answer_fetches_incomplete():
    """Fetches the code before marked missing after empty answers (their message says so)
    become incomplete; one whose answer lacked the paper stays missing."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate([("papers", "0013_collaboration_slots")])
    ArxivFetch.objects.create(
        arxiv_id="1605.08386",
        status="missing",
        message="arXiv answered 4 times, with growing pauses, without 1605.08386.",
    )
    ArxivFetch.objects.create(
        arxiv_id="1605.08387", status="missing", message="arXiv has no paper 1605.08387."
    )
    MigrationExecutor(connection).migrate([("papers", "0014_arxivfetch_incomplete")])
    assert dict(ArxivFetch.objects.values_list("arxiv_id", "status")) == {
        "1605.08386": "incomplete",
        "1605.08387": "missing",
    }
