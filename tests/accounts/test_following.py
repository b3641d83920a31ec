"""The Following page and the private RSS feed: the owner's only; a revoked token stops it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from accounts import services
from accounts.models import AccountSettings
from papers.models import Category
from tests.accounts.conftest import make_reader

pytestmark = pytest.mark.django_db


def feed_ids(response) -> list[str]:
    """arXiv ids of an RSS 2.0 response's items, in order (from each item's link)."""
    root = ET.fromstring(response.content)
    return [re.search(r"/papers/([0-9.]+)-", item.findtext("link")).group(1) for item in root.iter("item")]


def test_following_page_lists_follows_and_their_newest_papers(archive, follower, reader):
    services.follow_create(user_id=reader.pk, target=archive["troccaz"])
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    services.follow_create(user_id=reader.pk, target=Category.objects.get(code="cs.DC"))
    response = follower.get("/accounts/following")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    html = response.content.decode()
    assert f'<a href="{archive["troccaz"].get_absolute_url()}">Jocelyne Troccaz</a>' in html
    assert f'<a href="{archive["jhu"].get_absolute_url()}">Johns Hopkins University</a>' in html
    assert '<span class="mono">cs.DC</span> Distributed, Parallel, and Cluster Computing' in html
    # Troccaz's 4 and JHU's 3 papers; no cs.DC paper is archived yet. Newest v1 first.
    ids = re.findall(r'<span class="mono">arXiv:([0-9.]+)</span>', html)
    assert ids == ["0801.4483", "0801.4386", "0801.4381", "0801.4355", "0801.3965", "0801.3849", "0801.3711"]
    assert "7 papers, newest first" in html
    assert "by Jocelyne Troccaz" in html and "from Johns Hopkins University" in html
    assert '<meta name="robots" content="noindex, nofollow">' in html


def test_only_the_owner_sees_their_following_page(archive, reader, visitor):
    services.follow_create(user_id=reader.pk, target=archive["troccaz"])
    response = visitor.get("/accounts/following")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/following"
    assert visitor.get("/accounts/settings").status_code == 302
    assert visitor.get("/accounts/export.json").status_code == 302

    other = make_reader("grace@example.org")
    services.follow_create(user_id=other.pk, target=archive["aickelin"])
    client = Client()
    client.force_login(other)
    html = client.get("/accounts/following").content.decode()
    assert "Uwe Aickelin" in html
    assert "Jocelyne Troccaz" not in html
    assert "0801.4483" not in html  # a Troccaz paper


def test_private_feed_by_token_then_revoked(archive, follower, reader):
    visitor = Client()  # a feed reader: no session (the visitor fixture is follower's client)
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    html = follower.get("/accounts/settings").content.decode()
    assert "Create my feed address" in html
    assert "/accounts/feed/" not in html

    follower.post("/accounts/feed-token", {"action": "regenerate"})
    token = AccountSettings.objects.get(user=reader).feed_token
    assert len(token) == 43
    assert (
        f"http://testserver/accounts/feed/{token}.xml" in follower.get("/accounts/settings").content.decode()
    )

    # Anyone holding the URL reads the feed (feed readers send no cookie).
    response = visitor.get(f"/accounts/feed/{token}.xml")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/rss+xml")
    assert response["X-Robots-Tag"] == "noindex"
    assert response["Cache-Control"] == "private, no-store"
    assert feed_ids(response) == ["0801.4386", "0801.4381", "0801.3849"]
    root = ET.fromstring(response.content)
    assert root.findtext("channel/title") == "wovepaper: papers from what you follow"
    assert b"ada@example.org" not in response.content

    # A new address kills the old one.
    follower.post("/accounts/feed-token", {"action": "regenerate"})
    new_token = AccountSettings.objects.get(user=reader).feed_token
    assert new_token != token
    assert visitor.get(f"/accounts/feed/{token}.xml").status_code == 404
    assert visitor.get(f"/accounts/feed/{new_token}.xml").status_code == 200

    # Revoked: the feed is gone.
    response = follower.post("/accounts/feed-token", {"action": "revoke"})
    assert response.status_code == 303
    assert AccountSettings.objects.get(user=reader).feed_token is None
    assert visitor.get(f"/accounts/feed/{new_token}.xml").status_code == 404
    assert follower.post("/accounts/feed-token", {"action": "delete-all"}).status_code == 400


def test_feeds_are_per_owner(archive, reader, visitor):
    other = make_reader("grace@example.org")
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    services.follow_create(user_id=other.pk, target=archive["troccaz"])
    mine = services.feed_token_regenerate(user_id=reader.pk)
    theirs = services.feed_token_regenerate(user_id=other.pk)
    assert feed_ids(visitor.get(f"/accounts/feed/{mine}.xml")) == ["0801.4386", "0801.4381", "0801.3849"]
    assert feed_ids(visitor.get(f"/accounts/feed/{theirs}.xml")) == [
        "0801.4483",
        "0801.4355",
        "0801.3965",
        "0801.3711",
    ]
    assert visitor.get("/accounts/feed/not-a-real-token.xml").status_code == 404
    # A deactivated account's feed stops too.
    other.is_active = False
    other.save()
    assert visitor.get(f"/accounts/feed/{theirs}.xml").status_code == 404


def test_digest_frequency_is_saved(db, follower, reader):
    response = follower.post("/accounts/settings", {"digest_frequency": "daily"})
    assert response.status_code == 303
    assert AccountSettings.objects.get(user=reader).digest_frequency == "daily"
    html = follower.get("/accounts/settings").content.decode()
    assert re.search(r'<input type="radio" name="digest_frequency" value="daily"[^>]*checked', html)
    assert follower.post("/accounts/settings", {"digest_frequency": "hourly"}).status_code == 200
    assert AccountSettings.objects.get(user=reader).digest_frequency == "daily"


def test_following_page_query_count(archive, follower, reader, django_assert_num_queries):
    for target in (
        archive["troccaz"],
        archive["aickelin"],
        archive["jhu"],
        Category.objects.get(code="cs.NE"),
    ):
        services.follow_create(user_id=reader.pk, target=target)
    # One view first: an archive's classes (category_codes) are kept in the cache, which an
    # earlier test may or may not have filled.
    follower.get("/accounts/following")
    # Session, user, settings, follows, the paper count and page, reasons (researchers,
    # institutions, followed codes, paper categories), and the saved searches three times
    # (listed, in the papers' condition, in the reasons): the same for any number of follows.
    with django_assert_num_queries(14):
        assert follower.get("/accounts/following").status_code == 200
