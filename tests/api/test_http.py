"""HTTP behaviour shared by every API URL: errors as JSON, caching, conditional GET, CORS, docs."""

from __future__ import annotations

import re
from datetime import timedelta

import django.core.signing
import pytest
from django.utils import timezone
from django.utils.http import http_date

from curation.confirm import authorship_confirm
from curation.merge import researcher_merge
from researchers.models import Authorship, Researcher

pytestmark = pytest.mark.django_db


def test_etag_and_conditional_get(api):
    first = api.get("/api/v1/papers/0704.0001")
    etag = first["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
    # The "api" row of wove/http_cache.py's table; Vary: Cookie, as a signed-in caller gets "private".
    assert first["Cache-Control"] == "public, max-age=60, s-maxage=300, stale-while-revalidate=600"
    assert first["Vary"] == "Accept-Encoding, Cookie"
    assert first["Last-Modified"].endswith(" GMT")
    again = api.get("/api/v1/papers/0704.0001", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag
    since = api.get("/api/v1/papers/0704.0001", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304
    stale = api.get("/api/v1/papers/0704.0001", HTTP_IF_NONE_MATCH='"0000"')
    assert stale.status_code == 200
    listed = api.get("/api/v1/papers", {"size": 5})
    assert api.get("/api/v1/papers", {"size": 5}, HTTP_IF_NONE_MATCH=listed["ETag"]).status_code == 304


def test_an_editors_confirmation_moves_the_papers_last_modified(api, django_user_model, monkeypatch):
    """An authorship had no change time: an editor's confirmation changed the paper record's
    body (its ETag) but not its Last-Modified, so a client revalidating with
    If-Modified-Since kept the old copy (304). 0704.0001 is signed already, so the
    confirmation's signed event makes no new record that would move it anyway."""
    link = Authorship.objects.get(paper__arxiv_id="0704.0001", slot__position=1)
    # A guess as the matcher leaves one: the name alone, unconfirmed.
    Authorship.objects.filter(pk=link.pk).update(
        unconfirmed=True,
        confidence=0.6,
        evidence=[{"kind": "name", "name": "C. Balázs", "block": link.block}],
    )
    first = api.get("/api/v1/papers/0704.0001")
    assert first.json()["author_slots"][0]["authorship"]["unconfirmed"] is True

    later = timezone.now() + timedelta(hours=1)  # the editor confirms it an hour later
    monkeypatch.setattr(timezone, "now", lambda: later)
    editor = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    authorship_confirm(authorship_id=link.pk, editor=editor)

    again = api.get("/api/v1/papers/0704.0001", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 200
    assert again["Last-Modified"] == http_date(later.timestamp()) != first["Last-Modified"]
    authorship = again.json()["author_slots"][0]["authorship"]
    assert (authorship["unconfirmed"], authorship["confidence"], authorship["method"]) == (
        False,
        0.95,
        "local",
    )
    assert (
        api.get("/api/v1/papers/0704.0001", HTTP_IF_MODIFIED_SINCE=again["Last-Modified"]).status_code == 304
    )


def test_a_merge_giving_the_survivor_an_orcid_moves_its_papers_last_modified(
    api, django_user_model, monkeypatch
):
    """A merge writes researchers with QuerySet.update, which skips ``auto_now``: the survivor
    took the merged record's ORCID iD, its papers' records showed it, and their
    Last-Modified stayed (a revalidating client kept the copy without it: 304)."""
    survivor = Authorship.objects.get(paper__arxiv_id="0704.0001", slot__position=1).researcher
    holder = Researcher.objects.create(display_name="Csaba Balázs", orcid="0000-0002-5250-9277")
    first = api.get("/api/v1/papers/0704.0001")
    assert first.json()["author_slots"][0]["researcher"]["orcid"] is None

    later = timezone.now() + timedelta(hours=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    editor = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    researcher_merge(survivor_id=survivor.pk, merged_ids=[holder.pk], editor=editor, reason="Same person")

    again = api.get("/api/v1/papers/0704.0001", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 200
    assert again.json()["author_slots"][0]["researcher"]["orcid"] == "0000-0002-5250-9277"
    assert again["Last-Modified"] == http_date(later.timestamp())


def test_cors_open_and_preflight(api):
    response = api.get("/api/v1/papers", {"size": 1}, HTTP_ORIGIN="https://example.org")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in response["Access-Control-Expose-Headers"]
    preflight = api.options(
        "/api/v1/papers/batch",
        HTTP_ORIGIN="https://example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight["Access-Control-Allow-Methods"]
    error = api.get("/api/v1/papers/0704.9999")
    assert error["Access-Control-Allow-Origin"] == "*" and error["Cache-Control"] == "no-store"


def test_head_is_get_without_body(api):
    get = api.get("/api/v1/papers/0704.0001")
    head = api.head("/api/v1/papers/0704.0001")
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == get["ETag"]


def test_errors_are_json_never_html(api):
    unknown = api.get("/api/v1/no-such-thing")
    assert unknown.status_code == 404
    assert unknown.json() == {
        "status": 404,
        "code": "not_found",
        "detail": "No API endpoint at /api/v1/no-such-thing.",
        "errors": None,
    }
    wrong_method = api.delete("/api/v1/papers")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["code"] == "method_not_allowed"
    assert wrong_method["Allow"] == "GET"
    bad_int = api.get("/api/v1/researchers/abc")  # a validation error on the id (issue 32)
    assert bad_int.status_code == 422 and bad_int["Content-Type"].startswith("application/json")
    assert bad_int.json()["code"] == "validation_error"
    bad_body = api.post("/api/v1/papers/batch", "{not json", content_type="application/json")
    assert bad_body.status_code == 400 and bad_body.json()["code"] == "bad_request"
    wrong_shape = api.post("/api/v1/papers/batch", {"ids": "0704.0001"}, content_type="application/json")
    assert wrong_shape.status_code == 422 and wrong_shape.json()["errors"]


def test_openapi_document_at_both_urls(api):
    root = api.get("/openapi.json")
    assert root.status_code == 200
    document = root.json()
    assert document["openapi"].startswith("3.")
    assert document == api.get("/api/v1/openapi.json").json()
    paths = set(document["paths"])
    assert {
        "/api/v1/papers",
        "/api/v1/papers/batch",
        "/api/v1/papers/{arxiv_id}",
        "/api/v1/papers/{arxiv_id}/provenance/bundle",
        "/api/v1/papers/{arxiv_id}/provenance/state",
        "/api/v1/researchers",
        "/api/v1/researchers/lookup",
        "/api/v1/researchers/{researcher_id}",
        "/api/v1/researchers/{researcher_id}/papers",
        "/api/v1/researchers/{researcher_id}/coauthors",
        "/api/v1/institutions",
        "/api/v1/institutions/{key}",
        "/api/v1/institutions/{key}/researchers",
        "/api/v1/institutions/{key}/papers",
        "/api/v1/search",
    } <= paths
    papers = document["paths"]["/api/v1/papers"]["get"]["responses"]
    assert {"ETag", "Cache-Control", "X-RateLimit-Remaining"} <= set(papers["200"]["headers"])
    assert papers["429"]["headers"]["Retry-After"]["required"] is True
    assert "304" in papers
    error = document["components"]["schemas"]["Error"]
    assert set(error["properties"]) == {"status", "code", "detail", "errors"}
    # Every operation documents its errors with the one Error schema.
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    ref = answer["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/Error", (method, path, status)


def test_docs_page_serves_swagger_locally_with_its_own_csp(api):
    response = api.get("/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn" not in html.lower()
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts and all(src.startswith("/static/ninja/") for src in scripts)
    assert '"url": "/api/v1/openapi.json"' in html
    csp = response["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "style-src 'self' 'unsafe-inline'" in csp
    assert "https:" not in csp


def test_a_list_page_keeps_its_etag_from_one_second_to_the_next(api, monkeypatch):
    """A list page's ``next_cursor`` was signed with a timestamp (``signing.dumps``), so the
    body and its ``ETag`` changed every second and a conditional GET a second later never
    answered 304 (the suite's ETag test failed whenever its two requests straddled a second)."""
    listed = api.get("/api/v1/papers", {"size": 5})
    assert listed.json()["next_cursor"]
    later = django.core.signing.time.time() + 5
    monkeypatch.setattr(django.core.signing.time, "time", lambda: later)
    again = api.get("/api/v1/papers", {"size": 5}, HTTP_IF_NONE_MATCH=listed["ETag"])
    assert again.status_code == 304
    # The cursor still pages on.
    following = api.get("/api/v1/papers", {"size": 5, "cursor": listed.json()["next_cursor"]})
    assert following.status_code == 200 and len(following.json()["items"]) == 5
