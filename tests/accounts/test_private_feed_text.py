"""The private feed renders items as every paper feed does (papers.feeds.PaperFeed, issue 17).

Before, it had its own item methods that put the harvested strings in as they are: a title
holding a control character (XML 1.0 forbids U+000B) made the whole feed unreadable XML.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from django.test import Client

from accounts import services
from accounts.models import AccountSettings
from papers.models import Paper


def test_private_feed_items_are_readable_xml(archive, follower, reader):
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    follower.post("/accounts/feed-token", {"action": "regenerate"})
    token = AccountSettings.objects.get(user=reader).feed_token
    Paper.objects.filter(arxiv_id="0801.4386").update(title="Spin \x0bwaves in $\\alpha$-Fe")

    response = Client().get(f"/accounts/feed/{token}.xml")

    root = ET.fromstring(response.content)  # raised "not well-formed" before
    titles = [item.findtext("title") for item in root.iter("item")]
    assert titles[0] == "Spin waves in α-Fe"
