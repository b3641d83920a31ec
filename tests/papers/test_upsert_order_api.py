"""The arXiv API path keeps the order rule (issue 18): an answer that knows an older version
than the one stored changes nothing, one that knows a newer version adds it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx
import pytest

from papers.arxiv_api import ArxivApiClient, parse_feed
from papers.fetch_run import arxiv_fetch_run
from papers.models import ArxivFetch, Paper
from papers.upsert import papers_upsert
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

# The real API answer for id_list=1111.2011v2 (v1 2011-11-08, v2 2012-04-02, with DOI).
FEED_V2 = (FIXTURES / "arxiv_api" / "arxivpy2016_id_list_1111.2011v2.xml").read_bytes()
# The same entry edited to what the API answered before v2: the id names v1, <updated> is
# <published>, no DOI, no journal-ref, the comment without "Published version".
FEED_V1 = (
    FEED_V2.replace(
        b"<id>http://arxiv.org/abs/1111.2011v2</id>", b"<id>http://arxiv.org/abs/1111.2011v1</id>"
    )
    .replace(b"<updated>2012-04-02T12:38:54Z</updated>", b"<updated>2011-11-08T18:48:36Z</updated>")
    .replace(b"8 pages, 3 figures. Published version", b"8 pages, 3 figures")
)
FEED_V1 = (
    FEED_V1[: FEED_V1.index(b"    <arxiv:doi")]
    + FEED_V1[FEED_V1.index(b'    <link href="http://arxiv.org/abs/') :]
)


def _fetch(body: bytes) -> ArxivFetch:
    ArxivFetch.objects.update_or_create(arxiv_id="1111.2011", defaults={"status": ArxivFetch.Status.QUEUED})
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body))
    with ArxivApiClient("https://export.arxiv.org/api/query", min_interval=0, transport=transport) as api:
        return arxiv_fetch_run(arxiv_id="1111.2011", client=api)


def test_an_older_api_answer_after_a_newer_one_changes_nothing():
    assert _fetch(FEED_V2).status == ArxivFetch.Status.DONE
    paper = Paper.objects.get(arxiv_id="1111.2011")
    stored = (paper.content_hash, paper.modified_at)
    assert (paper.latest_version, paper.doi) == (2, "10.1103/PhysRevB.85.115117")

    [older] = parse_feed(FEED_V1)
    assert (older.versions[-1].version, older.dois) == (1, [])  # the edit reads as intended
    assert papers_upsert(records=[older]).written == 0
    paper.refresh_from_db()
    assert (paper.content_hash, paper.modified_at) == stored
    assert list(paper.versions.values_list("version", "submitted_at")) == [
        (1, datetime(2011, 11, 8, 18, 48, 36, tzinfo=UTC)),
        (2, datetime(2012, 4, 2, 12, 38, 54, tzinfo=UTC)),
    ]
    assert paper.comments == "8 pages, 3 figures. Published version"
    assert paper.content_asof == date(2012, 4, 2)  # the v2 answer's <updated> day


def test_a_newer_api_answer_after_an_older_one_adds_its_version():
    assert _fetch(FEED_V1).status == ArxivFetch.Status.DONE
    assert Paper.objects.get(arxiv_id="1111.2011").latest_version == 1
    assert _fetch(FEED_V2).status == ArxivFetch.Status.DONE
    paper = Paper.objects.get(arxiv_id="1111.2011")
    assert (paper.latest_version, paper.doi, paper.journal_ref) == (
        2,
        "10.1103/PhysRevB.85.115117",
        "Phys. Rev. B 85, 115117 (2012)",
    )
    assert paper.updated_date == date(2012, 4, 2)
