"""A feed for every search (issue 31): ``/search/feed.xml?<the search page's query string>``,
RSS 2.0, the 50 newest papers the search page lists for the same words and filters."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from lxml import etree

pytestmark = pytest.mark.django_db


def feed_ids(client, query: str) -> tuple[etree._Element, list[str]]:
    response = client.get(f"/search/feed.xml?{query}")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/rss+xml; charset=utf-8"
    channel = etree.fromstring(response.content).find("channel")
    links = [item.findtext("link") for item in channel.findall("item")]
    return channel, [re.search(r"/papers/([^/]+?)(?:-[a-z0-9-]*)?$", link).group(1) for link in links]


def page_ids(client, query: str, pages: int = 3) -> list[str]:
    """The search page's papers, newest first, over its first ``pages`` pages."""
    ids: list[str] = []
    for page in range(1, pages + 1):
        html = client.get(f"/search?{query}&sort=newest&page={page}").content.decode()
        found = re.findall(r'<span class="mono">arXiv:([^<]+)</span>', html)
        if not found or (ids and found[0] in ids):
            break
        ids += found
    return ids


@pytest.mark.parametrize(
    ("params", "title"),
    [
        ({"q": "black hole"}, "wovepaper search: “black hole”"),
        ({"q": "quantum", "category": "quant-ph"}, "wovepaper search: “quantum” in quant-ph"),
        ({"q": "field theory", "from": "2008", "to": "2008"}, "wovepaper search: “field theory”, 2008"),
        ({"category": "hep-th", "from": "2007"}, "wovepaper search: all papers in hep-th, 2007–…"),
    ],
)
def test_the_feed_holds_the_search_pages_newest_papers(client, site_sample, params, title):
    query = urlencode(params)
    channel, ids = feed_ids(client, query)
    assert channel.findtext("title") == title
    assert channel.findtext("link").endswith(f"/search?{query}")
    expected = page_ids(client, query)[:50]
    assert ids == expected and len(ids) > 0


def test_researcher_and_institution_filters(client, site_sample):
    strominger, tokyo = site_sample["strominger"], site_sample["tokyo"]
    channel, ids = feed_ids(client, f"researcher={strominger.pk}")
    assert ids == ["0801.4566"]
    assert channel.findtext("title") == "wovepaper search: all papers by Andrew Strominger"
    channel, ids = feed_ids(client, f"institution={tokyo.pk}")
    assert ids == ["0801.4614"]
    assert channel.findtext("title") == "wovepaper search: all papers from The University of Tokyo"


def test_fifty_items_at_most_and_newest_first(client, site_sample):
    _channel, ids = feed_ids(client, "category=hep-th")
    assert len(ids) == 50
    assert ids == page_ids(client, "category=hep-th")[:50]


def test_conditional_get_answers_304(client, site_sample):
    first = client.get("/search/feed.xml?q=black+hole")
    assert first["ETag"] and first["Last-Modified"]
    assert first["Cache-Control"] == "public, max-age=300, s-maxage=900, stale-while-revalidate=3600"
    assert client.get("/search/feed.xml?q=black+hole", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    since = client.get("/search/feed.xml?q=black+hole", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304


def test_the_search_page_links_its_feed(client, site_sample):
    html = client.get("/search?q=black+hole&category=hep-th&sort=newest&page=2").content.decode()
    feed = "/search/feed.xml?q=black+hole&amp;category=hep-th"
    assert (
        f'<link rel="alternate" type="application/rss+xml" title="wovepaper search: “black hole” in hep-th" '
        f'href="{feed}">' in html
    )
    assert f'<a href="{feed}">Follow this search by RSS</a>' in html
    # No words and no filters: the site's own latest-papers feed is the one to follow.
    assert "/search/feed.xml" not in client.get("/search").content.decode()


def test_hostile_query_text_is_escaped_in_the_feed(client, site_sample):
    response = client.get("/search/feed.xml?" + urlencode({"q": "<script>alert(1)</script> & ]]>"}))
    assert response.status_code == 200
    channel = etree.fromstring(response.content).find("channel")
    assert channel.findtext("title") == "wovepaper search: “<script>alert(1)</script> & ]]>”"
    assert b"<script>" not in response.content


def test_api_search_answers_name_their_feed(client, site_sample, settings):
    settings.SITE_URL = "https://wovepaper.example"
    listed = client.get("/api/v1/papers", {"q": "black hole", "category": "hep-th"})
    assert listed.status_code == 200
    assert listed["Link"] == (
        '<https://wovepaper.example/search/feed.xml?q=black+hole&category=hep-th>; rel="alternate"; '
        'type="application/rss+xml"'
    )
    assert "Link" in listed["Access-Control-Expose-Headers"]
    assert "Link" not in client.get("/api/v1/papers")  # the whole archive: /rss/latest.xml
    found = client.get("/api/v1/search", {"q": "black hole"})
    assert found["Link"] == (
        '<https://wovepaper.example/search/feed.xml?q=black+hole&mode=keyword>; rel="alternate"; '
        'type="application/rss+xml"'
    )


def test_a_feed_says_when_it_runs_the_keyword_search_for_a_semantic_one(client, site_sample):
    # No paper of the sample has a vector here: hybrid and semantic run as keyword searches.
    for mode in ("hybrid", "semantic"):
        channel, ids = feed_ids(client, f"q=black+hole&mode={mode}")
        assert channel.findtext("description") == (
            f"The newest papers for “black hole” (keyword search; {mode} search unavailable, "
            "the keyword search of the same words)."
        )
        assert ids == feed_ids(client, "q=black+hole&mode=keyword")[1]
    assert feed_ids(client, "q=black+hole&mode=keyword")[0].findtext("description") == (
        "The newest papers for “black hole” (keyword search)."
    )
