"""Issue 21's structured-data items on the paper page: a withdrawn paper's status in its
JSON-LD, and the large summary card the site's 1200 x 630 image is made for."""

from __future__ import annotations

import json
import re

import pytest

from papers import harvest
from tests.conftest import SAMPLE_OAI_ARXIV

pytestmark = pytest.mark.django_db


def _article(html: str) -> dict:
    blocks = [
        json.loads(b)
        for b in re.findall(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', html, re.S)
    ]
    nodes = [n for b in blocks for n in (b if isinstance(b, list) else b.get("@graph", [b]))]
    (article,) = [n for n in nodes if n.get("@type") == "ScholarlyArticle"]
    return article


def test_a_withdrawn_paper_says_so_in_its_json_ld(client):
    """The real record of 0705.0134 (arXiv format) carries the comment "This paper has been
    withdrawn by the author ...": the page showed the banner but its JSON-LD said nothing.
    0705.0135, a live paper of the same page, has no status."""
    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV])
    withdrawn = client.get("/papers/0705.0134", follow=True)
    assert "This paper has been withdrawn" in withdrawn.content.decode()
    assert _article(withdrawn.content.decode())["creativeWorkStatus"] == "Withdrawn"
    live = client.get("/papers/0705.0135", follow=True)
    assert "creativeWorkStatus" not in _article(live.content.decode())
    for response in (withdrawn, live):
        html = response.content.decode()
        assert '<meta name="twitter:card" content="summary_large_image">' in html
        assert html.count('name="twitter:card"') == 1
