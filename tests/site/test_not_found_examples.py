"""The 404 page, its Markdown form and llms.txt name papers this archive holds as URL
examples (issue 21: the page's example /papers/2401.10241 was itself a 404 in the sample)."""

from __future__ import annotations

import re

import pytest

from papers.examples import url_examples_forget
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

OAI = FIXTURES / "arxiv" / "oai"
# Real records: 1401.2122 and 2310.04417 (new-style identifiers), physics/0112006 (old-style).
RECORDS = ["hepcrawl_arxiv-single.xml", "edited_arXiv_2310.04417.xml", "inspirenext_oai_arxiv.xml"]


@pytest.fixture(autouse=True)
def _fresh_examples():
    url_examples_forget()
    yield
    url_examples_forget()


@pytest.fixture
def three_papers(db):
    from papers import harvest

    harvest.harvest_files(paths=[OAI / name for name in RECORDS])


def _example_links(html: str) -> list[str]:
    forms = html.split('<dl class="url-forms">', 1)[1].split("</dl>", 1)[0]
    return re.findall(r'<a href="(/papers/[^"]+)"', forms)


def test_404_examples_are_papers_held_here(client, three_papers):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    links = _example_links(response.content.decode())
    assert links == ["/papers/2310.04417", "/papers/physics/0112006"]
    for link in links:
        assert client.get(link, follow=True).status_code == 200, link
    assert "2401.10241" not in response.content.decode()


def test_markdown_404_and_llms_txt_name_the_same_papers(client, three_papers):
    from papers.models import Paper

    url = Paper.objects.get(arxiv_id="2310.04417").get_absolute_url()
    markdown = client.get("/no-such-page", HTTP_ACCEPT="text/markdown").content.decode()
    llms = client.get("/llms.txt").content.decode()
    for text in (markdown, llms):
        assert f"e.g. `{url}`" in text
        assert "(`/papers/<archive>/<number>`, e.g. `/papers/physics/0112006`)" in text
        assert "2401.10241" not in text and "xinyi-wan" not in text
    assert client.get(url).status_code == 200


def test_empty_archive_404_has_no_dead_example(client):
    html = client.get("/no-such-page").content.decode()
    assert _example_links(html) == []
    # Issue 32: the fallback named astro-ph/9901001, itself a 404 here; now the pattern alone.
    pattern = "<code>/papers/&lt;archive&gt;/&lt;number&gt;</code>"
    assert f"The id alone works and redirects. The old-style {pattern} form too." in html
    assert "9901001" not in html and "03yrm5c26" not in html


def test_examples_are_cached(three_papers, django_assert_num_queries):
    from papers.selectors import example_papers

    with django_assert_num_queries(3):  # one index scan per example (newest, old style, oldest)
        first = example_papers()
    with django_assert_num_queries(0):
        assert example_papers() == first
    assert first["old"] == {"arxiv_id": "physics/0112006", "url": first["old"]["url"]}
