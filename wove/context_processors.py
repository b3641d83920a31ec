"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest

SITE_DESCRIPTION = (
    "Search research papers from arXiv, their researchers and institutions. "
    "Free browsing and full-text search for everyone."
)


def site(request: HttpRequest) -> dict[str, str]:
    """Return ``{"SITE_URL", "SITE_NAME", "SITE_DESCRIPTION"}`` for templates."""
    return {"SITE_URL": settings.SITE_URL, "SITE_NAME": "wovepaper", "SITE_DESCRIPTION": SITE_DESCRIPTION}
