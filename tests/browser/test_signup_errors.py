"""In a real browser, a weak password's errors look like errors, not like the help text
beside them (issue 32), and axe-core finds nothing serious on the page."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_password_errors_stand_apart_from_the_help(page, live_server):
    page.goto(live_server.url + "/accounts/signup/")
    page.fill("#id_email", "lin@example.org")
    page.fill("#id_password1", "abc")
    page.fill("#id_password2", "abc")
    page.click("form[action='/accounts/signup/'] button[type=submit]")
    page.wait_for_selector("#id_password1_error")
    style = page.evaluate(
        """() => {
        const read = (el, pseudo) => getComputedStyle(el, pseudo || null);
        const error = document.querySelector('#id_password1_error');
        const help = document.querySelector('#id_password1_helptext');
        const item = error.querySelector('li');
        return {
          error: read(error).color, help: read(help).color,
          errorSize: parseFloat(read(error).fontSize), helpSize: parseFloat(read(help).fontSize),
          bar: read(error).borderLeftColor, prefix: read(item, '::before').content,
          text: error.innerText,
        };
    }"""
    )
    screenshot(page, "signup-weak-password")
    assert style["error"] == "rgb(160, 33, 33)" and style["bar"] == "rgb(160, 33, 33)"
    assert style["help"] != style["error"]
    assert style["errorSize"] > style["helpSize"]
    assert style["prefix"] == '"Error: "'
    field = page.locator("#id_password1")
    assert field.get_attribute("aria-invalid") == "true"
    assert "id_password1_error" in field.get_attribute("aria-describedby")
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []
