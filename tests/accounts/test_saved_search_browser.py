"""In a real browser (issue 31): sign in, save a search from the search page, edit it on its
own page, and see its preview list the paper a later harvest brings; axe-core finds nothing
serious on the saved search's page."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from accounts.models import SavedSearch
from tests.accounts.conftest import LATER_XML, PASSWORD, harvest, make_reader
from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_save_edit_and_preview_a_search(page, live_server, archive):
    reader = make_reader("ada@example.org")
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=login]", "ada@example.org")
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/accounts/login/'] button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login" not in url)

    page.goto(live_server.url + "/search?q=ultrasound")
    assert page.input_value("#save-search-name") == "“ultrasound”"
    page.fill("#save-search-name", "Ultrasound")
    page.click("form.save-search button[type=submit]")
    page.wait_for_selector("h1:has-text('Ultrasound')")
    saved = SavedSearch.objects.get(user=reader)
    assert page.url == f"{live_server.url}/accounts/saved-searches/{saved.pk}"
    # Saved after the archive's harvest: nothing new yet.
    assert page.get_attribute("[data-preview-count]", "data-preview-count") == "0"

    # Edit: the words of a paper the next harvest brings (0801.4549, "Simplified measurement of
    # the Bell parameter within quantum mechanics", quant-ph), in its category.
    page.fill("#id_name", "Bell tests")
    page.fill("#id_q", '"Bell parameter"')
    page.fill("#id_category", "quant-ph")
    page.click("form.saved-search-form button[type=submit]")
    page.wait_for_selector("h1:has-text('Bell tests')")
    assert page.get_attribute("[data-preview-count]", "data-preview-count") == "0"

    harvest(LATER_XML)
    page.reload()
    assert page.get_attribute("[data-preview-count]", "data-preview-count") == "1"
    assert page.locator(".saved-search-preview a[href^='/papers/0801.4549']").count() >= 1
    screenshot(page, "saved-search-preview")
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []

    page.goto(live_server.url + "/accounts/following")
    row = page.locator(f"[data-saved-search='{saved.pk}']")
    assert "Bell tests" in row.inner_text() and '“"Bell parameter"” in quant-ph' in row.inner_text()
    # The private feed and the following list hold the new paper too.
    assert page.locator("a[href^='/papers/0801.4549']").count() >= 1
    screenshot(page, "following-saved-searches")
