"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, str]:
    """Return ``{"SITE_URL": ..., "SITE_NAME": "wovepaper"}`` for templates."""
    return {"SITE_URL": settings.SITE_URL, "SITE_NAME": "wovepaper"}
