"""Wagtail pages made by the data migration, the contact form, home, llms.txt, the 404
guidance as Markdown, and the site-wide layout (footer, JSON-LD, CSP-safe markup)."""

from __future__ import annotations

import json

import pytest
from django.core import mail
from lxml import html as lxml_html

from papers import harvest
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path, heading, text",
    [
        ("/about", "About wovepaper", "Research Organization Registry"),
        ("/privacy", "Privacy", "no advertising or third-party trackers"),
        (
            "/developers",
            "Developers",
            "curl -s &#x27;http://127.0.0.1:8000/api/v1/papers?q=%22dark+matter%22",
        ),
        ("/contact", "Contact", "Send message"),
    ],
)
def test_cms_pages_exist_with_content(client, cms_pages, path, heading, text):
    response = client.get(path)
    assert response.status_code == 200
    page = lxml_html.fromstring(response.content)
    assert page.xpath("string(//h1)") == heading
    assert text in response.content.decode()
    assert page.xpath('string(//link[@rel="canonical"]/@href)').endswith(path)


def test_developers_page_links_the_api_docs(client, cms_pages):
    page = lxml_html.fromstring(client.get("/developers").content)
    links = page.xpath("//main//a/@href")
    assert "/openapi.json" in links and "/api/docs" in links
    assert len(page.xpath("//main//pre/code")) >= 5


def test_contact_form_stores_and_mails(client, settings, cms_pages):
    from wagtail.contrib.forms.models import FormSubmission

    settings.SITE_OWNER_EMAIL = "owner@wove.example"
    response = client.post(
        "/contact",
        {
            "your_name": "Ada <b>Lovelace</b>",
            "email": "ada@example.org",
            "topic": "Researcher identity (merge or split)",
            "link_to_the_page_concerned": "https://wove.example/researchers/1-ada",
            "message": "Two of my records should be one.",
        },
    )
    assert response.status_code == 200
    assert "Message sent" in response.content.decode()
    submission = FormSubmission.objects.get()
    assert submission.get_data()["email"] == "ada@example.org"
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["owner@wove.example"]
    assert "Two of my records should be one." in mail.outbox[0].body
    # A bot filling the hidden field gets the thank-you page; nothing is stored or sent.
    bot = {"your_name": "Bot", "email": "bot@example.org", "topic": "General question", "message": "Buy"}
    response = client.post("/contact", {**bot, "website": "https://spam.example"})
    assert "Message sent" in response.content.decode()
    assert FormSubmission.objects.count() == 1 and len(mail.outbox) == 1
    # An invalid form is shown again with errors and stores nothing.
    response = client.post("/contact", {"your_name": "x", "email": "not-an-email"})
    assert "errorlist" in response.content.decode()
    assert FormSubmission.objects.count() == 1


def test_cms_admin_is_at_cms_and_needs_login(client, admin_client, cms_pages):
    assert client.get("/cms/")["Location"].startswith("/cms/login/")
    response = admin_client.get("/cms/pages/")
    assert response.status_code == 200
    assert "unsafe-inline" in response["Content-Security-Policy"]
    assert "unsafe-inline" not in client.get("/about")["Content-Security-Policy"]


def test_home_layout_and_site_json_ld(client, settings):
    settings.SITE_URL = "https://wove.example"
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml"])
    response = client.get("/")
    page = lxml_html.fromstring(response.content)
    assert page.xpath("string(//ul[@class='counts']/li[1])").split() == ["3", "papers"]
    assert len(page.xpath("//article[@class='paper-item']")) == 3
    assert page.xpath("//form[@role='search']/@action") == ["/search", "/search"]
    footer = [a.text_content() for a in page.xpath("//footer//a")]
    for label in ("Search", "Researchers", "Institutions", "arXiv.org", "Semantic Scholar", "OpenAlex"):
        assert label in footer
    for label in ("Latest RSS", "About", "Contact", "Privacy", "Developers", "llms.txt", "openapi.json"):
        assert label in footer
    assert "Not affiliated with arXiv. Researcher data from Semantic Scholar (ODC-BY) and OpenAlex." in (
        " ".join(page.xpath("string(//p[@class='attribution'])").split())
    )
    graph = json.loads(page.xpath("//script[@type='application/ld+json']")[0].text)["@graph"]
    assert [n["@type"] for n in graph] == ["Organization", "WebSite"]
    assert page.xpath("string(//meta[@property='og:site_name']/@content)") == "wovepaper"
    assert page.xpath("string(//meta[@name='twitter:card']/@content)") == "summary_large_image"
    # The CSP forbids inline script and style: no executable inline script, no style attribute.
    assert not page.xpath("//script[not(@src) and not(@type='application/ld+json')]")
    assert not page.xpath("//*[@style]")
    assert page.xpath("//script/@src") == ["/static/js/site.js"]


def test_llms_txt_and_markdown_404(client, settings):
    settings.SITE_URL = "https://wove.example"
    response = client.get("/llms.txt")
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    body = response.content.decode()
    assert body.startswith("# wovepaper\n\n> ")
    for part in ("## URL forms", "## API", "## Feeds and indexes", "## Licences", "## Rate limits"):
        assert part in body
    assert "https://wove.example/openapi.json" in body and "/rss/latest.xml" in body
    markdown = client.get("/papers/2401.10241", HTTP_ACCEPT="text/markdown")
    assert markdown.status_code == 404 and markdown["Content-Type"].startswith("text/markdown")
    assert "## Where to look next" in markdown.content.decode()
    page = client.get("/no/such/page").content.decode()
    assert "This page isn’t here" in page and "Where to look next" in page


def test_privacy_page_lists_what_accounts_store(client, cms_pages):
    # Must match accounts/models.py: follows of researchers, institutions and categories,
    # digest settings and history, the private feed token, export and deletion.
    text = client.get("/privacy").content.decode()
    for fact in (
        "researchers, institutions or categories",
        "hashed password",
        "your digest choice (daily, weekly or off; weekly until you change it",
        "CSRF security cookie on pages with a form",
        "secret token of your private RSS feed",
        "which papers each digest listed",
        'href="/accounts/export.json"',
        'href="/accounts/delete"',
    ):
        assert fact in text, fact
