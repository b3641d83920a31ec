"""The account itself: sign-up with e-mail verification, sign-in, e-mail and password pages,
export as JSON, deletion."""

from __future__ import annotations

import json
import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts import services
from accounts.models import AccountSettings, Digest, DigestNote, DigestPaper, Follow
from accounts.saved_searches import saved_search_save
from papers.models import Category
from tests.accounts.conftest import PASSWORD, backdate_follows

pytestmark = pytest.mark.django_db


def test_sign_up_requires_a_verified_address(client):
    response = client.post(
        "/accounts/signup/", {"email": "lin@example.org", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm-email/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["lin@example.org"]
    assert message.subject == "[wovepaper] Please Confirm Your Email Address"
    assert message.body.startswith("Hello from wovepaper!")
    link = re.search(r"https?://testserver(/accounts/confirm-email/[^/\s]+/)", message.body).group(1)

    # Not verified: signing in is refused (sent to verification again).
    client.logout()
    response = client.post("/accounts/login/", {"login": "lin@example.org", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert client.get("/accounts/following").status_code == 302

    html = client.get(link).content.decode()
    assert "lin@example.org" in html
    response = client.post(link)
    assert response.status_code == 302
    assert EmailAddress.objects.get(email="lin@example.org").verified
    assert client.get("/accounts/following").status_code == 200


def test_sign_in_and_out(reader, client):
    response = client.post("/accounts/login/", {"login": "ada@example.org", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/accounts/following"
    html = client.get("/accounts/following").content.decode()
    assert "ada@example.org" in html
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/following").status_code == 302


def test_account_pages_render_in_the_site_layout(follower):
    visitor = Client()  # the visitor fixture is the same client as follower
    pages = [
        (follower, "/accounts/password/change/", "Change Password"),
        (follower, "/accounts/email/", "Email Address"),
        (visitor, "/accounts/login/", "Sign In"),
        (visitor, "/accounts/signup/", "Sign Up"),
        (visitor, "/accounts/password/reset/", "Password Reset"),
    ]
    for client, url, heading in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        flat = re.sub(r"\s+", " ", html)
        assert f"<h1> {heading} </h1>" in flat, url
        assert " · wovepaper</title>" in flat, url
        assert 'class="site-header"' in html, url
        assert '<meta name="robots" content="noindex, nofollow">' in html, url


def test_password_reset_mails_a_link(reader, client):
    response = client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert "/accounts/password/reset/key/" in mail.outbox[0].body


def test_export_holds_everything_stored(archive, follower, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    services.follow_create(user_id=reader.pk, target=Category.objects.get(code="cs.NE"))
    backdate_follows(reader)
    services.digest_run(user_id=reader.pk)
    saved_search_save(user_id=reader.pk, data={"name": "Imaging", "q": "ultrasound", "category": "cs.OH"})
    token = services.feed_token_regenerate(user_id=reader.pk)
    response = follower.get("/accounts/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="wovepaper-account.json"'
    data = json.loads(response.content)
    assert sorted(data) == [
        "digests",
        "email_addresses",
        "exported_at",
        "follows",
        "pending_notes",
        "saved_searches",
        "settings",
        "user",
    ]
    assert data["user"]["email"] == "ada@example.org"
    assert data["email_addresses"] == [{"email": "ada@example.org", "verified": True, "primary": True}]
    assert data["settings"]["digest_frequency"] == "weekly"
    assert data["settings"]["private_feed_url"].endswith(f"/accounts/feed/{token}.xml")
    assert sorted((f["kind"], f["name"]) for f in data["follows"]) == [
        ("category", "Neural and Evolutionary Computing"),
        ("researcher", "Uwe Aickelin"),
    ]
    assert [(s["name"], s["terms"]) for s in data["saved_searches"]] == [("Imaging", "“ultrasound” in cs.OH")]
    # Aickelin's six papers are all cs.NE: one digest of six.
    assert len(data["digests"]) == 1
    assert data["digests"][0]["papers"] == [
        "0801.3971",
        "0801.4119",
        "0801.4287",
        "0801.4307",
        "0801.4312",
        "0801.4314",
    ]


def test_delete_account_removes_everything(archive, follower, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    services.digest_run(user_id=reader.pk)
    services.follows_note_split(researcher_id=archive["aickelin"].pk, new_researcher_ids=[])
    assert DigestPaper.objects.filter(user=reader).count() == 6

    response = follower.post("/accounts/delete", {"password": "wrong"})
    assert response.status_code == 200
    assert "That is not your password." in response.content.decode()
    assert get_user_model().objects.filter(pk=reader.pk).exists()

    response = follower.post("/accounts/delete", {"password": PASSWORD})
    assert response.status_code == 303 and response["Location"] == "/"
    assert not get_user_model().objects.filter(pk=reader.pk).exists()
    for model in (Follow, AccountSettings, Digest, DigestNote, EmailAddress):
        assert not model.objects.exists(), model
    assert not DigestPaper.objects.exists()
    assert follower.get("/accounts/following").status_code == 302  # signed out


def test_admin_lists_account_models(archive, admin_client, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    services.digest_run(user_id=reader.pk)
    services.feed_token_regenerate(user_id=reader.pk)
    token = AccountSettings.objects.get(user=reader).feed_token
    for model in ("follow", "accountsettings", "digest", "digestnote"):
        response = admin_client.get(f"/admin/accounts/{model}/")
        assert response.status_code == 200, model
    digest = Digest.objects.get(user=reader)
    html = admin_client.get(f"/admin/accounts/digest/{digest.pk}/change/").content.decode()
    assert "0801.4119" in html
    settings_row = AccountSettings.objects.get(user=reader)
    html = admin_client.get(f"/admin/accounts/accountsettings/{settings_row.pk}/change/").content.decode()
    assert token not in html  # the secret feed token is never shown


def test_header_link_for_visitors_and_readers(rf, reader):
    from django.contrib.auth.models import AnonymousUser
    from django.template.loader import render_to_string

    request = rf.get("/papers/?category=cs.NE")
    request.user = AnonymousUser()
    html = render_to_string(
        "accounts/includes/header_account.html", {"user": request.user, "request": request}
    )
    assert html.strip().endswith('<a href="/accounts/login/?next=/papers/%3Fcategory%3Dcs.NE">Sign in</a>')
    request.user = reader
    html = render_to_string("accounts/includes/header_account.html", {"user": reader, "request": request})
    assert html.strip().endswith('<a href="/accounts/following">Following</a>')


def test_change_email_keeps_the_old_address_until_the_new_one_is_verified(follower, reader):
    response = follower.post("/accounts/email/", {"action_add": "", "email": "ada@lovelace.example"})
    assert response.status_code == 302
    assert mail.outbox[-1].to == ["ada@lovelace.example"]
    # Digests still go to the verified address until the new one is confirmed.
    assert services.digest_address(reader.pk) == "ada@example.org"
    link = re.search(r"https?://testserver(/accounts/confirm-email/[^/\s]+/)", mail.outbox[-1].body).group(1)
    follower.post(link)
    assert services.digest_address(reader.pk) == "ada@lovelace.example"
    assert list(EmailAddress.objects.filter(user=reader).values_list("email", flat=True)) == [
        "ada@lovelace.example"
    ]


def test_admin_index_has_no_two_sections_of_one_name(admin_client):
    # Issue 32: allauth's e-mail addresses app and ours were both titled "Accounts".
    html = admin_client.get("/admin/").content.decode()
    titles = re.findall(r'<a href="/admin/[a-z_]+/" class="section" title="[^"]*">([^<]+)</a>', html)
    assert len(titles) == len(set(titles)), titles
    assert {"Accounts", "Follows and digests"} <= set(titles)


def test_admin_index_links_the_editors_queues(admin_client):
    # Issue 32: the same-name queue and the unconfirmed links were reachable only by URL.
    response = admin_client.get("/admin/")
    html = response.content.decode()
    assert "<caption>Curation work</caption>" in html
    assert '<a href="/admin/curation/queue/">Same-name queue</a>' in html
    assert '<a href="/admin/curation/unconfirmed/">Unconfirmed links</a>' in html
    for url in ("/admin/curation/queue/", "/admin/curation/unconfirmed/"):
        assert admin_client.get(url).status_code == 200
