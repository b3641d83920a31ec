"""BUGS.md MAP-01: no sitemap file over 50,000 URLs, and no empty file in the index."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from xml.etree import ElementTree

import pytest
from django.contrib.sitemaps import Sitemap

from pages.sitemaps import SITEMAPS
from papers.models import Paper
from researchers.models import Researcher
from wove.bulk import copy_upsert, db_values

pytestmark = pytest.mark.django_db

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
SITE = "https://wove.example"
MAX_BYTES = 52_428_800  # sitemaps.org: 50 MiB uncompressed
# W3C Datetime (the forms sitemaps.org accepts): a date, or a date and time with a zone.
W3C_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")
# Every column a paper row needs, except the id and the generated search vector.
PAPER_FIELDS = [f.name for f in Paper._meta.concrete_fields if not f.primary_key and not f.generated]
NOW = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)


def _insert_papers(first: int, count: int, *, deleted: bool = False) -> None:
    """``count`` papers 2612.<first> … in one COPY (ORM saves would take minutes)."""
    rows = []
    for n in range(first, first + count):
        paper = Paper(
            arxiv_id=f"2612.{n:05d}",
            slug=f"sitemap-paper-{n}",
            title=f"Sitemap paper {n}",
            categories=["cs.DC"],
            primary_category_id="cs.DC",
            submitted_at=NOW,
            deleted=deleted,
            created_at=NOW,
            modified_at=NOW,
        )
        rows.append(db_values(paper, PAPER_FIELDS))
    copy_upsert(model=Paper, fields=PAPER_FIELDS, rows=rows, conflict_fields=["arxiv_id"], update_fields=[])


def _get(client, url: str) -> bytes:
    assert url.startswith(SITE + "/"), url  # absolute, on the site's own URL
    response = client.get(url.removeprefix(SITE))
    assert response.status_code == 200, url
    return response.content


def _index(client) -> list[tuple[str, str]]:
    root = ElementTree.fromstring(_get(client, SITE + "/sitemap.xml"))
    return [(s.findtext("sm:loc", namespaces=NS), s.findtext("sm:lastmod", namespaces=NS)) for s in root]


def _files(client) -> dict[str, list[str]]:
    """Every file the index lists → its URLs, checking the limits of each file on the way."""
    files = {}
    for loc, lastmod in _index(client):
        assert lastmod is None or W3C_DATETIME.match(lastmod), lastmod
        body = _get(client, loc)
        assert len(body) <= MAX_BYTES
        root = ElementTree.fromstring(body)
        files[loc] = [u.findtext("sm:loc", namespaces=NS) for u in root]
        assert 1 <= len(files[loc]) <= 50_000, loc  # never an empty file
        assert all(W3C_DATETIME.match(m.text) for m in root.iterfind("sm:url/sm:lastmod", NS))
    return files


def test_map01_papers_split_at_50000_urls_and_no_empty_section(client, settings):
    """BUGS.md MAP-01: (a) 50,000 live papers → one paper sitemap of exactly 50,000 URLs;
    (b) 50,001 live plus 1 deleted → two paper sitemaps (50,000 + 1) in the index, absolute
    URLs, the deleted paper absent; no file over 50,000 URLs or 50 MiB; the index never
    lists an empty or 404 file (no institutions here: that section is left out); lastmod a
    W3C datetime; Django's Sitemap.limit still 50,000."""
    settings.SITE_URL = SITE
    assert Sitemap.limit == 50_000
    assert all(section.limit == 50_000 for section in SITEMAPS.values())
    Researcher.objects.bulk_create(
        Researcher(display_name=f"Sitemap Person {n}", slug=f"sitemap-person-{n}", paper_count=1)
        for n in range(1, 121)
    )
    _insert_papers(1, 50_000)

    files = _files(client)
    papers = SITE + "/sitemap-papers.xml"
    assert list(files) == [SITE + "/sitemap-pages.xml", papers, SITE + "/sitemap-researchers.xml"]
    assert len(files[papers]) == 50_000
    assert len(files[SITE + "/sitemap-researchers.xml"]) == 120
    assert client.get("/sitemap-institutions.xml").status_code == 404  # empty: no file

    _insert_papers(50_001, 1)
    _insert_papers(50_002, 1, deleted=True)
    files = _files(client)
    assert [loc for loc in files if "sitemap-papers" in loc] == [papers, papers + "?p=2"]
    assert len(files[papers]) == 50_000
    assert files[papers + "?p=2"] == [SITE + "/papers/2612.50001-sitemap-paper-50001"]
    all_papers = files[papers] + files[papers + "?p=2"]
    assert len(set(all_papers)) == 50_001
    assert not any("2612.50002" in url for urls in files.values() for url in urls)
    assert client.get("/sitemap-papers.xml?p=3").status_code == 404
