"""Hostile input that used to reach PostgreSQL: a NUL character anywhere answers 400."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/search?q=a%00b",
        "/search?q=a%00&type=researchers",
        "/search?category=%00",
        "/researchers?q=a%00",
        "/papers/?category=a%00",
        "/rss/category/a%00.xml",
        "/papers/a%00",
    ],
)
def test_nul_in_a_page_request_is_a_400(client, url):
    # Bug: each of these raised psycopg.DataError (500).
    response = client.get(url)
    assert response.status_code == 400
    assert b"NUL" in response.content
    # The site's styled error page, not bare text (issue 32).
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1>This request cannot be read</h1>" in response.content.decode()


@pytest.mark.parametrize(
    "url", ["/api/v1/papers?q=a%00", "/api/v1/researchers?q=a%00", "/api/v1/search?q=%00"]
)
def test_nul_in_an_api_request_is_the_error_shape(client, url):
    response = client.get(url)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"


def test_too_many_query_parameters_on_the_api_is_the_error_shape(client):
    # Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) parameters; the API used
    # to answer that with the site's HTML 400 page.
    # 1,001 short parameters keep the request line under 4,094 bytes (a longer one is a 414).
    query = "&".join(["p=1"] * 1001)
    response = client.get(f"/api/v1/papers?{query}")
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "bad_request",
        "detail": "The query string has more than 1000 parameters.",
        "errors": None,
    }
    # A page keeps Django's own 400.
    assert client.get(f"/search?{query}").status_code == 400
