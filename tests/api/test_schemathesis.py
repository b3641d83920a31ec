"""Property-based conformance of the whole API to its own OpenAPI document (schemathesis).

Every operation in ``/openapi.json`` gets generated valid and invalid requests against the
real sample (in-process WSGI, no network). Checks: no 5xx, status codes, content types,
headers and bodies as documented, invalid input rejected with a 4xx, and valid input (as
the schema describes it) accepted: no 400 for a value the document allows (issue 21: any
string was a valid cursor, a 60-digit orcid, a NUL in a key). Bounded: a few examples per
operation so the run stays well under two minutes.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
]
# The lookup takes exactly one of three optional query parameters and an ORCID iD whose
# check digit holds: neither is expressible in OpenAPI, and both answer 400 as documented.
NOT_POSITIVE_CHECKED = {"/api/v1/researchers/lookup"}


@pytest.fixture
def wsgi_db(api_data, db):
    """The loaded sample, seen through the in-process WSGI app. Django closes "old"
    connections when a WSGI request ends, which would end the test transaction; the test
    client avoids that the same way (disconnecting ``close_old_connections``)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _load_schema():
    # Read at collection time from the app itself, before any test database exists, so with
    # no database access: rate limiting is off under tests, and the examples the document
    # names from records held (papers.examples) are those of an empty archive (its patterns),
    # given to the cache beforehand. The cache is emptied again for the tests.
    from django.core.cache import cache

    from papers.examples import URL_EXAMPLES_CACHE_KEY, url_examples_forget
    from wove.wsgi import application

    cache.set(URL_EXAMPLES_CACHE_KEY, {}, 60)
    try:
        return schemathesis.openapi.from_wsgi("/openapi.json", application)
    finally:
        url_examples_forget()


schema = _load_schema()


@pytest.mark.usefixtures("wsgi_db")
@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_api_conforms_to_openapi(case):
    _with_a_real_cursor(case)
    checks = CHECKS
    if case.operation.path in NOT_POSITIVE_CHECKED:
        checks = [check for check in CHECKS if check is not positive_data_acceptance]
    case.call_and_validate(checks=checks)


def _with_a_real_cursor(case) -> None:
    """A cursor is signed: no generator can make a valid one. A positive case naming a
    cursor gets the ``next_cursor`` the API answers to the same request without it (or no
    cursor when that request has no next page), so cursor paging is exercised for real."""
    query = case.query or {}
    if case.meta is None or not case.meta.generation.mode.is_positive or not query.get("cursor"):
        return
    del query["cursor"]
    first = case.call()
    if first.status_code == 200 and first.json().get("next_cursor"):
        query["cursor"] = first.json()["next_cursor"]
