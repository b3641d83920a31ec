"""``/api/v1/me/saved-searches`` (issue 31): list, create, update and delete under session
authentication, with Django's CSRF check on every unsafe method."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import SavedSearch
from tests.accounts.conftest import make_reader

pytestmark = pytest.mark.django_db
URL = "/api/v1/me/saved-searches"


@pytest.fixture
def browser(reader):
    """The reader's signed-in client, checking CSRF as a browser's requests are checked,
    holding the ``csrftoken`` cookie a site page gave it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(reader)
    client.get("/accounts/following")
    return client


def send(client: Client, method: str, url: str, body: dict | None = None, *, csrf: bool = True):
    headers = {"X-CSRFToken": client.cookies["csrftoken"].value} if csrf else {}
    return getattr(client, method)(
        url, data=json.dumps(body or {}), content_type="application/json", headers=headers
    )


def test_anonymous_callers_are_refused(archive, client):
    response = client.get(URL)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"
    assert client.post(URL, {"name": "x", "q": "x"}, content_type="application/json").status_code == 401


def test_create_list_update_delete(archive, reader, browser, settings):
    response = send(browser, "post", URL, {"name": "Imaging", "q": "ultrasound", "category": "cs.OH"})
    assert response.status_code == 201, response.content
    body = response.json()
    saved = SavedSearch.objects.get(user=reader)
    assert response["Location"] == f"{settings.SITE_URL}{URL}/{saved.pk}"
    assert body["id"] == saved.pk
    assert body["description"] == "“ultrasound” in cs.OH"
    assert (
        body["search_url"]
        == f"{settings.SITE_URL}/search?q=ultrasound&category=cs.OH&mode=keyword&sort=newest"
    )
    assert body["feed_url"] == f"{settings.SITE_URL}/search/feed.xml?q=ultrasound&category=cs.OH&mode=keyword"
    assert body["new_count"] == 0  # saved after the harvest: nothing new yet
    assert "private" in response["Cache-Control"]

    listed = browser.get(URL)
    assert listed.status_code == 200
    assert [item["name"] for item in listed.json()["items"]] == ["Imaging"]
    assert "private" in listed["Cache-Control"]

    patched = send(browser, "patch", f"{URL}/{saved.pk}", {"name": "Prostate imaging", "year_from": 2008})
    assert patched.status_code == 200, patched.content
    assert (patched.json()["name"], patched.json()["q"], patched.json()["year_from"]) == (
        "Prostate imaging",
        "ultrasound",
        2008,
    )
    replaced = send(browser, "put", f"{URL}/{saved.pk}", {"name": "Galaxies", "q": "luminosity"})
    assert replaced.status_code == 200
    assert (replaced.json()["category"], replaced.json()["year_from"]) == ("", None)  # left out: emptied
    saved.refresh_from_db()
    assert (saved.name, saved.q, saved.category) == ("Galaxies", "luminosity", "")

    assert send(browser, "delete", f"{URL}/{saved.pk}").status_code == 204
    assert browser.get(f"{URL}/{saved.pk}").status_code == 404
    assert not SavedSearch.objects.exists()


def test_unsafe_methods_need_the_csrf_token(archive, reader, browser):
    response = send(browser, "post", URL, {"name": "Imaging", "q": "ultrasound"}, csrf=False)
    assert response.status_code == 403
    assert not SavedSearch.objects.exists()
    saved = SavedSearch.objects.create(user=reader, name="Imaging", q="ultrasound")
    assert send(browser, "patch", f"{URL}/{saved.pk}", {"name": "Forged"}, csrf=False).status_code == 403
    assert (
        send(browser, "put", f"{URL}/{saved.pk}", {"name": "Forged", "q": "x"}, csrf=False).status_code == 403
    )
    assert send(browser, "delete", f"{URL}/{saved.pk}", csrf=False).status_code == 403
    assert SavedSearch.objects.get(pk=saved.pk).name == "Imaging"


def test_bad_terms_answer_422_naming_the_field(archive, browser):
    response = send(browser, "post", URL, {"name": "Nowhere", "category": "hep-xx"})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "validation_error"
    assert body["detail"] == "No arXiv category “hep-xx”."
    assert body["errors"] == [
        {"loc": ["body", "payload", "category"], "msg": "No arXiv category “hep-xx”.", "type": "invalid"}
    ]
    everything = send(browser, "post", URL, {"name": "Everything"})
    assert everything.status_code == 422
    assert everything.json()["errors"][0]["loc"] == ["body", "payload"]
    # Digits that are not ASCII ("²", "١") are no id: 422, not a 500 (the breaker's find).
    for field in ("researcher", "institution", "collaboration"):
        odd = send(browser, "post", URL, {"name": "Odd", "q": "ultrasound", field: "²"})
        assert odd.status_code == 422, (field, odd.content)
        assert odd.json()["errors"][0]["loc"] == ["body", "payload", field]
    # Only stop words or operators: a search that could never match is refused.
    for words in ("the", "-", "OR OR"):
        empty = send(browser, "post", URL, {"name": "Empty", "q": words})
        assert empty.status_code == 422, words
        assert "holds no word a search can match" in empty.json()["detail"]
    # A misspelt field is refused rather than saving a broader search.
    typo = send(browser, "post", URL, {"name": "Typo", "q": "ultrasound", "categroy": "cs.OH"})
    assert typo.status_code == 422
    assert not SavedSearch.objects.exists()


def test_ids_may_be_numbers(archive, reader, browser):
    aickelin = archive["aickelin"]
    response = send(browser, "post", URL, {"name": "Aickelin", "researcher": aickelin.pk})
    assert response.status_code == 201, response.content
    assert response.json()["researcher"]["id"] == aickelin.pk
    assert response.json()["researcher"]["name"] == "Uwe Aickelin"


def test_another_users_search_is_not_found(archive, reader, browser):
    other = make_reader("grace@example.org")
    theirs = SavedSearch.objects.create(user=other, name="Hers", q="ultrasound")
    assert browser.get(f"{URL}/{theirs.pk}").status_code == 404
    assert send(browser, "patch", f"{URL}/{theirs.pk}", {"name": "Mine now"}).status_code == 404
    assert send(browser, "delete", f"{URL}/{theirs.pk}").status_code == 404
    assert SavedSearch.objects.get(pk=theirs.pk).name == "Hers"


def test_the_search_api_names_its_feed(archive, client, settings):
    response = client.get("/api/v1/search?q=ultrasound")
    assert response.json()["feed_url"] == f"{settings.SITE_URL}/search/feed.xml?q=ultrasound&mode=keyword"
    assert response["Link"] == f'<{response.json()["feed_url"]}>; rel="alternate"; type="application/rss+xml"'
