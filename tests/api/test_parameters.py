"""Every API operation refuses what it does not take, naming it (issue 32): an unknown query
parameter (``page_size`` for ``size`` was silently ignored, 24 items came back, and ``next``
repeated it) and a researcher id that is not an integer ("No API endpoint" before)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def _operations(api) -> list[tuple[str, str, set[str]]]:
    """``(method, path, declared query names)`` of every operation in the OpenAPI document."""
    document = api.get("/openapi.json").json()
    return [
        (method, path, {p["name"] for p in op.get("parameters", []) if p["in"] == "query"})
        for path, ops in document["paths"].items()
        for method, op in ops.items()
    ]


def test_page_size_is_refused_and_named(api):
    response = api.get("/api/v1/researchers", {"page_size": 2})
    assert response.status_code == 422
    body = response.json()
    assert body["status"] == 422 and body["code"] == "unknown_parameter"
    assert body["detail"] == (
        "Unknown query parameter(s): page_size. This endpoint takes: cursor, page, q, size, sort."
    )
    assert body["errors"] == [
        {"loc": ["query", "page_size"], "msg": "Unknown query parameter", "type": "unknown_parameter"}
    ]
    assert response["Cache-Control"] == "no-store"
    # The declared name still works: 2 items, and "next" carries size, not page_size.
    page = api.get("/api/v1/researchers", {"size": 2}).json()
    assert len(page["items"]) == 2 and "size=2" in page["next"] and "page_size" not in page["next"]


def test_every_operation_refuses_unknown_query_parameters(api):
    from researchers.models import Researcher

    researcher = Researcher.objects.listed().first()
    values = {
        "{arxiv_id}": "0704.0001",
        "{researcher_id}": str(researcher.pk),
        "{key}": "03yrm5c26",
        "{saved_search_id}": "1",
    }
    operations = _operations(api)
    # 15 public endpoints, the root and 6 of /me/saved-searches (the check runs before sign-in's).
    assert len(operations) == 22
    for method, path, declared in operations:
        url = path
        for name, value in values.items():
            url = url.replace(name, value)
        assert "{" not in url, path
        call = getattr(api, method)
        response = call(f"{url}?page_size=2&Q=x", content_type="application/json")
        assert response.status_code == 422, (method, path)
        body = response.json()
        assert body["code"] == "unknown_parameter", (method, path)
        assert body["detail"].startswith("Unknown query parameter(s): Q, page_size."), (method, path)
        # The list of what the operation takes is its OpenAPI parameters, not a hand list.
        takes = ", ".join(sorted(declared)) or "no query parameters"
        assert body["detail"].endswith(f"This endpoint takes: {takes}."), (method, path)


def test_declared_parameters_pass(api):
    for params in (
        {"q": "dark", "size": 2, "page": 1, "sort": "newest"},
        {"kinds": ["papers", "researchers"]},
    ):
        url = "/api/v1/papers" if "size" in params else "/api/v1/search"
        params = params if "size" in params else {**params, "q": "dark", "limit": 1}
        assert api.get(url, params).status_code == 200, url


def test_the_document_states_422_on_every_operation(api):
    document = api.get("/openapi.json").json()
    for path, ops in document["paths"].items():
        for method, op in ops.items():
            assert "422" in op["responses"], (method, path)
    assert "unknown_parameter" in document["info"]["description"]


@pytest.mark.parametrize(
    "path", ["/api/v1/researchers/abc", "/api/v1/researchers/abc/papers", "/api/v1/researchers/1.5/coauthors"]
)
def test_a_researcher_id_that_is_not_an_integer_is_a_validation_error(api, path):
    response = api.get(path)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_error"
    assert [e["loc"] for e in body["errors"]] == [["path", "researcher_id"]]
    assert body["errors"][0]["type"] == "int_parsing"
    assert body["detail"].startswith("Invalid path parameter researcher_id: Input should be a valid integer")


def test_a_bad_query_value_is_named_in_the_detail(api):
    body = api.get("/api/v1/researchers", {"size": 0}).json()
    assert body["detail"] == "Invalid query parameter size: Input should be greater than or equal to 1."
    assert body["errors"][0]["loc"] == ["query", "size"]
