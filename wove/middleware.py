"""Small middleware shared by every app."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from wove.errors import error_response


class ContentSecurityPolicyMiddleware:
    """Add the ``Content-Security-Policy`` header from ``settings.CONTENT_SECURITY_POLICY``.

    A response that already carries the header (for instance the interactive API docs,
    which need their own policy) keeps it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response


class RejectNulBytesMiddleware:
    """Answer 400 to a request whose path or query string holds a NUL character.

    PostgreSQL text cannot hold NUL (U+0000), so such a value reaching any query raised a
    500. No URL, search or API parameter of ours can legitimately contain one. API paths get
    the API's ``Error`` JSON; pages a short plain-text answer.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            nul = (
                "\x00" in request.path
                or "%00" in request.META.get("QUERY_STRING", "")
                or any("\x00" in value for values in request.GET.lists() for value in values[1])
            )
        except TooManyFieldsSent:
            # Over DATA_UPLOAD_MAX_NUMBER_FIELDS parameters: Django's own 400, but in the API's
            # Error shape under /api/ (pages keep Django's 400 page).
            if not request.path.startswith("/api/"):
                raise
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            return error_response(400, "bad_request", f"The query string has more than {limit} parameters.")
        if nul:
            detail = "The request contains a NUL character, which no value here may hold."
            if request.path.startswith("/api/"):
                return error_response(400, "bad_request", detail)
            # A reader gets the site's error page (it was bare text), still saying why.
            response = HttpResponse(
                render_to_string("400.html", {"detail": detail}),
                status=400,
                content_type="text/html; charset=utf-8",
            )
            response["Cache-Control"] = "no-store"
            return response
        return self.get_response(request)


class RequestLineLimitMiddleware:
    """Answer 414 URI Too Long to a request whose request line (``GET /path?query HTTP/1.1``)
    is longer than ``settings.MAX_REQUEST_LINE`` bytes (4,094: gunicorn's own default).

    gunicorn used to refuse such lines itself with an HTML page, which broke the API's
    promise of JSON errors; it now accepts lines up to its maximum (8,190 bytes,
    ``wove.gunicorn_conf.limit_request_line``) and this middleware answers instead: the
    ``Error`` JSON (``code`` ``uri_too_long``) under ``/api/`` and for ``/openapi.json``, the
    site's 414 page elsewhere. Lines over 8,190 bytes never reach Django: the Procfile's
    worker (``wove.gunicorn_worker``) answers them with the same JSON. The length counted is
    the raw request target gunicorn saw (``RAW_URI``), else Django's rebuilt
    ``get_full_path()`` (the test client).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_REQUEST_LINE
        target = request.META.get("RAW_URI") or request.get_full_path()
        protocol = request.META.get("SERVER_PROTOCOL", "HTTP/1.1")
        length = len(request.method or "GET") + 1 + len(target.encode("utf-8", "replace")) + 1 + len(protocol)
        if length <= limit:
            return self.get_response(request)
        detail = f"The request line is {length:,} bytes long; this server reads at most {limit:,}."
        if request.path.startswith("/api/") or request.path == "/openapi.json":
            return error_response(414, "uri_too_long", detail)
        body = render_to_string("414.html", {"detail": detail, "limit": limit})
        response = HttpResponse(body, status=414, content_type="text/html; charset=utf-8")
        response["Cache-Control"] = "no-store"
        return response
