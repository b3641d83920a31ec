"""Why each author is who we say (issue 20): the paper page's disclosure, unconfirmed marks on
the paper and researcher pages, and the same in the paper and researcher APIs, on the real
sample matched locally."""

import html
import re

import pytest

from researchers.models import Authorship
from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, sample_tables_wipe

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def matched(django_db_setup, django_db_blocker):
    """The real sample harvested and matched locally once for the module, removed afterwards."""
    from papers import harvest
    from researchers.services import researchers_match_authors

    with django_db_blocker.unblock():
        harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
        harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
        researchers_match_authors(sources=[])
        yield
        sample_tables_wipe()


def _author_item(page: str, name: str) -> str:
    """The author list's ``<li>`` for ``name``, unescaped."""
    items = re.findall(r"<li>(.*?)</li>", page.split('class="author-list"', 1)[1].split("</ol>", 1)[0], re.S)
    return html.unescape(next(item for item in items if f">{name}<" in item))


def test_paper_page_says_why_without_javascript_and_marks_a_guess(visitor, matched):
    # Ariyeh H. Maller, first author of 0801.4563: his other sample paper (0801.4568) shares
    # only astro-ph and 2008, and another researcher holds the block "a maller".
    page = visitor.get("/papers/0801.4563", follow=True).content.decode()
    item = _author_item(page, "Ariyeh H. Maller")
    assert '<span class="badge badge-warn badge-unconfirmed"' in item and ">unconfirmed</span>" in item
    # A plain <details>/<summary>: open and closed by the browser, no script involved.
    why = r'<details class="why"><summary>why<span class="visually-hidden"> (.*?)</span></summary>'
    why += r"(.*?)</details>"
    disclosure = re.search(why, item, re.S)
    assert disclosure.group(1) == "Ariyeh H. Maller is this researcher"
    assert disclosure.group(2) == (
        "Matched by this archive's own evidence, confidence 0.60; same arXiv category: astro-ph; "
        "weighed with 1 other paper, 2008; the name “Ariyeh H. Maller”; "
        "unconfirmed: only the name links it, and several researchers share this name."
    )


def test_paper_page_names_shared_coauthors(visitor, matched):
    page = visitor.get("/papers/0704.0005", follow=True).content.decode()
    item = _author_item(page, "Wael Abu-Shammala")
    assert "unconfirmed" not in item
    assert (
        "1 co-author also on other papers: Alberto Torchinsky; same arXiv categories: math.CA, math.FA"
        in item
    )


def test_researcher_page_counts_and_marks_unconfirmed_papers(visitor, matched):
    researcher = Authorship.objects.get(paper__arxiv_id="0801.4563", slot__position=1).researcher
    page = html.unescape(visitor.get(researcher.get_absolute_url()).content.decode())
    assert ">2 papers unconfirmed</span>" in page
    assert page.count("only the name links this paper to Ariyeh H. Maller") == 2


def test_apis_carry_method_confidence_evidence_and_unconfirmed(visitor, matched):
    data = visitor.get("/api/v1/papers/0801.4563").json()
    assert data["author_slots"][0]["authorship"] == {
        "method": "local",
        "source": "",
        "confidence": 0.6,
        "evidence": [
            {"kind": "categories", "count": 1, "values": ["astro-ph"]},
            {"kind": "years", "first": 2008, "last": 2008, "papers": 1},
            {"kind": "name", "name": "Ariyeh H. Maller", "block": "a maller"},
        ],
        "unconfirmed": True,
    }
    researcher_id = data["author_slots"][0]["researcher"]["id"]
    papers = visitor.get(f"/api/v1/researchers/{researcher_id}/papers").json()["items"]
    assert sorted((p["arxiv_id"], p["authorship"]["unconfirmed"]) for p in papers) == [
        ("0801.4563", True),
        ("0801.4568", True),
    ]
    abu = visitor.get("/api/v1/papers/0704.0005").json()["author_slots"][0]["authorship"]
    assert (abu["unconfirmed"], abu["evidence"][0]) == (
        False,
        {"kind": "coauthors", "count": 1, "values": ["Alberto Torchinsky"]},
    )


def test_a_long_author_list_gets_the_brief_why(visitor, matched, monkeypatch):
    from researchers.templatetags import researchers_tags

    # The sample's longest list is 0705.0116's 71 authors: the threshold (100) lowered to 50.
    monkeypatch.setattr(researchers_tags, "WHY_FULL_AUTHORS", 50)
    page = html.unescape(visitor.get("/papers/0705.0116", follow=True).content.decode())
    whys = re.findall(r'<details class="why">.*?</details>', page, re.S)
    assert len(whys) == Authorship.objects.filter(paper__arxiv_id="0705.0116").count() == 71
    assert all("the signals are in the API's author_slots" in why for why in whys)
    assert not any("co-author" in why or "the name “" in why for why in whys)
    # A short list keeps every signal.
    short = html.unescape(visitor.get("/papers/0704.0005", follow=True).content.decode())
    assert "the signals are in the API" not in short and "the name “Wael Abu-Shammala”" in short
