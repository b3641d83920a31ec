"""The site behind a real caching proxy (issue 30): Debian's Varnish in front of gunicorn,
caching every GET as a CDN that trusts the origin's ``Cache-Control`` and ``Vary`` would.
A second anonymous request is a hit; signed-in users never get another user's page (only
the answers' ``private`` and ``Vary: Cookie`` keep them apart); a change shows once the
answer's ``s-maxage`` has passed."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from accounts import services as account_services
from papers.harvest import harvest_files
from papers.models import Category, Paper
from papers.taxonomy import load_taxonomy
from tests import celery_helpers
from tests.conftest import FIXTURES
from tests.servers import gunicorn, varnish

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long proxy password"
# A paper page kept 4 s by shared caches, no stale answers: the change test's clock. Long
# enough for the signed-in visits between two anonymous ones on a loaded machine (at 2 s,
# a CI run's copy expired before the second anonymous visit).
POLICIES = "paper=1/4/0"


def reader(email: str):
    user = get_user_model().objects.create_user(email.split("@")[0], email, PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def sign_in(client: httpx.Client, email: str) -> None:
    form = client.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    response = client.post(
        "/accounts/login/", data={"login": email, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302, response.text[:500]


def hit(response: httpx.Response) -> bool:
    """Varnish's ``X-Varnish`` holds two transaction ids on a cache hit, one on a miss."""
    return len(response.headers["X-Varnish"].split()) == 2


def test_behind_varnish_anonymous_pages_are_hits_users_stay_apart_and_changes_show_after_s_maxage():
    if not Category.objects.filter(code="hep-th").exists():
        load_taxonomy(Category)
    harvest_files(paths=[FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml"])
    ada = reader("ada@example.org")
    reader("lin@example.org")
    account_services.follow_create(user_id=ada.pk, target=Category.objects.get(code="hep-th"))

    with (
        gunicorn(celery_helpers.test_database_url(), extra_env={"HTTP_CACHE_POLICIES": POLICIES}) as origin,
        varnish(origin) as proxy,
        httpx.Client(base_url=proxy, timeout=20) as visitor,
        httpx.Client(base_url=proxy, timeout=20) as a,
        httpx.Client(base_url=proxy, timeout=20) as b,
    ):
        # Signed in first (a password check is the slow part), through the same proxy.
        sign_in(a, "ada@example.org")
        sign_in(b, "lin@example.org")
        url = httpx.get(f"{origin}/papers/1412.8323", follow_redirects=True).url.path
        first, second = visitor.get(url), visitor.get(url)
        assert first.status_code == second.status_code == 200
        assert first.headers["Cache-Control"] == "public, max-age=1, s-maxage=4, stale-while-revalidate=0"
        assert first.headers["Vary"] == "Cookie"
        assert not hit(first) and hit(second)
        assert ">Sign in</a>" in second.text

        # Each signed-in user gets their own answers, never the anonymous copy nor each other's.
        for client in (a, b):
            page = client.get(url)
            assert page.headers["Cache-Control"] == "private, no-cache" and not hit(page)
            assert ">Sign in</a>" not in page.text and ">Following</a>" in page.text
        following_a, following_b = a.get("/accounts/following"), b.get("/accounts/following")
        assert "Categories (1)</h2>" in following_a.text
        assert "You do not follow anything yet." in following_b.text
        assert "Categories (1)</h2>" not in following_b.text
        assert not hit(following_b)
        again = visitor.get(url)
        assert hit(again) and ">Sign in</a>" in again.text and ">Following</a>" not in again.text

        # A change: still the cached page, then the new one once s-maxage (4 s) has passed.
        Paper.objects.filter(arxiv_id="1412.8323").update(abstract="An abstract changed behind the cache.")
        stale = visitor.get(url)
        assert hit(stale) and "An abstract changed behind the cache." not in stale.text
        time.sleep(4.5)
        fresh = visitor.get(url)
        assert not hit(fresh) and "An abstract changed behind the cache." in fresh.text
