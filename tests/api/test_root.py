"""``GET /api/v1/``, the first URL an API user tries: the endpoints, the docs and the OpenAPI
document (issue 32: it answered 500, logged as ``Http404: docs_url = /api/v1/None``)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_root_lists_every_endpoint_and_links_the_docs(api):
    response = api.get("/api/v1/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["title"] == "wovepaper API" and body["version"] == "1.0.0"
    assert body["docs"] == "http://testserver/api/docs"
    assert body["openapi"] == "http://testserver/openapi.json"
    listed = {(r["method"], r["url"]): r["description"] for r in body["resources"]}
    assert listed[("GET", "http://testserver/api/v1/papers")] == "List and search papers"
    assert listed[("GET", "http://testserver/api/v1/researchers/{researcher_id}")] == "Get a researcher"
    assert listed[("POST", "http://testserver/api/v1/papers/batch")] == "Look up many papers"
    assert listed[("GET", "http://testserver/api/v1/search")] == "Search papers, researchers, institutions"
    # Every operation of the OpenAPI document but the root itself, each with a description.
    document = api.get("/openapi.json").json()
    operations = {
        (method.upper(), f"http://testserver{path}")
        for path, ops in document["paths"].items()
        if path != "/api/v1/"
        for method in ops
    }
    # 15 public operations and the 6 of a signed-in user's saved searches.
    assert set(listed) == operations and len(body["resources"]) == 21
    assert all(description for description in listed.values())


def test_root_links_answer(api):
    body = api.get("/api/v1/").json()
    assert api.get(body["docs"]).status_code == 200
    assert api.get(body["openapi"]).status_code == 200
    # Without parameters: search needs q (422), the lookup exactly one identifier (400).
    # Anonymous, a user's saved searches answer 401.
    expected = {
        "http://testserver/api/v1/search": 422,
        "http://testserver/api/v1/researchers/lookup": 400,
        "http://testserver/api/v1/me/saved-searches": 401,
    }
    for resource in body["resources"]:
        if resource["method"] == "GET" and "{" not in resource["url"]:
            status = api.get(resource["url"]).status_code
            assert status == expected.get(resource["url"], 200), resource


def test_root_is_a_cacheable_read_and_in_the_document(api):
    response = api.get("/api/v1/")
    # The API read policy of wove.http_cache: a browser keeps it a minute, a shared cache five.
    assert response["ETag"] and response["Cache-Control"] == (
        "public, max-age=60, s-maxage=300, stale-while-revalidate=600"
    )
    assert api.get("/api/v1/", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    document = api.get("/openapi.json").json()
    assert document["paths"]["/api/v1/"]["get"]["summary"] == (
        "The API's endpoints, its docs and its OpenAPI document"
    )


@pytest.mark.parametrize("path", ["/api/v1/docs", "/api/v1/docs/", "/api/docs/"])
def test_the_docs_under_the_api_prefix_redirect_to_them(api, path):
    """``/api/v1/docs`` answered 404 "No API endpoint at /api/v1/docs." while the docs live
    at /api/docs (the URL the root's ``docs`` gives)."""
    response = api.get(path)
    assert (response.status_code, response["Location"]) == (301, "/api/docs")
    assert api.get(response["Location"]).status_code == 200
    assert api.get("/api/v1/").json()["docs"] == "http://testserver/api/docs"
    # Only the docs' own URL: a path below it is still an unknown API URL.
    assert api.get(path.rstrip("/") + "/x").json()["detail"] == f"No API endpoint at {path.rstrip('/')}/x."
