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


@pytest.mark.parametrize(
    "url", ["/api/v1/papers?q=a%00", "/api/v1/researchers?q=a%00", "/api/v1/search?q=%00"]
)
def test_nul_in_an_api_request_is_the_error_shape(client, url):
    response = client.get(url)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"
