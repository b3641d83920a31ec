"""Every URL that changes state on POST refuses a POST without a CSRF token (403), even for a
signed-in superuser; every URL of our own apps is classified, so a new one cannot slip by."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver

pytestmark = pytest.mark.django_db

# URL name -> a URL that resolves to it. CsrfViewMiddleware refuses before the view runs,
# so the objects named need not exist.
STATE_CHANGING = {
    "accounts:follow": "/accounts/follow/researcher/1",
    "accounts:unfollow": "/accounts/unfollow/category/hep-th",
    "accounts:settings": "/accounts/settings",
    "accounts:feed_token": "/accounts/feed-token",
    "accounts:delete": "/accounts/delete",
    "accounts:saved_search_create": "/accounts/saved-searches",
    "accounts:saved_search": "/accounts/saved-searches/1",
    "accounts:saved_search_delete": "/accounts/saved-searches/1/delete",
    "pages:fetch": "/papers/fetch",
    "curation:merge": "/admin/curation/merge/",
    "curation:split": "/admin/curation/split/1/",
    "curation:undo": "/admin/curation/undo/1/",
    "curation:distinct": "/admin/curation/distinct/",
    "curation:confirm": "/admin/curation/unconfirmed/1/confirm/",
    "curation:reassign": "/admin/curation/unconfirmed/1/reassign/",
    "curation:claim_decide": "/admin/curation/claims/1/decide",
    "claims:claim": "/accounts/claims/researcher/1",
    "claims:decide": "/accounts/claims/1/authorships/1/not-mine",
    "claims:propose": "/accounts/claims/1/merge/2",
    "claims:withdraw": "/accounts/claims/proposals/1/withdraw",
    "claims:take_link": "/accounts/claims/1/take/link/1",
    "claims:take_review": "/accounts/claims/1/take/review/1",
    "claims:names": "/accounts/claims/1/names",
    "curation:proposal_decide": "/admin/curation/proposals/1/decide",
    "orcid_login": "/accounts/orcid/login/",
    "socialaccount_connections": "/accounts/3rdparty/",
    "account_login": "/accounts/login/",
    "account_signup": "/accounts/signup/",
    "account_logout": "/accounts/logout/",
    "account_email": "/accounts/email/",
    "account_change_password": "/accounts/password/change/",
    "account_set_password": "/accounts/password/set/",
    "account_reset_password": "/accounts/password/reset/",
    "account_reauthenticate": "/accounts/reauthenticate/",
}
# Outside our URL names: the Django admin, Wagtail's admin, and the Wagtail contact form.
OTHER_STATE_CHANGING = [
    "/admin/login/",
    "/admin/logout/",
    "/admin/password_change/",
    "/admin/researchers/researcher/",  # the changelist's action form (merge, split)
    "/admin/auth/user/add/",
    "/cms/login/",
    "/cms/pages/add/cms/contentpage/3/",
    "/contact",
    "/api/v1/me/saved-searches",  # the API's session-authenticated writes (ninja's SessionAuth)
]
# POST without a CSRF token on purpose: a read-only lookup taking a JSON body, no cookies
# used (the API has no accounts), CORS open to any origin.
READ_ONLY_POST = {"api:batch_papers"}
# GET/HEAD only (POST answers 405) or POST handled as a read: nothing to forge.
READ_ONLY = {
    "pages:collaboration",
    "pages:collaborations",
    "accounts:following",
    "claims:home",
    "claims:papers",
    "claims:merge",
    "claims:take",
    "curation:claims",
    "curation:proposals",
    "curation:proposal",
    "accounts:feed",
    "accounts:export",
    "accounts:digest",
    "pages:search",
    "pages:suggest",
    "pages:search_counts",
    "pages:feed_latest",
    "pages:feed_category",
    "pages:feed_search",
    "pages:feed_researcher",
    "pages:sitemap",
    "pages:sitemap_section",
    "pages:fetch_status",
    "pages:fetch_status_json",
    "pages:researcher_export",
    "pages:robots",
    "pages:root_icon",
    "pages:llms",
    "papers:list",
    "papers:detail",
    "papers:authors",
    "papers:authors_lookup",
    "papers:export",
    "papers:lookup",
    "researchers:list",
    "researchers:detail",
    "researchers:lookup",
    "institutions:list",
    "institutions:detail",
    "institutions:lookup",
    "provenance:keys",
    "provenance:well_known_bundle",
    "provenance:bundle",
    "provenance:state",
    "provenance:page",
    "curation:queue",
    "curation:unconfirmed",
    "home",
    "openapi",
    "api-docs",
    "account_inactive",
    "account_email_verification_sent",
    "account_confirm_email",
    "account_reset_password_done",
    "account_reset_password_from_key",
    "account_reset_password_from_key_done",
    "account_request_reauthentication_code",
    "account_confirm_reauthentication_code",
    "account_confirm_login_code",
}
OURS = (
    "accounts",
    "claims",
    "pages",
    "papers",
    "researchers",
    "institutions",
    "provenance",
    "curation",
    "api",
)


def _names(patterns, namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = (
                f"{namespace}:{pattern.namespace}"
                if namespace and pattern.namespace
                else (pattern.namespace or namespace)
            )
            names |= _names(pattern.url_patterns, inner)
        elif pattern.name:
            names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)
    return names


def test_every_url_of_our_apps_is_classified():
    names = {
        n
        for n in _names(get_resolver().url_patterns)
        if n.split(":")[0] in OURS or n in ("home", "openapi", "api-docs") or n.startswith("account_")
    }
    api_reads = {n for n in names if n.startswith("api:")} - READ_ONLY_POST
    unclassified = names - set(STATE_CHANGING) - READ_ONLY - READ_ONLY_POST - api_reads
    assert unclassified == set()


@pytest.fixture
def strict_superuser(django_user_model):
    """A signed-in superuser (so permissions never decide) whose client enforces CSRF."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.org", "pw-root-123"))
    return client


