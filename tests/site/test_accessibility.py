"""What axe-core and the Nu Html Checker found (issue 21), held in the HTML each page sends,
without a browser: named search landmarks, heading order, keyboard-reachable code blocks, the
sign-up form's markup, the API docs' language, the co-author network's group role. The
validators themselves run in tests/browser/test_validators.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from lxml import html as lxml_html

from papers import harvest
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db


def _tree(response):
    return lxml_html.fromstring(response.content)


@pytest.mark.parametrize(
    ("path", "names"),
    [
        ("/", ["Site search", "Search the archive"]),
        ("/papers/2401.10241", ["Site search", "Search the archive"]),
        ("/researchers", ["Site search", "Find researchers"]),
        ("/institutions", ["Site search", "Find institutions"]),
        ("/search?q=brane", ["Search the archive"]),
    ],
)
def test_each_search_landmark_has_its_own_name(client, path, names):
    # Two unnamed role="search" forms are two landmarks a screen reader cannot tell apart
    # (axe-core landmark-unique).
    forms = _tree(client.get(path)).xpath('//*[@role="search"]')
    assert [form.get("aria-label") for form in forms] == names


def test_papers_list_has_a_heading_between_the_title_and_the_items(client):
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml"])
    headings = [
        (h.tag, h.text_content().strip()[:30]) for h in _tree(client.get("/papers/")).xpath("//h1|//h2|//h3")
    ]
    # h1 "Latest papers", then an h2 before the items' h3 titles (axe-core heading-order).
    assert headings[0] == ("h1", "Latest papers")
    assert headings[1] == ("h2", "Papers, newest first")
    assert headings[2][0] == "h3"


def test_sign_up_help_is_a_div_not_a_list_inside_a_span(client):
    page = client.get("/accounts/signup/").content.decode()
    # Form.as_p put the password rules' <ul> inside <span> inside <p> (Nu: "Unclosed element span").
    assert '<span class="helptext"' not in page
    assert re.search(r'<div class="helptext" id="id_password1_helptext"><ul><li>', page)
    assert 'aria-describedby="id_password1_helptext"' in page


def test_developers_code_blocks_are_named_and_reachable_by_keyboard(client, cms_pages):
    blocks = _tree(client.get("/developers")).xpath("//pre")
    assert len(blocks) == 6
    assert {b.get("tabindex") for b in blocks} == {"0"}
    assert {b.get("role") for b in blocks} == {"region"}
    assert blocks[0].get("aria-label") == "One paper, by any identifier form"
    assert len({b.get("aria-label") for b in blocks}) == 6  # one name each


def test_api_docs_page_has_a_language_main_and_the_contrast_fix(client):
    response = client.get("/api/docs")
    tree = _tree(response)
    assert tree.get("lang") == "en"
    assert tree.xpath('//main[@id="swagger-ui"]')
    assert '/static/css/api-docs.css"' in response.content.decode()
    settings = json.loads(tree.xpath('//script[@id="swagger-settings"]')[0].text)
    # Deep links put a link inside each operation's button (axe-core nested-interactive).
    assert settings["deepLinking"] is False
    css = Path(finders.find("css/api-docs.css")).read_text()
    # White on #1f69c0 is 5.5:1 (Swagger's #61affe: 2.3:1).
    assert ".opblock-get .opblock-summary-method { background: #1f69c0; }" in css
