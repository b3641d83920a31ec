"""Sign-up tells a new reader where the confirmation link went, and its errors read as
errors (issue 32: on a local install the link is only in `make run`'s console, which no page
said; a weak password's errors were in the small grey type of the help text)."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db

CONSOLE = "django.core.mail.backends.console.EmailBackend"
SMTP_LIKE = "django.core.mail.backends.locmem.EmailBackend"  # any backend that sends


def _sign_up(client, email: str) -> str:
    response = client.post(
        "/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}, follow=True
    )
    assert response.redirect_chain == [("/accounts/confirm-email/", 302)]
    return response.content.decode()


@override_settings(EMAIL_BACKEND=CONSOLE)
def test_a_local_install_says_the_link_is_in_the_console(client, capsys):
    html = _sign_up(client, "lin@example.org")
    assert "The message, with its link, is printed in the console running <code>make run</code>" in html
    assert '<p class="banner banner-ok">Confirmation email sent to lin@example.org.</p>' in html
    # ... and it is there: the console backend wrote the mail, link and all, to stdout.
    printed = capsys.readouterr().out
    assert "To: lin@example.org" in printed
    assert re.search(r"https?://testserver/accounts/confirm-email/\S+/", printed), printed


@override_settings(EMAIL_BACKEND=SMTP_LIKE)
def test_a_server_that_sends_mail_names_only_the_address(client):
    html = _sign_up(client, "lin@example.org")
    assert "Confirmation email sent to lin@example.org." in html
    assert "make run" not in html and 'data-mail="console"' not in html
    assert "look in your spam folder" in html


def test_a_weak_password_is_marked_as_an_error(client):
    response = client.post(
        "/accounts/signup/", {"email": "lin@example.org", "password1": "abc", "password2": "abc"}
    )
    html = response.content.decode()
    errors = re.search(r'<ul class="errorlist" id="id_password1_error">(.*?)</ul>', html).group(1)
    assert errors == (
        "<li>This password is too short. It must contain at least 8 characters.</li>"
        "<li>This password is too common.</li>"
    )
    field = re.search(r'<input type="password" name="password1"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="id_password1_helptext id_password1_error"' in field
