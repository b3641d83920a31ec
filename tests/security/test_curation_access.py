"""Curation refuses visitors, readers and staff who are not editors with a page that says
why (not a bare 403), and changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from curation.models import CurationRecord

pytestmark = pytest.mark.django_db

REQUESTS = [
    ("get", "/admin/curation/merge/?ids=1,2", {}),
    ("get", "/admin/curation/split/1/", {}),
    ("get", "/admin/curation/undo/1/", {}),
    ("get", "/admin/curation/queue/", {}),
    ("post", "/admin/curation/merge/", {"ids": "1,2", "survivor": "1", "reason": "same person"}),
    ("post", "/admin/curation/split/1/", {"authorships": "1", "target": "new", "reason": "two people"}),
    ("post", "/admin/curation/undo/1/", {"reason": "mistake"}),
    ("post", "/admin/curation/distinct/", {"a": "1", "b": "2", "reason": "different people"}),
    ("get", "/admin/curation/unconfirmed/", {}),
    ("get", "/admin/curation/unconfirmed/1/reassign/", {}),
    ("post", "/admin/curation/unconfirmed/1/confirm/", {"researcher": "1", "reason": "checked"}),
    ("post", "/admin/curation/unconfirmed/1/reassign/", {"researcher": "1", "target": "new", "reason": "x"}),
    ("get", "/admin/curation/proposals/", {}),
    ("get", "/admin/curation/proposals/1/", {}),
    ("post", "/admin/curation/proposals/1/decide", {"decision": "confirm", "reason": "same person"}),
]


def _client(django_user_model, username: str | None, **flags) -> Client:
    client = Client()
    if username:
        user = django_user_model.objects.create_user(
            username, f"{username}@example.org", "pw-12345-abc", **flags
        )
        if flags.get("is_staff"):
            user.user_permissions.add(Permission.objects.get(codename="view_researcher"))
        client.force_login(user)
    return client


@pytest.mark.parametrize(("method", "url", "data"), REQUESTS)
def test_visitor_gets_a_page_with_a_sign_in_link(method, url, data, django_user_model):
    response = getattr(_client(django_user_model, None), method)(url, data)
    assert response.status_code == 403
    assert [t.name for t in response.templates][0] == "curation/refused.html"
    body = response.content.decode()
    assert "<h1>Curation is for editors</h1>" in body
    path = url.split("?")[0]
    assert f'href="/admin/login/?next={path}"' in body
    assert not CurationRecord.objects.exists()


@pytest.mark.parametrize("staff", [False, True], ids=["reader", "staff-not-editor"])
def test_signed_in_non_editor_is_told_who_to_ask(staff, django_user_model):
    client = _client(django_user_model, "carol", is_staff=staff)
    for method, url, data in REQUESTS:
        response = getattr(client, method)(url, data)
        assert response.status_code == 403, url
        body = response.content.decode()
        # Named by the e-mail address sign-up asked for (issue 21), not the username.
        assert "You are signed in as carol@example.org, and this account cannot merge, split or undo" in body
        assert "<strong>Editors</strong> group" in body
    assert not CurationRecord.objects.exists()


def test_editor_still_gets_in(editor):
    response = editor.get("/admin/curation/queue/")
    assert response.status_code == 200
    assert "Curation is for editors" not in response.content.decode()
