"""The paper page's machine-readable parts (JSON-LD, Open Graph, exports) and escaping of
hostile harvested text on every page that shows it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from lxml import html as lxml_html

from papers import harvest
from papers.models import Paper, PaperAuthor
from researchers.models import Authorship, Researcher
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db

HOSTILE = '</script><script>alert("x")</script> & <b>bold</b> "quoted" $x^{<i>}$'


def _jsonld(content: bytes) -> list[dict]:
    tree = lxml_html.fromstring(content)
    return [json.loads(s.text) for s in tree.xpath('//script[@type="application/ld+json"]')]


@pytest.fixture
def chiral(db):
    """0801.4566 "Chiral Gravity in Three Dimensions" (Li, Song, Strominger), from the real
    OAI sample file (arXiv format; the one of the bundled sample that carries this paper)."""
    from tests.conftest import SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    return Paper.objects.get(arxiv_id="0801.4566")


def test_scholarly_article_json_ld(chiral, client, settings):
    settings.SITE_URL = "https://wove.example"
    strominger = Researcher.objects.create(display_name="Andrew Strominger", paper_count=1)
    slot = chiral.authors.get(position=3)
    Authorship.objects.create(
        slot=slot, paper=chiral, researcher=strominger, method="editor", confidence=1, block="a strominger"
    )
    response = client.get(chiral.get_absolute_url())
    assert response.status_code == 200
    blocks = _jsonld(response.content)
    site = next(b for b in blocks if any(n["@type"] == "WebSite" for n in b["@graph"]))
    website = next(n for n in site["@graph"] if n["@type"] == "WebSite")
    assert website["potentialAction"]["target"]["urlTemplate"] == (
        "https://wove.example/search?q={search_term_string}"
    )
    assert website["potentialAction"]["query-input"] == "required name=search_term_string"
    assert any(n["@type"] == "Organization" and n["name"] == "wovepaper" for n in site["@graph"])
    graph = next(b for b in blocks if any(n["@type"] == "ScholarlyArticle" for n in b["@graph"]))["@graph"]
    article = next(n for n in graph if n["@type"] == "ScholarlyArticle")
    assert article["name"] == "Chiral Gravity in Three Dimensions"
    assert article["url"] == "https://wove.example" + chiral.get_absolute_url()
    assert [a["name"] for a in article["author"]] == ["Wei Li", "Wei Song", "Andrew Strominger"]
    assert article["author"][2]["url"] == "https://wove.example" + strominger.get_absolute_url()
    assert article["datePublished"] == "2008-01-30"
    assert {"@type": "PropertyValue", "propertyID": "arXiv", "value": "0801.4566"} in article["identifier"]
    assert {"@type": "PropertyValue", "propertyID": "DOI", "value": "10.48550/arXiv.0801.4566"} in article[
        "identifier"
    ]
    assert article["encoding"]["contentUrl"] == "https://arxiv.org/pdf/0801.4566"
    assert article["keywords"] == ["hep-th"]
    crumbs = next(n for n in graph if n["@type"] == "BreadcrumbList")["itemListElement"]
    # The trail the page shows, by name (issue 21: it had 4 items with the category code).
    assert [c["name"] for c in crumbs] == ["wovepaper", "Papers", "High Energy Physics - Theory"]
    page = lxml_html.fromstring(response.content)
    assert page.xpath('//nav[@class="breadcrumbs"]/a/text()') == [c["name"] for c in crumbs]
    assert page.xpath('string(//meta[@property="og:title"]/@content)') == "Chiral Gravity in Three Dimensions"
    assert page.xpath('string(//meta[@property="og:type"]/@content)') == "article"
    assert (
        page.xpath('string(//link[@rel="canonical"]/@href)')
        == "https://wove.example" + chiral.get_absolute_url()
    )
    # TeX in the abstract becomes HTML: "-1/\ell^2" gives "-1/ℓ" and a superscript 2.
    abstract = page.xpath('//section[@class="abstract"]')[0]
    assert "−1/ℓ" in abstract.text_content() or "-1/ℓ" in abstract.text_content()
    # A bare script outside $...$ is a <sup> in the text's own type (issue 32: no span).
    script = abstract.xpath(".//sup")[0]
    assert script.text == "2" and script.getprevious() is None and script.getparent().text.endswith("-1/ℓ")


def test_bibtex_and_ris_exports(chiral, client):
    bib = client.get("/papers/0801.4566/export.bib")
    assert bib["Content-Type"] == "application/x-bibtex; charset=utf-8"
    text = bib.content.decode()
    assert text.startswith("@misc{li2008chiral,\n")
    assert "  title = {{Chiral Gravity in Three Dimensions}},\n" in text
    assert "  author = {Li, Wei and Song, Wei and Strominger, Andrew},\n" in text
    assert "  eprint = {0801.4566},\n  archivePrefix = {arXiv},\n  primaryClass = {hep-th},\n" in text
    assert "  month = jan,\n}" in text
    assert text.count("{") == text.count("}")
    ris = client.get("/papers/arXiv:0801.4566v1/export.ris").content.decode()
    lines = ris.split("\r\n")
    assert lines[0] == "TY  - JOUR"
    assert "TI  - Chiral Gravity in Three Dimensions" in lines
    assert [x for x in lines if x.startswith("AU  - ")] == [
        "AU  - Li, Wei",
        "AU  - Song, Wei",
        "AU  - Strominger, Andrew",
    ]
    assert "PY  - 2008" in lines and "DA  - 2008/01/30" in lines and "ER  - " in lines
    assert client.get("/papers/2401.10241/export.bib").status_code == 404


def test_researcher_export_lists_their_papers(chiral, client):
    researcher = Researcher.objects.create(display_name="Wei Song", paper_count=2)
    other = Paper.objects.exclude(pk=chiral.pk).order_by("arxiv_id").first()
    for paper, position in ((chiral, 2), (other, 1)):
        Authorship.objects.create(
            slot=paper.authors.get(position=position),
            paper=paper,
            researcher=researcher,
            method="editor",
            confidence=1,
            block="w song",
        )
    merged = Researcher.objects.create(display_name="W. Song", paper_count=0, merged_into=researcher)
    bib = client.get(f"/researchers/{merged.pk}/export.bib").content.decode()
    assert bib.count("@misc{") == 2
    assert "eprint = {0801.4566}" in bib and f"eprint = {{{other.arxiv_id}}}" in bib
    ris = client.get(f"/researchers/{researcher.pk}/export.ris").content.decode()
    assert ris.count("TY  - ") == 2
    assert client.get("/researchers/999999/export.bib").status_code == 404


def test_hostile_text_is_escaped_everywhere(db, client):
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml"])
    paper = Paper.objects.create(
        arxiv_id="2612.00001",
        slug="hostile",
        title=HOSTILE,
        abstract=f"An abstract. {HOSTILE}",
        authors_text=f"Mallory {HOSTILE}",
        categories=["hep-th"],
        primary_category_id="hep-th",
        submitted_at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    PaperAuthor.objects.create(paper=paper, position=1, name=f"Mallory {HOSTILE}", keyname="Mallory")
    pages = [paper.get_absolute_url(), "/", "/search?q=mallory", "/search?sort=newest", "/papers/"]
    for url in pages:
        body = client.get(url).content.decode()
        assert "<script>alert" not in body, url
        assert "<b>bold</b>" not in body, url
        assert "&lt;/script&gt;&lt;script&gt;alert" in body or "\\u003C/script\\u003E" in body, url
    # JSON-LD stays one well-formed block holding the title verbatim.
    blocks = _jsonld(client.get(paper.get_absolute_url()).content)
    article = next(n for b in blocks for n in b["@graph"] if n["@type"] == "ScholarlyArticle")
    assert article["author"][0]["name"] == f"Mallory {HOSTILE}"
    assert article["name"].startswith('</script><script>alert("x")</script> & <b>bold</b> "quoted"')
    # Exports: BibTeX braces stay balanced, RIS stays one line per tag.
    bib = client.get("/papers/2612.00001/export.bib").content.decode()
    assert re.search(r"title = \{\{.*\\& <b>bold</b>", bib)
    ris = client.get("/papers/2612.00001/export.ris").content.decode()
    assert all(re.match(r"^[A-Z][A-Z0-9]  - ", line) for line in ris.split("\r\n") if line)
