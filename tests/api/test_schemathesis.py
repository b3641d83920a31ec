"""Property-based conformance of the whole API to its own OpenAPI document (schemathesis).

Every operation in ``/openapi.json`` gets generated valid and invalid requests against the
real sample (in-process WSGI, no network). Checks: no 5xx, status codes, content types,
headers and bodies as documented, and invalid input rejected with a 4xx. Bounded: a few
examples per operation so the run stays well under two minutes.
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
]


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
    # Read at collection time from the app itself (no database access: the document is
    # static, and rate limiting is off under tests).
    from wove.wsgi import application

    return schemathesis.openapi.from_wsgi("/openapi.json", application)


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
    case.call_and_validate(checks=CHECKS)
