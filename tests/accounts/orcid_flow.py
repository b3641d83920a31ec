"""Drive allauth's real ORCID sign-in with Django's test client against the stand-in."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from django.urls import reverse

from tests.orcid_standin import OrcidStandIn


def use_standin(settings, standin: OrcidStandIn) -> None:
    """Point allauth's ORCID provider (pytest-django's ``settings``) at ``standin``."""
    for name, value in standin.settings_for().items():
        setattr(settings, name, value)


def orcid_sign_in(client, standin: OrcidStandIn, *, process: str = "login", next_url: str = ""):
    """Sign in (``process="login"``) or link ORCID to the signed-in account (``"connect"``)
    as ``standin.person``: POST allauth's login view, follow its redirect to the stand-in's
    authorize page, which answers with the code, and call allauth's callback with it.
    Returns the callback's response (allauth's redirect after sign-in)."""
    query = f"?process={process}" + (f"&next={next_url}" if next_url else "")
    start = client.post(reverse("orcid_login") + query)
    assert start.status_code == 302, start.content[:500]
    authorize = start["Location"]
    assert authorize.startswith(f"{standin.base}/oauth/authorize?"), authorize
    granted = httpx.get(authorize, follow_redirects=False, timeout=10)
    assert granted.status_code == 302, granted.text
    back = urlsplit(granted.headers["location"])
    assert back.path == reverse("orcid_callback"), back
    return client.get(f"{back.path}?{back.query}")
