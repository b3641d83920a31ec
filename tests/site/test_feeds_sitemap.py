"""RSS feeds and the sitemap index: valid XML, the right items, every public object once."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from xml.etree import ElementTree

import pytest

from papers import harvest
from papers.models import Paper
from researchers.models import Authorship, Researcher
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db

SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
HOSTILE = '</title><script>alert("x")</script> & <b>bold</b>\x0b\x1f end'


@pytest.fixture
def papers(db):
    """8 real papers (5 arXivRaw records, 3 hep-th), then 0801.3674 deleted by arXiv."""
    harvest.harvest_files(
        paths=[
            OAI / "edited_arXivRaw_ListRecords_page1.xml",
            OAI / "edited_arXivRaw_ListRecords_page2.xml",
            OAI / "hepcrawl_arxiv-physics-hep-th.xml",
        ]
    )
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_deleted_header.xml"])
    return Paper.objects.all()


def _hostile_paper() -> Paper:
    return Paper.objects.create(
        arxiv_id="2612.00001",
        slug="hostile",
        title=HOSTILE,
        abstract=f"Abstract {HOSTILE}",
        authors_text=f"Mallory {HOSTILE}",
        categories=["hep-th"],
        primary_category_id="hep-th",
        submitted_at=datetime(2026, 12, 1, tzinfo=UTC),
    )


def _arxiv_of(url: str) -> str:
    """The arXiv id in a paper URL (``…/papers/1412.8323-some-slug`` gives ``1412.8323``)."""
    return re.match(r"(\d{4}\.\d{4,5}|[a-z-]+/\d{7})", url.split("/papers/", 1)[1]).group(1)


def _items(response) -> list[dict]:
    assert response["Content-Type"].startswith("application/rss+xml")
    root = ElementTree.fromstring(response.content)  # raises on invalid XML
    return [{child.tag: (child.text or "") for child in item} for item in root.iter("item")]


def test_latest_feed_lists_public_papers_newest_first(papers, client):
    items = _items(client.get("/rss/latest.xml"))
    public = Paper.objects.public().newest()
    assert [_arxiv_of(i["guid"]) for i in items] == [p.arxiv_id for p in public]
    assert len(items) == public.count() == 7  # 8 harvested, one deleted
    assert "0801.3674" not in [_arxiv_of(i["guid"]) for i in items]


def test_category_and_researcher_feeds(papers, client):
    items = _items(client.get("/rss/category/hep-th.xml"))
    in_category = {p.arxiv_id for p in Paper.objects.public() if "hep-th" in p.categories}
    assert {_arxiv_of(i["guid"]) for i in items} == in_category
    assert len(in_category) == 4  # three hep-th papers and 0801.3676, cross-listed
    assert client.get("/rss/category/no-such.xml").status_code == 404
    paper = Paper.objects.get(arxiv_id="1412.8323")
    researcher = Researcher.objects.create(display_name="Feed Person", paper_count=1)
    Authorship.objects.create(
        slot=paper.authors.first(),
        paper=paper,
        researcher=researcher,
        method="editor",
        confidence=1,
        block="f person",
    )
    items = _items(client.get(f"/rss/researchers/{researcher.pk}.xml"))
    assert [_arxiv_of(i["guid"]) for i in items] == ["1412.8323"]
    assert client.get("/rss/researchers/999999.xml").status_code == 404


def test_feed_survives_characters_xml_forbids(papers, client):
    _hostile_paper()
    response = client.get("/rss/latest.xml")
    items = _items(response)  # parses: the control characters are gone
    first = items[0]
    assert first["title"] == '</title><script>alert("x")</script> & <b>bold</b> end'
    assert b"<script>" not in response.content  # escaped as text, never markup
    assert b"\x0b" not in response.content


def _urls(client, path: str) -> list[str]:
    response = client.get(path)
    assert response.status_code == 200
    return [loc.text for loc in ElementTree.fromstring(response.content).iterfind(".//sm:loc", SITEMAP_NS)]


def test_sitemap_index_lists_every_public_object_once(papers, client, settings, monkeypatch):
    from institutions.models import Institution
    from pages.sitemaps import PaperSitemap

    settings.SITE_URL = "https://wove.example"
    researcher = Researcher.objects.create(display_name="Listed Person", paper_count=1)
    Researcher.objects.create(display_name="Paperless Person", paper_count=0)
    Researcher.objects.create(display_name="Merged Away", paper_count=1, merged_into=researcher)
    institution = Institution.objects.create(ror_id="057zh3y96", name="The University of Tokyo")
    # Small sections, to see the index page through several files of one section.
    monkeypatch.setattr(PaperSitemap, "limit", 3)
    sections = _urls(client, "/sitemap.xml")
    assert sum("sitemap-papers.xml" in s for s in sections) == 3  # 7 papers in files of 3
    urls: list[str] = []
    for section in sections:
        urls += _urls(client, "/" + section.split("://", 1)[1].split("/", 1)[1])
    assert len(urls) == len(set(urls))
    base = "https://wove.example"
    expected = {base + p.get_absolute_url() for p in Paper.objects.public()}
    expected |= {base + researcher.get_absolute_url(), base + institution.get_absolute_url()}
    expected |= {base + path for path in ("/", "/search", "/papers/", "/researchers", "/institutions")}
    expected |= {base + path for path in ("/about", "/contact", "/privacy", "/developers", "/llms.txt")}
    assert set(urls) == expected
    assert not any("0801.3674" in u for u in urls)  # deleted by arXiv


def test_robots_txt_points_to_the_sitemap(client, settings):
    settings.SITE_URL = "https://wove.example"
    body = client.get("/robots.txt").content.decode()
    assert "Sitemap: https://wove.example/sitemap.xml" in body
    assert "Disallow: /cms/" in body and "Disallow: /admin/" in body
