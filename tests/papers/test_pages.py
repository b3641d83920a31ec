"""Paper pages: every redirect rule, 404 in HTML and Markdown, 410, and the page content."""

import pytest

from papers import harvest
from papers.models import Paper
from tests.conftest import FIXTURES

OAI = FIXTURES / "arxiv" / "oai"
CANONICAL_0801_3674 = (
    "/papers/0801.3674-a-study-of-structure-formation-and-reheating-in-the-d3-d7-brane-inflation-model"
)


@pytest.fixture
def few_papers(db):
    harvest.harvest_files(
        paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml", OAI / "inspirenext_oai_arxiv.xml"]
    )


@pytest.mark.parametrize(
    "path",
    [
        "/papers/0801.3674",
        "/papers/0801.3674v2",
        "/papers/arXiv:0801.3674",
        "/papers/arxiv:0801.3674v4",
        "/papers/0801.3674-wrong-slug",
        "/papers/0801.3674v1-a-study",
    ],
)
def test_every_other_form_redirects_permanently_to_canonical(visitor, few_papers, path):
    response = visitor.get(path)
    assert response.status_code == 301
    assert response["Location"] == CANONICAL_0801_3674


@pytest.mark.parametrize(
    "path",
    [
        "/papers/0801.3674/authors",
        "/papers/0801.3674v2/authors",
        "/papers/arXiv:0801.3674/authors",
        "/papers/0801.3674-wrong-slug/authors",
    ],
)
def test_the_author_list_redirects_from_every_other_form(visitor, few_papers, path):
    # Issue 32: the paper page and export.bib took the bare id, /authors answered 404.
    response = visitor.get(path)
    assert (response.status_code, response["Location"]) == (301, CANONICAL_0801_3674 + "/authors")
    assert visitor.get(response["Location"]).status_code == 200


def test_the_author_list_redirect_keeps_the_page_and_knows_unknown_ids(visitor, few_papers):
    response = visitor.get("/papers/0801.3674/authors?page=1")
    assert response["Location"] == CANONICAL_0801_3674 + "/authors?page=1"
    assert visitor.get("/papers/physics/0112006/authors")["Location"].startswith("/papers/physics/0112006-")
    assert visitor.get("/papers/0801.9999/authors").status_code == 404


def test_the_sample_paper_0801_4375_author_list_by_its_bare_id(visitor, sample_papers):
    response = visitor.get("/papers/0801.4375/authors", follow=True)
    assert response.redirect_chain == [
        (
            "/papers/0801.4375-measurement-of-ratios-of-fragmentation-fractions-for-bottom-hadrons-in-p-pbar"
            "/authors",
            301,
        )
    ]
    assert response.status_code == 200


def test_a_version_the_sample_paper_lacks_gets_the_404_page(visitor, sample_papers):
    """0801.4566 has v1 and v2 in the sample's arXivRaw record: /papers/0801.4566v9 answered
    301 to the paper, and its export gave the BibTeX."""
    canonical = "/papers/0801.4566-chiral-gravity-in-three-dimensions"
    for path in (
        "/papers/0801.4566v9",
        "/papers/0801.4566v9-chiral-gravity-in-three-dimensions",
        "/papers/0801.4566v3/authors",
        "/papers/0801.4566v3/export.bib",
    ):
        assert visitor.get(path).status_code == 404, path
    html = visitor.get("/papers/0801.4566v9").content.decode()
    assert "<h1>arXiv:0801.4566 has no version 9 here</h1>" in html
    title = "Chiral Gravity in Three Dimensions"
    assert f'The archive holds v1 to v2 of <a href="{canonical}">{title}</a>.' in html
    assert "not in the archive yet" not in html and "Fetch arXiv:" not in html
    markdown = visitor.get("/papers/0801.4566v9", HTTP_ACCEPT="text/markdown").content.decode()
    assert markdown.startswith("# Not found: arXiv:0801.4566 has no version 9 here\n")
    assert f'The archive holds v1 to v2 of "{title}": `{canonical}`.' in markdown
    for path in ("/papers/0801.4566v1", "/papers/0801.4566v2", "/papers/arXiv:0801.4566v2"):
        response = visitor.get(path)
        assert (response.status_code, response["Location"]) == (301, canonical), path
    # 0705.0239 came in the OAI arXiv format only, which lists no versions: a v2 may exist.
    response = visitor.get("/papers/0705.0239v2")
    assert response.status_code == 301
    assert response["Location"].startswith("/papers/0705.0239-pulse-shape-discrimination")


@pytest.mark.parametrize(
    "path",
    [
        "/papers/physics/0112006",
        "/papers/physics/0112006v1",
        "/papers/physics.gen-ph/0112006",
        "/papers/physics/0112006-x",
    ],
)
def test_old_style_forms_redirect_and_keep_the_slash(visitor, few_papers, path):
    response = visitor.get(path)
    assert response.status_code == 301
    assert response["Location"].startswith("/papers/physics/0112006-")


