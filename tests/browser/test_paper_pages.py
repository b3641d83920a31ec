"""The paper pages in a real browser: home, list, a paper, a redirect, the 404 page."""

import pytest

from papers import harvest
from tests.browser.conftest import screenshot
from tests.conftest import FIXTURES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OAI = FIXTURES / "arxiv" / "oai"


def test_browse_home_to_paper(live_server, page):
    harvest.harvest_files(
        paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml", OAI / "inspirenext_oai_arxiv.xml"]
    )
    page.goto(live_server.url + "/")
    assert page.title().startswith("wovepaper")
    assert page.locator("h2", has_text="Latest papers").is_visible()
    screenshot(page, "home")

    page.click("text=A Study of Structure Formation and Reheating")
    page.wait_for_load_state()
    assert page.url.endswith(
        "/papers/0801.3674-a-study-of-structure-formation-and-reheating-in-the-d3-d7-brane-inflation-model"
    )
    assert page.locator("h1").inner_text().startswith("A Study of Structure Formation")
    assert page.locator(".author-list li").count() == 3
    assert page.get_attribute("a:has-text('PDF on arXiv')", "href") == "https://arxiv.org/pdf/0801.3674"
    screenshot(page, "paper")


def test_old_style_id_redirects_in_browser(live_server, page):
    harvest.harvest_files(paths=[OAI / "inspirenext_oai_arxiv.xml"])
    page.goto(live_server.url + "/papers/physics/0112006")
    assert "/papers/physics/0112006-" in page.url
    assert page.locator(".author-list li").first.inner_text().startswith("G. Fiorentini")


def test_not_found_page_guides_the_visitor(live_server, page):
    response = page.goto(live_server.url + "/papers/2401.10241")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "arXiv:2401.10241 is not in the archive yet"
    assert page.locator("text=Where to look next").is_visible()
    screenshot(page, "not-found")
