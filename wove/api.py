"""The one JSON API (django-ninja) at /api/v1/, its OpenAPI schema, docs, and HTTP behaviour."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.urls import URLPattern, URLResolver, path, re_path, reverse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import parse_http_date_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from ninja import NinjaAPI, Schema, Swagger
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja.operation import Operation
from pydantic import Field

from papers.examples import openapi_examples_fill

from . import ratelimit
from .errors import ERROR_CODES, ApiError, Error, error_response
from .http_cache import CACHE_POLICIES
from .views import RETRY_AFTER_SECONDS, UNAVAILABLE_DETAIL, database_unavailable

logger = logging.getLogger(__name__)

API_PREFIX = "api/v1/"
# Reads may be cached by anyone (the "api" row of wove/http_cache.py's table); ETag
# revalidation makes staleness cheap to end. A signed-in caller gets "private" instead
# (wove.http_cache.CachePolicyMiddleware).
READ_CACHE_CONTROL = CACHE_POLICIES["api"].header()
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": (
        "ETag, Last-Modified, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, "
        "X-RateLimit-Reset, X-Search-Mode"
    ),
}
PREFLIGHT_HEADERS = {
    "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match, If-Modified-Since",
    "Access-Control-Max-Age": "86400",
}
# The docs page runs Swagger UI from our own static files; it sets inline styles.
DOCS_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)

DESCRIPTION = """\
Papers, researchers and institutions, woven together: the archive's data as JSON.
`GET /api/v1/` lists every endpoint with its URL and what it answers.

* **Keyless and free.** Anonymous clients are rate limited per IP address (per /64 for
  IPv6). Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
  `X-RateLimit-Reset` (seconds until the window resets); a refused request gets **429**
  with `Retry-After` (seconds).
* **Errors** always have the `Error` shape: `{status, code, detail, errors}` (400, 404,
  405, 410, 414, 422, 429, 500, 503), never an HTML page. A 503 (`unavailable`: the database is
  away for a moment) carries `Retry-After` (seconds). A request line (method, path and query
  string) over 4,094 bytes answers 414 (`uri_too_long`): use POST `/api/v1/papers/batch` for
  long lists of identifiers. A 422 names the parameters at fault in `detail` and `errors`.
* **Unknown query parameters are refused**: a query parameter the operation does not declare
  (a misspelt `page_size` for `size`) answers **422** `unknown_parameter` naming it and
  listing the ones the operation takes, rather than being silently ignored.
* **Paging.** Lists take `page` and `size` (at most 100) and answer with `count` and
  `pages`; for deep traversal follow `next_cursor` (`?cursor=...`, keyset paging over a
  stable order, no count). Keep the filters and the sort the same while following cursors.
* **Caching.** Reads carry `ETag` (and `Last-Modified` on a single paper) and
  `Cache-Control`; send `If-None-Match` / `If-Modified-Since` to get **304**.
* **CORS** is open: `Access-Control-Allow-Origin: *`.
* **Merged researchers.** An editor may merge two researcher records; asking for the
  merged-away id answers with the survivor's record, `merged_into` set to the survivor's
  id and `requested_id` to the id asked for.
* **Why an author is who we say.** Each matched author slot (a paper's `author_slots`, a
  researcher's `papers`) carries its `authorship`: `method`, `confidence` (0..1: 0.98 the
  person's ORCID iD as a registry gave it, 0.9 a registry's author id, 0.6 this archive's
  own evidence joining the slot to the researcher's other papers, 0.5 the researcher's
  only paper, 1.0 an editor's decision; it ranks how the link was made, not a calibrated
  probability), `evidence` (the signals, each with a `kind`) and `unconfirmed` (the name
  alone decided it while several researchers share the name block).
