"""Sign in with ORCID (issue 31): allauth's ORCID provider against a stand-in on 127.0.0.1."""

from __future__ import annotations

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.orcid.views import OrcidOAuth2Adapter
from tests.accounts.orcid_flow import orcid_sign_in, use_standin
from tests.orcid_standin import CLIENT_ID, CLIENT_SECRET, orcid_standin

pytestmark = pytest.mark.django_db


def test_the_button_shows_only_with_a_client_id_and_secret(client, settings):
    settings.SOCIALACCOUNT_PROVIDERS = {"orcid": {"provider_class": "accounts.orcid.provider.OrcidProvider"}}
    for name in ("account_login", "account_signup"):
        assert "Sign in with ORCID" not in client.get(reverse(name)).text
    with orcid_standin() as standin:
        use_standin(settings, standin)
        for name in ("account_login", "account_signup"):
            page = client.get(reverse(name)).text
            assert "Sign in with ORCID" in page
            assert 'action="/accounts/orcid/login/?process=login&amp;next=%2Faccounts%2Fclaims%2F"' in page


def test_the_hosts_are_settings_and_production_keeps_orcid_org(client, settings):
    adapter = OrcidOAuth2Adapter(None)
    assert adapter.authorize_url == "https://orcid.org/oauth/authorize"
    assert adapter.access_token_url == "https://pub.orcid.org/oauth/token"
    assert (
        adapter.profile_url % "0000-0002-1825-0097" == "https://pub.orcid.org/v3.0/0000-0002-1825-0097/record"
    )
    settings.ORCID_BASE_URL = "http://127.0.0.1:9"
    assert adapter.authorize_url == "http://127.0.0.1:9/oauth/authorize"


def test_a_first_orcid_sign_in_makes_an_account_holding_the_proved_id(client, settings):
    with orcid_standin() as standin:
        use_standin(settings, standin)
        done = orcid_sign_in(client, standin)
        token_calls = [r for r in standin.requests if r["path"] == "/oauth/token"]
        record_calls = [r["path"] for r in standin.requests if r["path"].endswith("/record")]
    assert done.status_code == 302
    assert done["Location"] == "/accounts/following"
    account = SocialAccount.objects.get(provider="orcid")
    assert account.uid == "0000-0002-1825-0097"
    assert account.extra_data["person"]["name"]["family-name"]["value"] == "Carberry"
    assert account.user.first_name == "Josiah"
    assert account.user.last_name == "Carberry"
    assert client.get(reverse("accounts:following")).status_code == 200
    # The code went to the token endpoint with our client, and allauth read the iD's record.
    assert len(token_calls) == 1
    assert token_calls[0]["form"]["client_id"] == CLIENT_ID
    assert token_calls[0]["form"]["client_secret"] == CLIENT_SECRET
    assert token_calls[0]["form"]["grant_type"] == "authorization_code"
    assert record_calls == ["/v3.0/0000-0002-1825-0097/record"]


def test_signing_in_again_finds_the_same_account(client, settings):
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
        client.logout()
        again = orcid_sign_in(client, standin)
    assert again.status_code == 302
    assert get_user_model().objects.count() == 1
    assert SocialAccount.objects.filter(provider="orcid").count() == 1
    assert client.get(reverse("accounts:following")).status_code == 200


def test_a_signed_in_reader_links_orcid_on_the_connections_page(follower, reader, settings):
    with orcid_standin() as standin:
        use_standin(settings, standin)
        page = follower.get(reverse("socialaccount_connections")).text
        assert "/accounts/orcid/login/?process=connect" in page
        done = orcid_sign_in(follower, standin, process="connect")
    assert done.status_code == 302
    account = SocialAccount.objects.get(provider="orcid")
    assert account.user == reader
    assert account.uid == "0000-0002-1825-0097"
    assert get_user_model().objects.count() == 1


def test_a_refused_code_signs_nobody_in(client, settings):
    with orcid_standin() as standin:
        use_standin(settings, standin)
        settings.SOCIALACCOUNT_PROVIDERS["orcid"]["APP"]["secret"] = "not-the-secret"
        failed = orcid_sign_in(client, standin)
    # allauth's "Third-Party Login Failure" page answers 401.
    assert failed.status_code == 401
    assert SocialAccount.objects.count() == 0
    assert get_user_model().objects.count() == 0


def test_the_button_sends_an_orcid_sign_in_to_the_claims_page(client, settings):
    with orcid_standin() as standin:
        use_standin(settings, standin)
        done = orcid_sign_in(client, standin, next_url="/accounts/claims/")
    assert done["Location"] == "/accounts/claims/"
    page = client.get("/accounts/claims/").text
    assert "You signed in with ORCID iD" in page
    assert "No researcher here holds your iD yet" in page


def test_without_a_client_the_orcid_urls_answer_404(client, settings):
    settings.SOCIALACCOUNT_PROVIDERS = {"orcid": {"provider_class": "accounts.orcid.provider.OrcidProvider"}}
    assert client.post(reverse("orcid_login")).status_code == 404
    assert client.get(reverse("orcid_callback") + "?code=x&state=y").status_code == 404
