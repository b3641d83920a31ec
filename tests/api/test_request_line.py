"""A request line over 4,094 bytes answers 414 in the API's JSON ``Error`` shape, not
gunicorn's HTML page (issue 21); pages get the site's 414 page."""

from __future__ import annotations

import httpx
import pytest

from tests import celery_helpers
from tests.servers import gunicorn

pytestmark = pytest.mark.django_db

# "GET " + path + " HTTP/1.1": 4 + 5,017 + 9 = 5,030 bytes, over the 4,094 limit and under
# gunicorn's 8,190 maximum.
LONG_API = "/api/v1/papers?q=" + "a" * 5000
LONG_PAGE = "/search?q=" + "a" * 5007
DETAIL = "The request line is 5,030 bytes long; this server reads at most 4,094."


def test_long_api_request_line_is_json_414(client):
    response = client.get(LONG_API)
    assert response.status_code == 414
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.json() == {"status": 414, "code": "uri_too_long", "detail": DETAIL, "errors": None}


def test_long_page_request_line_is_the_sites_414_page(client):
    response = client.get(LONG_PAGE)
    assert response.status_code == 414
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1>This address is too long</h1>" in response.content.decode()
    assert DETAIL in response.content.decode()


def test_request_line_at_the_limit_is_served(client):
    # 4 + 4,081 + 9 = 4,094 bytes: the longest line still answered normally. Padded with a
    # declared parameter, repeated (the last wins): an unknown one answers 422 (issue 32).
    path = "/api/v1/papers?size=1" + "&size=1" * 580
    assert len(path) == 4081
    response = client.get(path)
    assert response.status_code == 200
    # A normal answer, whatever an earlier test left in the archive.
    assert set(response.json()) >= {"items", "next_cursor"}
    assert client.get(path + "0").status_code == 414


def test_gunicorn_answers_long_lines_as_json():
    """Through the real server, configured as the Procfile runs it: gunicorn's own limit
    (default 4,094) used to answer this line with ``<html>...URI Too Long``."""
    with (
        gunicorn(celery_helpers.test_database_url(), config=True) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        api = http.get(LONG_API)
        page = http.get(LONG_PAGE)
        beyond = http.get("/api/v1/papers?q=" + "a" * 9000)  # over gunicorn's own 8,190
    assert beyond.status_code == 414
    assert beyond.headers["Content-Type"] == "application/json; charset=utf-8"
    assert beyond.json() == {
        "status": 414,
        "code": "uri_too_long",
        "detail": "The request line is over 8,190 bytes long; this server reads at most 4,094.",
        "errors": None,
    }
    assert api.status_code == 414
    assert api.headers["Content-Type"] == "application/json; charset=utf-8"
    assert api.json() == {"status": 414, "code": "uri_too_long", "detail": DETAIL, "errors": None}
    assert page.status_code == 414
    assert "<h1>This address is too long</h1>" in page.text


def test_every_operation_documents_the_414(client):
    schema = client.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answer = operation["responses"]["414"]
            assert answer["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }, (
                path,
                method,
            )
