"""A paper with several DOIs (issue 18) on its page, in its JSON-LD and in its exports.

Real records of the bundled sample, DOIs read by hand from the files: 0704.0389 (Kaggle
line; a Phys. Rev. D article and two errata), 0705.0020 (OAI arXiv format; ApJ 2007 and
ApJ 2009) and 0704.0001 (Kaggle; one DOI).
"""

from __future__ import annotations

import json

import pytest
from lxml import html as lxml_html

from papers.kaggle import iter_kaggle
from papers.models import Paper
from papers.oai import parse_oai_response
from papers.upsert import papers_upsert
from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV

pytestmark = pytest.mark.django_db

THREE = ["10.1103/PhysRevD.75.124007", "10.1103/PhysRevD.82.029901", "10.1103/PhysRevD.82.129903"]
TWO = ["10.1086/520497", "10.1088/0004-637X/704/2/1743"]


@pytest.fixture
def papers(db):
    """0704.0389, 0705.0020 and 0704.0001 ingested from the sample by their formats' parsers."""
    with open(SAMPLE_KAGGLE, "rb") as stream:
        records = [r for r in iter_kaggle(stream) if r.arxiv_id in ("0704.0389", "0704.0001")]
    records += [r for r in parse_oai_response(str(SAMPLE_OAI_ARXIV)).records if r.arxiv_id == "0705.0020"]
    papers_upsert(records=records)
    return {p.arxiv_id: p for p in Paper.objects.all()}


def _article(content: bytes) -> dict:
    tree = lxml_html.fromstring(content)
    blocks = [json.loads(s.text) for s in tree.xpath('//script[@type="application/ld+json"]')]
    return next(n for b in blocks for n in b["@graph"] if n["@type"] == "ScholarlyArticle")


def test_page_links_each_doi(papers, client):
    response = client.get(papers["0704.0389"].get_absolute_url())
    page = lxml_html.fromstring(response.content)
    dt = page.xpath('//dt[normalize-space()="DOIs"]')
    assert len(dt) == 1
    links = dt[0].getnext().xpath(".//a")
    assert [(a.text, a.get("href")) for a in links] == [(doi, f"https://doi.org/{doi}") for doi in THREE]
    # The aside's publisher link is the journal article, the first DOI.
    publisher = page.xpath('//a[normalize-space()="publisher"]/@href')
    assert publisher == ["https://doi.org/10.1103/PhysRevD.75.124007"]
    assert "%20" not in response.content.decode()


def test_page_with_one_doi_keeps_one_link(papers, client):
    page = lxml_html.fromstring(client.get(papers["0704.0001"].get_absolute_url()).content)
    dd = page.xpath('//dt[normalize-space()="DOI"]')[0].getnext()
    assert [a.get("href") for a in dd.xpath(".//a")] == ["https://doi.org/10.1103/PhysRevD.76.013009"]


def test_json_ld_identifier_and_same_as_hold_every_doi(papers, client):
    article = _article(client.get(papers["0705.0020"].get_absolute_url()).content)
    assert [i["value"] for i in article["identifier"] if i["propertyID"] == "DOI"] == [
        "10.48550/arXiv.0705.0020",
        *TWO,
    ]
    assert article["sameAs"] == [
        "https://arxiv.org/abs/0705.0020",
        "https://doi.org/10.48550/arXiv.0705.0020",
        "https://doi.org/10.1086/520497",
        "https://doi.org/10.1088/0004-637X/704/2/1743",
    ]


def test_bibtex_takes_the_first_doi(papers, client):
    text = client.get("/papers/0704.0389/export.bib").content.decode()
    assert "  doi = {10.1103/PhysRevD.75.124007},\n" in text
    assert text.count("doi = ") == 1
    assert "029901" not in text


def test_ris_has_one_do_line_per_doi(papers, client):
    lines = client.get("/papers/0704.0389/export.ris").content.decode().split("\r\n")
    assert [x for x in lines if x.startswith("DO  - ")] == [f"DO  - {doi}" for doi in THREE]
    one = client.get("/papers/0704.0001/export.ris").content.decode().split("\r\n")
    assert [x for x in one if x.startswith("DO  - ")] == ["DO  - 10.1103/PhysRevD.76.013009"]