"""

_RATE_HEADERS = {
    "X-RateLimit-Limit": "Requests allowed per window for this client",
    "X-RateLimit-Remaining": "Requests left in the current window",
    "X-RateLimit-Reset": "Seconds until the window resets",
}


class WoveNinjaAPI(NinjaAPI):
    """The NinjaAPI whose OpenAPI document also states what :func:`api_view` adds to every
    answer: rate-limit headers, ``Retry-After`` on 429, ``ETag``/``Cache-Control`` and the
    304 of a conditional GET on reads."""

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        integer = {"schema": {"type": "integer", "minimum": 0}}
        for operations in schema.get("paths", {}).values():
            for method, operation in operations.items():
                _exclude_nul(operation.get("parameters", []))
                responses = operation.setdefault("responses", {})
                if 400 not in responses and "400" not in responses:
                    # wove.middleware answers 400 to a NUL or too many parameters, anywhere.
                    responses[400] = {"description": "Bad Request", "content": _ERROR_CONTENT}
                # ... and 414 to a request line over settings.MAX_REQUEST_LINE bytes.
                responses[414] = {
                    "description": "URI Too Long (request line over 4,094 bytes)",
                    "content": _ERROR_CONTENT,
                }
                for status, answer in responses.items():
                    headers = answer.setdefault("headers", {})
                    for name, text in _RATE_HEADERS.items():
                        headers[name] = {"description": text, **integer}
                    if str(status) == "429":
                        headers["Retry-After"] = {
                            "description": "Seconds to wait",
                            "required": True,
                            **integer,
                        }
                    if str(status) == "200" and method == "get":
                        headers["ETag"] = {
                            "description": "Strong validator of the body",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                        headers["Cache-Control"] = {"required": True, "schema": {"type": "string"}}
                if method == "get":
                    responses[304] = {"description": "Not Modified (conditional GET: the validator holds)"}
                if 422 not in responses and "422" not in responses:
                    # _refuse_unknown_query_parameters answers 422 on every operation.
                    responses[422] = {"description": "Unprocessable Entity", "content": _ERROR_CONTENT}
        # Example identifiers the docs' "Try it out" sends name records this archive holds.
        return openapi_examples_fill(schema)


_ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
# No string parameter may hold NUL (U+0000): wove.middleware.RejectNulBytesMiddleware answers
# 400 to any path or query string with one, before validation.
NO_NUL_PATTERN = "^[^\\u0000]*$"


def _exclude_nul(parameters: list[dict]) -> None:
    """Give each string parameter (path or query) without a ``pattern`` of its own the
    :data:`NO_NUL_PATTERN`; the patterns of ours (cursor, ORCID iD) exclude NUL already.
    An optional parameter's schema is ``anyOf [string, null]``; a pattern pydantic put beside
    that ``anyOf`` (``json_schema_extra``) moves into its string branch, where it belongs."""
    for parameter in parameters:
        schema = parameter.get("schema", {})
        variants = schema.get("anyOf", [schema])
        own = schema.pop("pattern", None) if "anyOf" in schema else None
        for variant in variants:
            if variant.get("type") != "string" or "enum" in variant:
                continue
            if own:
                variant["pattern"] = own
            variant.setdefault("pattern", NO_NUL_PATTERN)


api = WoveNinjaAPI(
    title="wovepaper API",
    version="1.0.0",
    description=DESCRIPTION,
    urls_namespace="api",
    # deepLinking off: its links (#/tag/operation) sit inside each operation's toggle button, a
    # link inside a button (axe-core nested-interactive); the toggles still open each operation.
    docs=Swagger(settings={"persistAuthorization": False, "tryItOutEnabled": True, "deepLinking": False}),
    docs_url=None,  # served at /api/docs with its own CSP (see docs_view)
    openapi_url="/openapi.json",
)


# -- Unknown query parameters: 422, never silently ignored ---------------------------------


def declared_query_parameters(operation: Operation) -> frozenset[str]:
    """The query parameter names ``operation`` reads: the flattened fields of its
    ``Query[...]`` models, as ninja reads them from the query string (the names the OpenAPI
    document lists as ``in: query``)."""
    names: set[str] = set()
    for model in operation.models:
        if getattr(model, "__ninja_param_source__", None) == "query":
            names.update(getattr(model, "__ninja_flatten_map__", None) or model.model_fields)
    return frozenset(names)


def _refuse_unknown_query_parameters(run: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """A ninja ``view``-mode decorator (applied to every operation, before validation): a
    request whose query string names a parameter the operation does not declare answers
    422 ``unknown_parameter`` in the ``Error`` shape, naming each unknown one and listing the
    declared ones. ``page_size=2`` was ignored, 24 items came back, and ``next`` repeated it.

    Ninja hands the decorator the operation's bound ``run``; the operation it is bound to
    gives the declared names (:func:`declared_query_parameters`), read once at start-up.
    """
    operation = getattr(run, "__self__", None)
    if not isinstance(operation, Operation):  # ninja changed how it applies view decorators
        raise TypeError("_refuse_unknown_query_parameters must wrap an Operation's own run")
    declared = declared_query_parameters(operation)
    takes = ", ".join(sorted(declared)) or "no query parameters"

    @wraps(run)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        unknown = sorted(name for name in request.GET if name not in declared)
        if unknown:
            return error_response(
                422,
                "unknown_parameter",
                f"Unknown query parameter(s): {', '.join(unknown)}. This endpoint takes: {takes}.",
                errors=[
                    {"loc": ["query", name], "msg": "Unknown query parameter", "type": "unknown_parameter"}
                    for name in unknown
                ],
            )
        return run(request, *args, **kwargs)

    return checked


api.add_decorator(_refuse_unknown_query_parameters, mode="view")


# -- Exception handlers: every error is one Error body -------------------------------------


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(
        exc.status, exc.code, exc.detail, headers=exc.headers, fields=exc.fields, errors=exc.errors
    )


@api.exception_handler(NinjaValidationError)
def _validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    errors = [
        {
            "loc": [str(p) if not isinstance(p, int) else p for p in e.get("loc", [])],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors
    ]
    return error_response(422, "validation_error", validation_detail(errors), errors=errors)


def validation_detail(errors: list[dict]) -> str:
    """One sentence naming the inputs at fault: ``"Invalid path parameter researcher_id:
    Input should be a valid integer, unable to parse string as an integer."`` (at most three
    named; ``errors`` has ninja's ``loc``: where, then the field path)."""
    kinds = {"path": "path parameter", "query": "query parameter", "body": "body field", "header": "header"}
    parts = []
    for error in errors[:3]:
        where, *rest = error["loc"] or ["input"]
        name = ".".join(str(p) for p in rest)
        parts.append(f"{kinds.get(str(where), str(where))} {name}: {error['msg']}".replace(" :", ":"))
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "Invalid " + "; ".join(parts) + more + "." if parts else "The request's input is not valid."


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    status = exc.status_code
    return error_response(status, ERROR_CODES.get(status, "error"), str(exc.message))


