"""The public site in a real browser (Debian's Chromium through Playwright): home, search
with autocomplete and filters, a paper, a researcher, an institution, the CMS pages, a
phone-sized screen. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json

import pytest

from institutions.models import AuthorAffiliation, Institution, InstitutionName
from papers import harvest
from papers.models import Paper
from researchers.models import Authorship, Researcher
from tests.conftest import screenshot
from tests.site.conftest import OAI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def linked():
    """Nine real papers; the first author of the lowest id (0801.3673, Naoum C. Bacalis)
    linked as a researcher, and an institution linked to that author slot."""
    from papers.affiliations import normalize

    harvest.harvest_files(
        paths=[
            OAI / "edited_arXivRaw_ListRecords_page1.xml",
            OAI / "edited_arXivRaw_ListRecords_page2.xml",
            OAI / "hepcrawl_arxiv-physics-hep-th.xml",
            OAI / "inspirenext_oai_arxiv.xml",
        ]
    )
    paper = Paper.objects.order_by("arxiv_id").first()
    slot = paper.authors.order_by("position").first()
    researcher = Researcher.objects.create(display_name=slot.name, paper_count=1)
    Authorship.objects.create(
        slot=slot, paper=paper, researcher=researcher, method="editor", confidence=1, block="x"
    )
    institution = Institution.objects.create(
        ror_id="05dxps055", name="California Institute of Technology", country_code="US",
        country_name="United States", city="Pasadena",
    )  # fmt: skip
    InstitutionName.objects.create(
        institution=institution,
        kind="ror_display",
        value=institution.name,
        normalized=normalize(institution.name),
    )
    AuthorAffiliation.objects.create(slot=slot, institution=institution, source="ror-id", confidence=1)
    return {"paper": paper, "researcher": researcher, "institution": institution}


def test_home_search_paper_researcher_institution(live_server, page, linked):
    paper, researcher, institution = linked["paper"], linked["researcher"], linked["institution"]
    page.goto(live_server.url + "/")
    assert page.title() == "wovepaper · research, woven together"
    assert page.locator(".counts li").first.inner_text().replace("\n", " ") == "9 papers"
    assert page.locator("article.paper-item").count() == 9
    screenshot(page, "site-home")

    # Autocomplete: type part of the researcher's name, pick the suggestion with the keyboard.
    surname = researcher.display_name.split()[-1]
    page.fill("#home-q", surname[:4])
    option = page.locator("#home-q ~ .suggest-list [role=option]").first
    option.wait_for()
    assert researcher.display_name in option.inner_text()
    screenshot(page, "site-autocomplete")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**" + researcher.get_absolute_url())
    assert page.locator("h1").first.inner_text().strip().startswith(researcher.display_name)
    screenshot(page, "site-researcher")

    # Search: a query, a facet, then the paper.
    page.goto(live_server.url + "/")
    page.fill("#home-q", "brane")
    page.press("#home-q", "Enter")
    page.wait_for_url("**/search?q=brane")
    results = page.locator("article.paper-item")
    assert results.count() >= 2
    assert "papers" in page.locator(".results-bar [role=status]").inner_text()
    screenshot(page, "site-search")
    page.locator(".facet-list a", has_text="hep-th").first.click()
    page.wait_for_url("**category=hep-th**")
    assert page.locator(".chip", has_text="hep-th").is_visible()

    page.goto(live_server.url + f"/search?institution={institution.pk}")
    assert page.locator("article.paper-item").count() == 1
    page.locator("article.paper-item h3 a").click()
    page.wait_for_url("**" + paper.get_absolute_url())
    assert page.locator("h1.paper-title").is_visible()
    assert page.locator(".author-list a", has_text=researcher.display_name).is_visible()
    data = [json.loads(t) for t in page.locator("script[type='application/ld+json']").all_text_contents()]
    types = {n["@type"] for block in data for n in block["@graph"]}
    assert {"Organization", "WebSite", "ScholarlyArticle", "BreadcrumbList"} <= types
    assert page.get_attribute("a.button:has-text('BibTeX')", "href") == f"/papers/{paper.arxiv_id}/export.bib"
    screenshot(page, "site-paper")

    page.goto(live_server.url + institution.get_absolute_url())
    assert "California Institute of Technology" in page.locator("h1").first.inner_text()
    screenshot(page, "site-institution")


def test_cms_pages_and_not_found_in_browser(live_server, page, cms_pages):
    for path, name in (
        ("/about", "site-about"),
        ("/developers", "site-developers"),
        ("/contact", "site-contact"),
    ):
        response = page.goto(live_server.url + path)
        assert response.status == 200
        assert page.locator("h1").is_visible()
        screenshot(page, name)
    page.fill("#id_your_name", "Ada")
    page.fill("#id_email", "ada@example.org")
    page.select_option("#id_topic", "API and data")
    page.fill("#id_message", "Hello from a real browser.")
    page.click("button:has-text('Send message')")
    assert page.locator("h1").inner_text() == "Message sent"
    response = page.goto(live_server.url + "/papers/2401.10241")
    assert response.status == 404
    assert page.locator("button", has_text="Fetch arXiv:2401.10241").is_visible()
    screenshot(page, "site-not-found")


def test_phone_layout(live_server, browser, linked):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + "/search?q=brane")
        # Nothing wider than the screen: no sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.locator("article.paper-item").first.is_visible()
        screenshot(page, "site-search-phone")
        page.goto(live_server.url + linked["paper"].get_absolute_url())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "site-paper-phone")
    finally:
        context.close()
