"""The OpenAPI document is as strict as the server (issue 21): its cursor pattern matches the
cursors the API makes, its ORCID iD pattern the forms the lookup accepts, and no string
parameter admits the NUL every such request is refused for."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _parameters(api, path: str) -> dict[str, dict]:
    schema = api.get("/openapi.json").json()
    operation = schema["paths"][path]["get"]
    return {p["name"]: p["schema"] for p in operation["parameters"]}


def _string_branch(schema: dict) -> dict:
    return next(s for s in schema.get("anyOf", [schema]) if s.get("type") == "string")


@pytest.mark.parametrize("path", ["/api/v1/papers", "/api/v1/researchers", "/api/v1/institutions"])
def test_real_cursors_match_the_documented_pattern(api, path):
    body = api.get(path, {"size": 2}).json()
    pattern = _string_branch(_parameters(api, path)["cursor"])["pattern"]
    cursor = body["next_cursor"]
    assert re.fullmatch(pattern, cursor), cursor
    assert api.get(path, {"size": 2, "cursor": cursor}).status_code == 200
    assert not re.fullmatch(pattern, "not-a-cursor")  # the 400 of test_bad_or_foreign_cursor_is_400


def test_orcid_pattern_is_the_lookups_forms(api):
    branch = _string_branch(_parameters(api, "/api/v1/researchers/lookup")["orcid"])
    pattern = branch["pattern"]
    for accepted in ("0000-0002-5250-9277", "000000025250927X", "https://orcid.org/0000-0002-5250-9277"):
        assert re.fullmatch(pattern, accepted), accepted
    for accepted in ("http://www.orcid.org/0000-0002-1825-0097", "orcid.org/0000-0002-1825-0097"):
        assert re.fullmatch(pattern, accepted), accepted  # the forms real records hold (issue 32)
    assert not re.fullmatch(pattern, "٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X")  # other scripts' digits (Python's \d takes them)
    assert not re.fullmatch(pattern, "0" * 60)  # the 60-digit iD the schema allowed (400)
    assert api.get("/api/v1/researchers/lookup", {"orcid": "0" * 60}).status_code == 400


def test_no_string_parameter_admits_nul(api):
    schema = api.get("/openapi.json").json()
    strings = [
        (path, parameter["name"], branch)
        for path, operations in schema["paths"].items()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        for branch in parameter["schema"].get("anyOf", [parameter["schema"]])
        if branch.get("type") == "string" and "enum" not in branch
    ]
    assert ("/api/v1/institutions/{key}", "key") in {(path, name) for path, name, _ in strings}
    for path, name, branch in strings:
        assert not re.search(branch["pattern"], "ab\x00cd"), (path, name)
    assert api.get("/api/v1/institutions/a%00b").status_code == 400
