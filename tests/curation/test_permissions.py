"""Only editors (and superusers) see and use curation; everyone else gets 403."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

from curation.models import CurationRecord

pytestmark = pytest.mark.django_db

GET_URLS = [
    "/admin/curation/merge/?ids=1,2",
    "/admin/curation/split/1/",
    "/admin/curation/undo/1/",
    "/admin/curation/queue/",
]
POST_URLS = [
    ("/admin/curation/merge/", {"ids": "1,2", "survivor": "1", "reason": "x"}),
    ("/admin/curation/split/1/", {"authorships": "1", "target": "new", "reason": "x"}),
    ("/admin/curation/undo/1/", {"reason": "x"}),
    ("/admin/curation/distinct/", {"a": "1", "b": "2", "reason": "x"}),
]


def test_editors_group_holds_exactly_the_curation_permissions():
    group = Group.objects.get(name="Editors")
    assert sorted(group.permissions.values_list("content_type__app_label", "codename")) == [
        ("curation", "curate_researchers"),
        ("curation", "view_curationrecord"),
        ("curation", "view_pairdecision"),
        ("researchers", "view_researcher"),
    ]


@pytest.fixture
def staff_client(django_user_model):
    """A staff member who may view researchers but is not an editor (own test client)."""
    client = Client()
    user = django_user_model.objects.create_user("staff", "s@example.org", "pw-staff-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_researcher"))
    client.force_login(user)
    return client


@pytest.fixture
def reader_client(django_user_model):
    """A signed-in reader (no staff flag, no permissions; own test client)."""
    client = Client()
    client.force_login(django_user_model.objects.create_user("reader", "r@example.org", "pw-reader-123"))
    return client


@pytest.mark.parametrize("who", ["visitor", "staff_client", "reader_client"])
def test_everyone_but_editors_gets_403(who, request):
    client = request.getfixturevalue(who)
    for url in GET_URLS:
        assert client.get(url).status_code == 403, url
    for url, data in POST_URLS:
        assert client.post(url, data).status_code == 403, url
    assert not CurationRecord.objects.exists()


def test_editors_and_superusers_get_in(editor, django_user_model):
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", "root@example.org", "pw-root-123"))
    for client in (editor, admin):
        assert client.get("/admin/curation/queue/").status_code == 200
        # A missing record is a 404 for those allowed in, not a 403.
        assert client.get("/admin/curation/undo/999999/").status_code == 404


def test_curation_actions_offered_to_editors_only(editor, staff_client, curation_sample):
    from researchers.models import Researcher

    page = editor.get("/admin/researchers/researcher/").content.decode()
    assert "Merge selected researchers" in page and "Split selected researcher" in page
    page = staff_client.get("/admin/researchers/researcher/").content.decode()
    assert "Merge selected researchers" not in page
    ids = list(Researcher.objects.order_by("pk").values_list("pk", flat=True)[:2])
    response = staff_client.post(
        "/admin/researchers/researcher/", {"action": "merge_researchers", "_selected_action": ids}
    )
    assert response.status_code != 302 or "/admin/curation/" not in response.get("Location", "")
    response = editor.post(
        "/admin/researchers/researcher/", {"action": "merge_researchers", "_selected_action": ids}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/admin/curation/merge/?ids={ids[0]},{ids[1]}"
    response = editor.post(
        "/admin/researchers/researcher/", {"action": "split_researcher", "_selected_action": ids[:1]}
    )
    assert response["Location"] == f"/admin/curation/split/{ids[0]}/"
