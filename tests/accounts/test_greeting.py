"""Accounts are named by their e-mail address, never by the username allauth derives from
it (issue 21: pages greeted "newcomer" though sign-up asks only for an e-mail)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.display import user_display
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_sign_up_confirm_and_greeting_name_the_address(client):
    client.post(
        "/accounts/signup/",
        {"email": "newcomer@example.org", "password1": PASSWORD, "password2": PASSWORD},
    )
    user = get_user_model().objects.get(email="newcomer@example.org")
    assert user.username == "newcomer"  # what allauth derived, and what was shown
    body = mail.outbox[0].body
    assert "user newcomer@example.org has given your email address" in body
    link = re.search(r"https?://testserver(/accounts/confirm-email/[^/\s]+/)", body).group(1)
    page = client.get(link).content.decode()
    assert "is an email address for user newcomer@example.org." in page
    response = client.post(link, follow=True)
    greeted = response.content.decode()
    assert "Successfully signed in as newcomer@example.org." in greeted
    for html in (page, greeted):
        assert not re.search(r"\bnewcomer\b(?!@)", html)


def test_refused_and_403_pages_name_the_address(client):
    user = get_user_model().objects.create_user("newcomer", "newcomer@example.org", PASSWORD)
    client.force_login(user)
    html = client.get("/admin/curation/queue/").content.decode()
    assert "You are signed in as newcomer@example.org," in html


def test_a_full_name_wins_when_set():
    user = get_user_model()(username="ed", email="ed@example.org", first_name="Edith", last_name="Editor")
    assert user_display(user) == "Edith Editor"
    assert user_display(get_user_model()(username="ed", email="")) == "ed"
