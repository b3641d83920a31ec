"""Follow and unfollow: POST with CSRF from the researcher, institution and category pages."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import services
from accounts.models import Follow
from papers.models import Category
from researchers.models import Researcher

pytestmark = pytest.mark.django_db


def test_follow_and_unfollow_a_researcher_from_the_page(archive, follower, reader):
    aickelin = archive["aickelin"]
    page = aickelin.get_absolute_url()
    html = follower.get(page).content.decode()
    assert f'action="/accounts/follow/researcher/{aickelin.pk}"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert f'<input type="hidden" name="next" value="{page}">' in html

    response = follower.post(f"/accounts/follow/researcher/{aickelin.pk}", {"next": page})
    assert response.status_code == 303
    assert response["Location"] == page
    assert list(Follow.objects.filter(user=reader).values_list("researcher_id", flat=True)) == [aickelin.pk]
    html = follower.get(page).content.decode()
    assert f'action="/accounts/unfollow/researcher/{aickelin.pk}"' in html
    assert "Following <span" in html
    # Issue 32: the page followed from says so, once (the messages piled up on
    # /accounts/following); neither the next view of it nor the account page repeats it.
    assert html.count("You now follow Uwe Aickelin.") == 1
    assert '<p class="banner banner-ok">You now follow Uwe Aickelin.</p>' in html
    assert "You now follow" not in follower.get(page).content.decode()
    assert "You now follow" not in follower.get("/accounts/following").content.decode()

    # Following twice keeps one row; unfollowing removes it; unfollowing again is harmless.
    follower.post(f"/accounts/follow/researcher/{aickelin.pk}", {"next": page})
    assert Follow.objects.filter(user=reader).count() == 1
    response = follower.post(f"/accounts/unfollow/researcher/{aickelin.pk}", {"next": page})
    assert response.status_code == 303 and response["Location"] == page
    assert not Follow.objects.filter(user=reader).exists()
    assert follower.get(page).content.decode().count("You no longer follow Uwe Aickelin.") == 1
    assert follower.post(f"/accounts/unfollow/researcher/{aickelin.pk}").status_code == 303


def test_follow_needs_csrf_and_post(archive, reader):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reader)
    url = f"/accounts/follow/researcher/{archive['aickelin'].pk}"
    assert client.post(url).status_code == 403
    assert client.get(url).status_code == 405
    assert not Follow.objects.exists()
    # With the token from the page, the same POST works (what a browser without JS does).
    client.get(archive["aickelin"].get_absolute_url())
    token = client.cookies["csrftoken"].value
    assert client.post(url, {"csrfmiddlewaretoken": token}).status_code == 303
    assert Follow.objects.filter(user=reader).count() == 1


def test_anonymous_visitor_is_sent_to_sign_in(archive, visitor):
    aickelin = archive["aickelin"]
    html = visitor.get(aickelin.get_absolute_url()).content.decode()
    assert f'href="/accounts/login/?next=/researchers/{aickelin.pk}-uwe-aickelin"' in html
    response = visitor.post(f"/accounts/follow/researcher/{aickelin.pk}")
    assert response.status_code == 303
    assert response["Location"] == f"/accounts/login/?next=%2Fresearchers%2F{aickelin.pk}-uwe-aickelin"
    assert visitor.post(f"/accounts/unfollow/researcher/{aickelin.pk}").status_code == 302
    assert not Follow.objects.exists()


def test_next_must_stay_on_this_site(archive, follower):
    url = f"/accounts/follow/researcher/{archive['aickelin'].pk}"
    response = follower.post(url, {"next": "https://evil.example/phish"})
    assert response["Location"] == archive["aickelin"].get_absolute_url()
    response = follower.post(url, HTTP_REFERER="https://evil.example/phish")
    assert response["Location"] == archive["aickelin"].get_absolute_url()


def test_without_next_the_follow_goes_back_to_the_referring_page(archive, follower):
    url = f"/accounts/follow/researcher/{archive['troccaz'].pk}"
    response = follower.post(url, HTTP_REFERER="http://testserver/search?q=troccaz")
    assert (response.status_code, response["Location"]) == (303, "http://testserver/search?q=troccaz")
    html = follower.get("/search?q=troccaz").content.decode()
    assert html.count("You now follow Jocelyne Troccaz.") == 1


def test_follow_an_institution_and_a_category(archive, follower, reader):
    jhu = archive["jhu"]
    html = follower.get(jhu.get_absolute_url()).content.decode()
    assert f'action="/accounts/follow/institution/{jhu.pk}"' in html
    follower.post(f"/accounts/follow/institution/{jhu.pk}")
    html = follower.get("/papers/?category=cs.NE").content.decode()
    assert 'action="/accounts/follow/category/cs.NE"' in html
    response = follower.post("/accounts/follow/category/cs.NE", {"next": "/papers/?category=cs.NE"})
    assert response["Location"] == "/papers/?category=cs.NE"
    assert (
        'action="/accounts/unfollow/category/cs.NE"'
        in follower.get("/papers/?category=cs.NE").content.decode()
    )
    kinds = sorted(f.kind for f in Follow.objects.filter(user=reader))
    assert kinds == ["category", "institution"]
    # The plain list has no category, so no button.
    assert "/accounts/follow/" not in follower.get("/papers/").content.decode()


def test_unknown_targets_are_404(db, follower):
    assert follower.post("/accounts/follow/researcher/999999").status_code == 404
    assert follower.post("/accounts/follow/category/no.such").status_code == 404
    assert follower.post("/accounts/follow/paper/1").status_code == 404


def test_following_a_merged_researcher_follows_the_survivor(archive, reader):
    survivor = archive["aickelin"]
    merged = Researcher.objects.create(display_name="U. Aickelin", merged_into=survivor)
    follow, created = services.follow_create(user_id=reader.pk, target=merged)
    assert created and follow.researcher_id == survivor.pk


def test_one_target_per_follow_is_enforced_by_the_database(archive, reader):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Follow.objects.create(user=reader, researcher=archive["aickelin"], institution=archive["jhu"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Follow.objects.create(user=reader)
    Follow.objects.create(user=reader, category=Category.objects.get(code="cs.NE"))
    with pytest.raises(IntegrityError), transaction.atomic():
        Follow.objects.create(user=reader, category=Category.objects.get(code="cs.NE"))