def test_canonical_page_shows_the_paper(visitor, few_papers):
    response = visitor.get(CANONICAL_0801_3674)
    assert response.status_code == 200
    html = response.content.decode()
    assert "A Study of Structure Formation and Reheating in the D3/D7 Brane Inflation Model" in html
    assert "Robert H. Brandenberger" in html and "(McGill)" in html and "(DAMTP, Cambridge)" in html
    assert 'href="https://arxiv.org/abs/0801.3674"' in html
    assert 'href="https://arxiv.org/pdf/0801.3674"' in html
    assert "23 January 2008, 21:13 UTC" in html  # v1 timestamp
    assert "v4" in html and "31 kB" in html
    assert f'<link rel="canonical" href="http://127.0.0.1:8000{CANONICAL_0801_3674}">' in html


def test_unknown_identifier_gets_the_404_page(visitor, db):
    response = visitor.get("/papers/2401.10241")
    assert response.status_code == 404
    html = response.content.decode()
    assert "arXiv:2401.10241 is not in the archive yet" in html
    # The old-style form is shown as its pattern: no archive is sure to hold astro-ph/9901001.
    assert "/papers/astro-ph/9901001" not in html
    assert "<code>/papers/&lt;archive&gt;/&lt;number&gt;</code>" in html
    assert "harvested from arXiv continuously" in html


def test_404_as_markdown_when_asked(visitor, db):
    response = visitor.get("/papers/2401.10241-zero-bubble", HTTP_ACCEPT="text/markdown")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/markdown")
    body = response.content.decode()
    assert body.startswith("# Not found: arXiv:2401.10241 is not in the archive yet")
    assert "`/researchers/<id>-<name-slug>`" in body
    assert "<html" not in body


@pytest.mark.parametrize(
    "path", ["/no/such/page", "/papers/2401.10241-zero-bubble", "/institutions/no-such-place"]
)
def test_404_varies_on_accept(visitor, db, path):
    """Issue 32: one URL answers HTML or Markdown by ``Accept``, so a shared cache must key
    on it; both answers said nothing of it."""
    html = visitor.get(path, HTTP_ACCEPT="text/html")
    markdown = visitor.get(path, HTTP_ACCEPT="text/markdown")
    assert html.status_code == markdown.status_code == 404
    assert html["Content-Type"].startswith("text/html")
    assert markdown["Content-Type"].startswith("text/markdown")
    for response in (html, markdown):
        assert "Accept" in [v.strip() for v in response["Vary"].split(",")], path


def test_site_wide_404_for_any_unknown_path(visitor, db):
    assert visitor.get("/no/such/page").status_code == 404
    markdown = visitor.get("/no/such/page", HTTP_ACCEPT="text/markdown")
    assert markdown["Content-Type"].startswith("text/markdown")


@pytest.mark.parametrize("path", ["/papers/2413.00001", "/papers/not-an-id", "/papers/0801.3674-<script>"])
def test_impossible_identifiers_are_404(visitor, few_papers, path):
    response = visitor.get(path)
    assert response.status_code in (301, 404)
    if response.status_code == 404:
        assert b"<script>" not in response.content


def test_deleted_paper_answers_410(visitor, few_papers):
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_deleted_header.xml"])
    assert visitor.get(CANONICAL_0801_3674).status_code == 410
    assert visitor.get("/papers/0801.3674").status_code == 410


def test_withdrawn_paper_stays_visible_with_a_banner(visitor, db):
    harvest.harvest_files(paths=[FIXTURES.parent.parent / "data" / "arxiv" / "oai" / "arxivsync_47001.xml"])
    paper = Paper.objects.get(arxiv_id="0801.4122")
    response = visitor.get(paper.get_absolute_url())
    assert response.status_code == 200
    assert b"has been withdrawn" in response.content


def test_harvested_html_is_escaped(visitor, few_papers):
    Paper.objects.filter(arxiv_id="0801.3674").update(title='<script>alert("x")</script> Title')
    html = visitor.get("/papers/0801.3674", follow=True).content.decode()
    assert '<script>alert("x")</script>' not in html
    assert "&lt;script&gt;" in html


def test_home_and_list_show_latest_papers(visitor, few_papers):
    home = visitor.get("/").content.decode()
    assert "Latest papers" in home
    listing = visitor.get("/papers/?category=hep-th")
    assert listing.status_code == 200
    assert b"0801.3674" in listing.content
    assert b"0801.3673" not in listing.content  # quant-ph only


@pytest.mark.parametrize(
    "path", ["/papers", "/papers/", "/researchers", "/researchers/", "/institutions", "/institutions/"]
)
def test_lists_answer_with_and_without_slash(visitor, db, path):
    # Bug: the header's /institutions link and /papers answered 404 (APPEND_SLASH is off).
    assert visitor.get(path).status_code == 200
