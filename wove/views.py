"""Site-wide error views: the 500 page, and 503 while the database is unreachable."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from .errors import error_response

# Seconds a client is asked to wait before trying again while the database is away.
RETRY_AFTER_SECONDS = 30
DATABASE_ERRORS = (OperationalError, InterfaceError)
UNAVAILABLE_DETAIL = f"The archive's database is unavailable for a moment; retry in {RETRY_AFTER_SECONDS} s."


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` means the database cannot be reached right now (server down or
    restarting, connection dropped, too many clients): Django's ``OperationalError`` or
    ``InterfaceError``. A later request reconnects on its own (``CONN_HEALTH_CHECKS``)."""
    return isinstance(exc, DATABASE_ERRORS)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: Django calls it inside its ``except`` block, so ``sys.exc_info()``
    holds the exception. A database outage answers 503 with ``Retry-After`` (an ``Error``
    JSON under ``/api/``, a plain HTML page elsewhere); anything else a 500. The pages are
    rendered without the request's context, so they need no database themselves."""
    unavailable = database_unavailable(sys.exc_info()[1])
    status = 503 if unavailable else 500
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if unavailable else {}
    if request.path.startswith("/api/") or request.path == "/openapi.json":
        if unavailable:
            return error_response(503, "unavailable", UNAVAILABLE_DETAIL, headers=headers)
        return error_response(500, "server_error", "Something went wrong on our side.")
    body = render_to_string(f"{status}.html", {"retry_after": RETRY_AFTER_SECONDS})
    response = HttpResponse(body, status=status, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-store"
    for name, value in headers.items():
        response[name] = value
    return response