@api.exception_handler(AuthenticationError)
def _auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(401, "unauthorized", "Authentication failed.")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(404, "not_found", str(exc) or "Not found.")


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    # A body over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) was a 500 from the catch-all below.
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return error_response(413, "payload_too_large", f"The request body is over {limit:,} bytes.")


@api.exception_handler(SuspiciousOperation)
def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    return error_response(400, "bad_request", "The request cannot be read.")


@api.exception_handler(Exception)
def _server_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    return _unexpected_error_response(request, exc)


def _unexpected_error_response(request: HttpRequest, exc: Exception) -> HttpResponse:
    """503 ``unavailable`` with ``Retry-After`` while the database is unreachable (the next
    request reconnects by itself); 500 ``server_error`` for anything else. Both logged."""
    logger.exception("API error on %s %s", request.method, request.path)
    if database_unavailable(exc):
        return error_response(
            503, "unavailable", UNAVAILABLE_DETAIL, headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
        )
    return error_response(500, "server_error", "Something went wrong on our side.")


# -- Routers -------------------------------------------------------------------------------

# Order matters: the paper routes end in a greedy ``{path:arxiv_id}`` (old-style identifiers
# hold a slash), so routes below /papers/<id>/... are mounted before the papers router.
api.add_router("/papers", "provenance.api.router")
api.add_router("/papers", "pages.paper_api.router")
api.add_router("/researchers", "researchers.api.router")
api.add_router("/institutions", "institutions.api.router")
api.add_router("/search", "pages.api.router")
api.add_router("/me/saved-searches", "accounts.api.router")


# -- The root: what the API serves ---------------------------------------------------------


class ApiEndpoint(Schema):
    """One endpoint of the API: its HTTP ``method``, its absolute ``url`` (``{name}`` marks a
    path parameter, as in the OpenAPI document) and a one-line ``description``."""

    method: str = Field(examples=["GET"])
    url: str = Field(examples=["https://wovepaper.example/api/v1/papers/{arxiv_id}"])
    description: str = Field(examples=["Get one paper by any identifier form"])


class ApiIndex(Schema):
    """``GET /api/v1/``: the API's name and version, where its interactive docs and OpenAPI
    document are, and every endpoint it serves (``resources``, in the document's order)."""

    title: str
    version: str
    docs: str = Field(description="Interactive documentation (Swagger UI)")
    openapi: str = Field(description="The OpenAPI 3.1 document")
    resources: list[ApiEndpoint]


@functools.cache
def _endpoints() -> tuple[tuple[str, str, str], ...]:
    """``(method, path, summary)`` of every operation in the OpenAPI document but the root
    itself, read once per process (the document is built from the code, never edited)."""
    root = api.get_root_path({})
    return tuple(
        (method.upper(), path, operation.get("summary", ""))
        for path, operations in api.get_openapi_schema()["paths"].items()
        if path != root
        for method, operation in operations.items()
    )


@api.get(
    "/",
    response={200: ApiIndex, 429: Error},
    summary="The API's endpoints, its docs and its OpenAPI document",
    tags=["api"],
    operation_id="api_index",
)
def api_index(request: HttpRequest):
    """The first URL an API user tries: every endpoint with its URL and what it answers,
    and links to the interactive docs (``/api/docs``) and the OpenAPI document
    (``/openapi.json``). (Ninja's own root view raised ``Http404: docs_url = /api/v1/None``,
    a 500 here, as the docs are served outside ninja.)"""
    base = request.build_absolute_uri("/").rstrip("/")  # not per path: it would escape "{"
    return {
        "title": api.title,
        "version": api.version,
        "docs": base + reverse("api-docs"),
        "openapi": base + reverse("openapi"),
        "resources": [
            {"method": method, "url": base + path, "description": summary}
            for method, path, summary in _endpoints()
        ],
    }


