"""The one error shape of the JSON API (``Error``) and the exception that carries it."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from ninja import Schema
from pydantic import Field


class ErrorItem(Schema):
    """One problem with the request's input (422): where (``loc``), what (``msg``), kind (``type``)."""

    loc: list[str | int] = Field(description='Path to the bad value, e.g. ["query", "size"]')
    msg: str
    type: str


class Error(Schema):
    """Every API error, whatever its status (400, 404, 405, 410, 414, 422, 429, 500, 503).

    ``status`` repeats the HTTP status; ``code`` is a stable machine-readable word
    (``not_found``, ``gone``, ``deleted``, ``bad_request``, ``invalid_cursor``, ``uri_too_long``,
    ``validation_error``, ``unknown_parameter``, ``rate_limited``, ``method_not_allowed``, ``server_error``,
    ``unavailable``); ``detail`` is for people; ``errors`` lists the invalid inputs of a
    422. A case may add fields of its own (a deleted paper's 410 adds its ``id``).
    """

    status: int = Field(examples=[404])
    code: str = Field(examples=["not_found"])
    detail: str = Field(examples=["No paper has the identifier 2401.99999."])
    errors: list[ErrorItem] | None = None


class ApiError(Exception):
    """Raise from an API handler to answer with an :class:`Error` body.

    ``status`` is the HTTP status, ``code`` the stable error word, ``detail`` the message;
    ``headers`` are added to the response (e.g. ``Retry-After``); ``errors`` are the
    :class:`Error` body's ``errors`` (``[{loc, msg, type}]``, the inputs at fault);
    ``fields`` are added to the body after the :class:`Error` ones (e.g. the ``id`` a 410 is
    about).
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        fields: dict[str, Any] | None = None,
        errors: list[dict[str, Any]] | None = None,
    ):
        super().__init__(detail)
        self.errors = errors
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.fields = fields or {}


def error_response(
    status: int,
    code: str,
    detail: str,
    *,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    fields: dict[str, Any] | None = None,
) -> HttpResponse:
    """An ``application/json`` response holding one :class:`Error` (never HTML), plus
    ``fields`` (names the :class:`Error` shape does not use).

    Errors are not cached by shared caches (``Cache-Control: no-store``).
    """
    body = Error(status=status, code=code, detail=detail, errors=errors).model_dump()
    body.update((name, value) for name, value in (fields or {}).items() if name not in body)
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False), status=status, content_type="application/json; charset=utf-8"
    )
    response["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


ERROR_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    410: "gone",
    413: "payload_too_large",
    414: "uri_too_long",
    422: "validation_error",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}
