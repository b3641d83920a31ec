"""A looser Content-Security-Policy for the Wagtail admin only."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

CMS_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self' 'unsafe-inline'; font-src 'self' data:; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'self'; form-action 'self'"
)


class CmsContentSecurityPolicyMiddleware:
    """Give responses under ``/cms/`` a policy allowing the inline styles and scripts the
    Wagtail admin uses (and framing by itself, for previews: ``X-Frame-Options:
    SAMEORIGIN`` there instead of the site's ``DENY``). It runs inside
    ``wove.middleware.ContentSecurityPolicyMiddleware``, which keeps a header already set;
    every public page keeps the strict site policy."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith("/cms/"):
            if "Content-Security-Policy" not in response:
                response["Content-Security-Policy"] = CMS_POLICY
            # Page previews are framed by the admin itself.
            response.setdefault("X-Frame-Options", "SAMEORIGIN")
        return response