@pytest.mark.parametrize("url", [*STATE_CHANGING.values(), *OTHER_STATE_CHANGING])
def test_post_without_csrf_token_is_refused(strict_superuser, url):
    response = strict_superuser.post(url, {"reason": "x", "ids": "1,2", "action": "revoke", "email": "a@b.c"})
    assert response.status_code == 403, (url, response.status_code)
    assert b"CSRF" in response.content


def test_anonymous_post_without_token_is_refused_too():
    client = Client(enforce_csrf_checks=True)
    for url in ("/accounts/login/", "/accounts/signup/", "/papers/fetch", "/contact"):
        assert client.post(url, {"email": "a@b.c"}).status_code == 403, url


@pytest.mark.parametrize("url", ["/accounts/settings", "/papers/fetch"])
def test_the_same_post_with_a_token_gets_through(strict_superuser, url):
    # The positive control: these URLs do take POSTs, so the 403 above came from CSRF.
    strict_superuser.get("/accounts/settings")
    token = strict_superuser.cookies["csrftoken"].value
    response = strict_superuser.post(
        url, {"csrfmiddlewaretoken": token, "digest_frequency": "weekly", "arxiv_id": "junk"}
    )
    assert response.status_code != 403


def test_get_never_changes_state(django_user_model):
    # CSRF protection covers POST only, so a state change must never happen on GET: a link
    # or an <img> on another site could trigger it.
    from accounts.models import AccountSettings, Follow

    user = django_user_model.objects.create_superuser("root", "root@example.org", "pw-root-123")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    for url in STATE_CHANGING.values():
        response = client.get(url)
        assert response.status_code in (200, 302, 404, 405), (url, response.status_code)
    assert django_user_model.objects.filter(pk=user.pk).exists()  # not deleted
    assert client.get("/accounts/following").status_code == 200  # still signed in (no logout)
    # Nothing followed, no feed token made, the digest left at its default (a settings row
    # may be created with the defaults on first read).
    assert Follow.objects.count() == 0
    settings_rows = list(AccountSettings.objects.values_list("feed_token", "digest_frequency"))
    assert settings_rows in ([], [(None, "weekly")])