# -- HTTP behaviour shared by every API URL ------------------------------------------------


def _etag(content: bytes) -> str:
    return '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def _finish(
    request: HttpRequest, response: HttpResponseBase, decision: ratelimit.Decision
) -> HttpResponseBase:
    for name, value in {**CORS_HEADERS, **decision.headers()}.items():
        response[name] = value
    return response


def api_view(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Wrap an API view with what every API URL does.

    Rate limit (429 ``Error`` with ``Retry-After``); CORS (``*``, preflight answered here);
    ``HEAD`` served as ``GET`` without a body; 405 as an ``Error``; on successful reads a
    strong ``ETag`` (SHA-256 of the body), ``Cache-Control`` and conditional GET (304 for a
    matching ``If-None-Match`` or a not-newer ``If-Modified-Since``); ``X-RateLimit-*`` on
    every answer. Never lets an exception become an HTML page.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
            for name, value in PREFLIGHT_HEADERS.items():
                response[name] = value
            return _finish(request, response, ratelimit.Decision(True, 0, 0, 0, checked=False))
        try:
            decision = ratelimit.check_request(request)
        except Exception:  # a limiter bug must not take the API down: fail open, loudly
            logger.exception("rate limit check failed; letting %s through", request.path)
            decision = ratelimit.Decision(True, 0, 0, 0, checked=False)
        if not decision.allowed:
            response = error_response(
                429,
                "rate_limited",
                f"Too many requests: at most {decision.limit} per window; retry in {decision.reset} s.",
            )
            return _finish(request, response, decision)
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        try:
            response = view(request, *args, **kwargs)
        except Exception as exc:
            response = _unexpected_error_response(request, exc)
        if response.status_code == 405:
            allow = response.get("Allow", "")
            response = error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here (allowed: {allow}).",
                headers={"Allow": allow},
            )
        elif request.method == "GET" and response.status_code == 200 and not response.streaming:
            response["ETag"] = _etag(response.content)
            response["Cache-Control"] = READ_CACHE_CONTROL
            patch_vary_headers(response, ["Accept-Encoding", "Cookie"])
            last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
            response = get_conditional_response(
                request, etag=response["ETag"], last_modified=last_modified, response=response
            )
        if head:
            response.content = b""
            request.method = "HEAD"
        return _finish(request, response, decision)

    return wrapped


def _wrap_patterns(patterns: list) -> list:
    out: list = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            pattern.url_patterns[:] = _wrap_patterns(list(pattern.url_patterns))
            out.append(pattern)
        else:
            out.append(
                URLPattern(pattern.pattern, api_view(pattern.callback), pattern.default_args, pattern.name)
            )
    return out


@csrf_exempt
def openapi_json(request: HttpRequest) -> HttpResponse:
    """The OpenAPI 3.1 document of the API, also served at ``/openapi.json``."""
    schema = api.get_openapi_schema()
    return HttpResponse(
        json.dumps(schema, ensure_ascii=False), content_type="application/json; charset=utf-8"
    )


def docs_view(request: HttpRequest) -> HttpResponse:
    """``/api/docs``: Swagger UI from our own static files (no CDN), with a CSP that allows
    its inline styles (the site-wide policy forbids them)."""
    response = api.docs.render_page(request, api)
    response["Content-Security-Policy"] = DOCS_CSP
    return response


@csrf_exempt
def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any unknown URL under ``/api/``: a JSON 404 (the site's 404 page is HTML)."""
    return error_response(404, "not_found", f"No API endpoint at {request.path}.")


_ninja_patterns, _app_name, _namespace = api.urls

urlpatterns: list[URLPattern | URLResolver] = [
    path(API_PREFIX, (_wrap_patterns(_ninja_patterns), _app_name, _namespace)),
    path("openapi.json", api_view(openapi_json), name="openapi"),
    path("api/docs", docs_view, name="api-docs"),
    # Where a newcomer looks for the docs (beside /api/v1/ itself): a 404 there sent them away.
    re_path(r"^api/(?:v1/docs/?|docs/)$", RedirectView.as_view(pattern_name="api-docs", permanent=True)),
    # (?s:...): "." must match a newline too, or /api/v1/papers/%0A fell through to the
    # site's HTML 404 (Django full-matches a pattern ending in "$").
    re_path(r"^api/(?P<rest>(?s:.*))$", api_view(api_not_found)),
]
