"""A 3,000-author paper's page (issue 21): the first authors on the page, every author in
its JSON-LD and citation tags, the full list on its own paged view."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from lxml import html as lxml_html

from papers import harvest
from papers.models import Paper
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship
from tests.conftest import FIXTURES, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

pytestmark = pytest.mark.django_db

# The edited 3,000-author record of the tests (tests/fixtures/semanticscholar/make_edited_3000.py):
# author 1 is Shaden Smith, 50 B. Taylor, 51 T. Vanmunster, 3,000 Alexandre Sukhov.
MEGA = FIXTURES / "arxiv" / "oai" / "edited_arXiv_2201.11990_3000_authors.xml"


@pytest.fixture
def mega(db) -> Paper:
    harvest.harvest_files(paths=[MEGA])
    return Paper.objects.get(arxiv_id="2201.11990")


def _tree(response):
    assert response.status_code == 200
    return lxml_html.fromstring(response.content)


def _article(tree) -> dict:
    for block in tree.xpath('//script[@type="application/ld+json"]'):
        for node in json.loads(block.text).get("@graph", []):
            if node["@type"] == "ScholarlyArticle":
                return node
    raise AssertionError("no ScholarlyArticle")


def test_page_shows_the_first_50_authors_and_links_all(mega, client):
    tree = _tree(client.get(mega.get_absolute_url()))
    shown = tree.xpath('//ol[@class="author-list"]/li')
    assert len(shown) == 50
    assert shown[0].text_content().strip() == "Shaden Smith"
    assert shown[49].text_content().strip() == "B. Taylor"
    (more,) = tree.xpath('//p[@class="author-more"]/a')
    assert more.get("href") == f"{mega.get_absolute_url()}/authors"
    assert more.text_content() == "All 3,000 authors, with their affiliations"
    assert "2,950 more" in tree.xpath('//p[@class="author-more"]')[0].text_content()


def test_json_ld_and_citation_tags_name_every_author_in_order(mega, client):
    tree = _tree(client.get(mega.get_absolute_url()))
    authors = _article(tree)["author"]
    assert len(authors) == 3000
    assert [authors[0]["name"], authors[50]["name"], authors[-1]["name"]] == [
        "Shaden Smith",
        "T. Vanmunster",
        "Alexandre Sukhov",
    ]
    tags = tree.xpath('//meta[@name="citation_author"]/@content')
    assert len(tags) == 3000
    assert tags[-1] == "Alexandre Sukhov"


def test_matched_authors_link_their_researchers_in_page_and_json_ld(mega, client, settings):
    researchers_match_local()
    first = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=1).researcher
    last = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=3000).researcher
    tree = _tree(client.get(mega.get_absolute_url()))
    assert tree.xpath('//ol[@class="author-list"]/li[1]/a/@href') == [first.get_absolute_url()]
    authors = _article(tree)["author"]
    assert authors[-1]["url"] == f"{settings.SITE_URL}{last.get_absolute_url()}"


def test_full_list_pages_by_500_with_author_positions(mega, client):
    url = f"{mega.get_absolute_url()}/authors"
    first = _tree(client.get(url)).xpath('//ol[contains(@class, "author-list-full")]/li')
    assert len(first) == 500
    assert (first[0].get("value"), first[0].text_content().strip()) == ("1", "Shaden Smith")
    last_page = _tree(client.get(url, {"page": 6})).xpath('//ol[contains(@class, "author-list-full")]/li')
    assert len(last_page) == 500
    assert (last_page[-1].get("value"), last_page[-1].text_content().strip()) == ("3000", "Alexandre Sukhov")
    assert client.get(url, {"page": 7}).status_code == 404
    assert client.get(url, {"page": "x"}).status_code == 404


def test_full_list_redirects_a_wrong_slug_to_its_canonical_form(mega, client):
    response = client.get(f"/papers/{mega.arxiv_id}-wrong-slug/authors")
    assert response.status_code == 301
    assert response["Location"] == f"{mega.get_absolute_url()}/authors"


def test_an_ordinary_paper_shows_all_its_authors_and_no_link(client):
    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    paper = Paper.objects.get(arxiv_id="0801.4566")  # Li, Song, Strominger
    tree = _tree(client.get(paper.get_absolute_url()))
    assert [li.text_content().strip() for li in tree.xpath('//ol[@class="author-list"]/li')] == [
        "Wei Li",
        "Wei Song",
        "Andrew Strominger",
    ]
    assert tree.xpath('//p[@class="author-more"]') == []
    assert len(_article(tree)["author"]) == 3


def test_the_cached_author_list_follows_a_moved_link(mega, client, settings):
    """The complete list (JSON-LD, citation tags) of a long author list is cached; moving
    one author's link to another researcher shows on the next render."""
    researchers_match_local()
    url = mega.get_absolute_url()
    before = _article(_tree(client.get(url)))["author"][0]
    link = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=1)
    other = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=2).researcher
    assert before["url"] == f"{settings.SITE_URL}{link.researcher.get_absolute_url()}"
    Authorship.objects.filter(pk=link.pk).update(researcher=other)
    after = _article(_tree(client.get(url)))["author"][0]
    assert after["url"] == f"{settings.SITE_URL}{other.get_absolute_url()}"


def test_the_cached_author_list_follows_two_links_swapping_researchers(mega, client, settings):
    """Two links that swap researchers keep the links' count and the sum of their researcher
    ids: the cache key reads the newest ``modified_at`` too (before: ``created_at``, which a
    swap keeps, so the old list was served for 5 minutes)."""
    researchers_match_local()
    url = mega.get_absolute_url()
    client.get(url)  # fills the cache
    first = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=1)
    second = Authorship.objects.select_related("researcher").get(paper=mega, slot__position=2)
    now = timezone.now()
    Authorship.objects.filter(pk=first.pk).update(researcher=second.researcher, modified_at=now)
    Authorship.objects.filter(pk=second.pk).update(researcher=first.researcher, modified_at=now)
    authors = _article(_tree(client.get(url)))["author"]
    assert authors[0]["url"] == f"{settings.SITE_URL}{second.researcher.get_absolute_url()}"
    assert authors[1]["url"] == f"{settings.SITE_URL}{first.researcher.get_absolute_url()}"
