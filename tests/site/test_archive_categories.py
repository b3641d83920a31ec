"""An arXiv archive divided into subject classes (math, cs, astro-ph, physics) lists the
papers of every class in it: ``/papers/?category=math`` said "0 papers" while the sample
holds 83 in math.AG alone (a newcomer found it)."""

from __future__ import annotations

import pytest
from lxml import etree

from pages.facts import archive_facts_refresh
from papers.models import Paper
from papers.selectors import category_codes

pytestmark = pytest.mark.django_db


def in_math() -> set[str]:
    return {
        arxiv_id
        for arxiv_id, categories in Paper.objects.public().values_list("arxiv_id", "categories")
        if any(code == "math" or code.startswith("math.") for code in categories)
    }


def test_an_archive_is_itself_and_its_classes():
    assert category_codes("hep-th") == ["hep-th"]
    assert category_codes("math.AG") == ["math.AG"]
    codes = category_codes("math")
    assert codes[0] == "math" and "math.AG" in codes and "math.ST" in codes
    assert all(code.startswith("math.") for code in codes[1:])


def test_the_archive_list_feed_and_search_hold_every_class(client, site_sample):
    expected = in_math()
    assert len(expected) > 83
    archive_facts_refresh()
    page = client.get("/papers/?category=math").content.decode()
    assert f"{len(expected):,} papers" in page or f"{len(expected)} papers" in page
    feed = etree.fromstring(client.get("/rss/category/math.xml").content)
    items = [item.findtext("link") for item in feed.find("channel").findall("item")]
    assert len(items) == 50
    api = client.get("/api/v1/papers", {"category": "math", "size": 1}).json()
    assert api["count"] == len(expected)
    search = client.get("/search", {"category": "math", "q": "algebra"}).content.decode()
    assert "No papers match." not in search
