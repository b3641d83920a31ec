"""The follow flow in a real browser (Debian's Chromium): sign up, verify the address from the
e-mail, follow a researcher with JavaScript off, see their papers on the Following page."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from accounts.models import Follow
from tests.accounts.conftest import PASSWORD
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def nojs_page(browser):  # noqa: F811
    """A browser page with JavaScript disabled: every step must work as plain HTML forms."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    yield page
    context.close()


def test_sign_up_verify_follow_and_see_the_feed(live_server, nojs_page, archive, settings):
    # The live server speaks plain http: cookies marked Secure would not come back.
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    page = nojs_page
    aickelin = archive["aickelin"]

    page.goto(live_server.url + "/accounts/signup/")
    page.fill("input[name=email]", "mei@example.org")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    screenshot(page, "accounts-signup")
    page.click("main button[type=submit]")
    page.wait_for_load_state()
    assert page.url.endswith("/accounts/confirm-email/")
    assert page.locator("h1").inner_text() == "Verify your e-mail address"
    assert "Confirmation email sent to mei@example.org." in page.locator("main").inner_text()

    # The verification e-mail (locmem backend under tests; console in development).
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["mei@example.org"]
    path = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.outbox[0].body).group(1)
    page.goto(live_server.url + path)
    assert "mei@example.org" in page.locator("main").inner_text()
    page.click("main button[type=submit]")  # Confirm (a POST, so mail scanners cannot confirm)
    page.wait_for_load_state()
    assert page.url.endswith("/accounts/following")  # signed in on confirmation
    assert "You do not follow anything yet." in page.locator("main").inner_text()

    # Follow from the researcher page: a plain form POST with its CSRF token.
    page.goto(live_server.url + aickelin.get_absolute_url())
    button = page.locator("form.follow button[type=submit]")
    assert button.inner_text().strip() == "Follow"
    screenshot(page, "accounts-researcher-follow")
    button.click()
    page.wait_for_load_state()
    assert page.url == live_server.url + aickelin.get_absolute_url()
    assert page.locator("form.follow button[type=submit]").inner_text().startswith("Following")
    # The page followed from says so (issue 32: the message waited for /accounts/following).
    assert page.locator(".site-messages").inner_text() == "You now follow Uwe Aickelin."
    screenshot(page, "accounts-researcher-followed")
    assert list(Follow.objects.values_list("researcher_id", flat=True)) == [aickelin.pk]

    # The Following page: the researcher and their six papers, newest first.
    page.goto(live_server.url + "/accounts/following")
    main = page.locator("main")
    assert "You now follow" not in main.inner_text()  # shown once, where it happened
    assert page.locator(".follow-list a").all_inner_texts() == ["Uwe Aickelin"]
    ids = [text.removeprefix("arXiv:") for text in page.locator(".paper-item-meta .mono").all_inner_texts()]
    assert ids == ["0801.4119", "0801.4314", "0801.4312", "0801.4307", "0801.4287", "0801.3971"]
    screenshot(page, "accounts-following")

    # The private feed: create its address, read it as a feed reader would.
    page.click("text=change, or get a private RSS feed")
    page.wait_for_load_state()
    page.click("text=Create my feed address")
    page.wait_for_load_state()
    feed_url = page.input_value("input.feed-url")
    assert feed_url.startswith(live_server.url + "/accounts/feed/") and feed_url.endswith(".xml")
    screenshot(page, "accounts-settings")
    response = page.request.get(feed_url)
    assert response.status == 200
    assert response.text().count("<item>") == 6
    assert "<title>Strategic Alert Throttling for Intrusion Detection Systems</title>" in response.text()

    # Unfollow from the Following page.
    page.goto(live_server.url + "/accounts/following")
    page.click(".follow-list button[type=submit]")
    page.wait_for_load_state()
    assert "You no longer follow Uwe Aickelin." in page.locator("main").inner_text()
    assert not Follow.objects.exists()
