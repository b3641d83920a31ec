"""Claim your profile in a real browser (issue 31, Debian's Chromium): sign in with ORCID at
the stand-in, claim the profile holding the iD, reject a paper, and see the public page change.

The archive is the 13 real papers of ``tests/accounts/conftest.py``; Uwe Aickelin's record
(six papers) is given Josiah Carberry's iD, ORCID's fictitious test identity, whom the
stand-in signs in.
"""

from __future__ import annotations

import pytest

from papers.models import Paper
from researchers.models import Researcher
from tests.accounts.conftest import archive
from tests.conftest import screenshot
from tests.curation.conftest import signing_key_file
from tests.orcid_standin import orcid_standin

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["archive", "signing_key_file"]  # fixtures used here (signing_key_file: autouse)

CARBERRY = "0000-0002-1825-0097"


def test_sign_in_with_orcid_claim_and_reject_a_paper(live_server, page, browser, archive, settings):
    # The live server speaks plain http: cookies marked Secure would not come back, and
    # allauth must give ORCID an http callback.
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http"
    aickelin = archive["aickelin"]
    Researcher.objects.filter(pk=aickelin.pk).update(orcid=CARBERRY)
    rejected = Paper.objects.get(arxiv_id="0801.4307")
    with orcid_standin() as standin:
        for name, value in standin.settings_for().items():
            setattr(settings, name, value)
        # As settings.py does for orcid.org: the sign-in form's redirect goes to ORCID.
        settings.CONTENT_SECURITY_POLICY = settings.CONTENT_SECURITY_POLICY.replace(
            "form-action 'self'", f"form-action 'self' {standin.base}"
        )
        page.goto(live_server.url + "/accounts/login/")
        screenshot(page, "orcid-sign-in-button")
        page.click("form.orcid-form button[type=submit]")
        page.wait_for_url("**/accounts/claims/")
    main = page.locator("main").inner_text()
    assert f"You signed in with ORCID iD {CARBERRY}." in main
    assert "Uwe Aickelin holds your iD: claim it now, no review needed." in main
    screenshot(page, "orcid-claims-offer")

    page.click("main button:has-text('Claim Uwe Aickelin')")
    page.wait_for_url(f"**{aickelin.get_absolute_url()}")
    assert page.locator(".badge-claimed").inner_text() == "claimed by the researcher"
    assert "You have claimed Uwe Aickelin: your ORCID iD proves it." in page.locator("body").inner_text()

    page.click("text=mark your papers")
    row = page.locator(f"li:has(a[href='{rejected.get_absolute_url()}'])")
    row.locator("button:has-text('Not mine')").click()
    page.wait_for_load_state()
    assert "Removed from your profile; matching will not bring it back." in page.locator("body").inner_text()
    assert page.locator("ul.owner-papers > li").count() == 5
    screenshot(page, "orcid-owner-papers")

    # The public page, as a visitor: claimed, five papers, the rejected one gone.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    visitor = context.new_page()
    visitor.goto(live_server.url + aickelin.get_absolute_url())
    assert visitor.locator(".badge-claimed").inner_text() == "claimed by the researcher"
    body = visitor.locator("main").inner_text()
    assert "5 papers here" in body
    assert visitor.locator(f"a[href='{rejected.get_absolute_url()}']").count() == 0
    assert "A paper rejected by the researcher" in body
    screenshot(visitor, "orcid-public-profile")
    context.close()
