"""Harvested and user text holding HTML/JS payloads renders escaped on every surface:
pages, search, autocomplete, feeds (well-formed XML), JSON-LD, citation exports, API JSON."""

from __future__ import annotations

import json
from xml.sax.saxutils import escape as xml_escape

import lxml.html
import pytest
from lxml import etree

pytestmark = pytest.mark.django_db

# Author strings split at commas and take "(...)" as affiliations, so the payloads placed in
# names avoid both; titles and abstracts carry the classic forms.
TITLE = 'Quasar spins <script>alert(1)</script> "><img src=x onerror=alert(1)>'
ABSTRACT = "Quasar abstract </script><script>alert(2)</script> and <b onmouseover=alert(3)>bold</b>."
AUTHOR = 'Eve "><img src=x onerror=alert`4`> Quasarova'
AFFILIATION = "</script><svg onload=alert`5`> Institute"
RESEARCHER = "Mallory <script>alert`6`</script> Quasarov"
INSTITUTION = "Quasar </script><img src=x onerror=alert`7`> University"
PAYLOAD_MARKERS = ["<script>alert", "<img src=x", "<svg onload", "<b onmouseover", "</script><"]

HEAD = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    "<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'><responseDate>2014-01-16T10:33:29Z</responseDate>"
    "<request verb='ListRecords' metadataPrefix='arXivRaw'>http://export.arxiv.org/oai2</request><ListRecords>"
)


@pytest.fixture
def hostile(db, tmp_path):
    """One harvested paper (0801.3673) with payloads in its title, abstract, an author name
    and an affiliation; a researcher and an institution named with payloads, linked to it."""
    from institutions.models import AuthorAffiliation, Institution, InstitutionName
    from papers import harvest
    from papers.models import Paper
    from researchers.models import Authorship, Researcher

    record = (
        "<record><header><identifier>oai:arXiv.org:0801.3673</identifier><datestamp>2008-01-25</datestamp>"
        "</header><metadata><arXivRaw xmlns='http://arxiv.org/OAI/arXivRaw/'><id>0801.3673</id>"
        "<version version='v1'><date>Wed, 23 Jan 2008 21:06:41 GMT</date><size>121kb</size></version>"
        f"<title>{xml_escape(TITLE)}</title>"
        f"<authors>{xml_escape(AUTHOR)} ({xml_escape(AFFILIATION)}), {xml_escape(RESEARCHER)}</authors>"
        f"<categories>quant-ph</categories><abstract>{xml_escape(ABSTRACT)}</abstract>"
        "</arXivRaw></metadata></record>"
    )
    path = tmp_path / "hostile.xml"
    path.write_text(HEAD + record + "</ListRecords></OAI-PMH>", encoding="utf-8")
    harvest.harvest_files(paths=[path])
    paper = Paper.objects.get(arxiv_id="0801.3673")
    first, second = paper.authors.order_by("position")
    assert (paper.title, first.name, first.affiliations, second.name) == (
        TITLE,
        AUTHOR,
        [AFFILIATION],
        RESEARCHER,
    )
    researcher = Researcher.objects.create(display_name=RESEARCHER, paper_count=1)
    Authorship.objects.create(
        slot=second, paper=paper, researcher=researcher, method="editor", confidence=1.0, block="m quasarov"
    )
    institution = Institution.objects.create(ror_id="057zh3y96", name=INSTITUTION, country_code="JP")
    InstitutionName.objects.create(
        institution=institution, kind="ror_display", value=INSTITUTION, normalized="quasar university"
    )
    AuthorAffiliation.objects.create(
        slot=first, institution=institution, source="string-match", confidence=0.9
    )
    return {"paper": paper, "researcher": researcher, "institution": institution}


def _dom(response):
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/html")
    return lxml.html.document_fromstring(response.content.decode())


def assert_html_safe(response, *, expect: list[str]) -> str:
    """No element or attribute the payloads could have injected; the payload text is there,
    shown as text (so it was escaped, not dropped). Returns the page's text."""
    dom = _dom(response)
    body = response.content.decode()
    for marker in PAYLOAD_MARKERS:
        assert marker not in body, marker
    for element in dom.iter():
        if not isinstance(element.tag, str):
            continue
        assert not any(name.lower().startswith("on") for name in element.attrib), element.attrib
        assert element.get("src") != "x"
        if element.tag == "script":
            # Only our own scripts: files from /static/, or JSON-LD data.
            assert element.get("src") or element.get("type") == "application/ld+json", element.attrib
            assert "alert" not in (element.get("src") or "")
    text = "".join(dom.itertext(with_tail=True))
    for value in expect:
        assert value in text, value
    return body


def assert_json_ld_safe(response, *, expect: list[str]) -> list:
    """Every JSON-LD block parses, holds no ``</script`` (or ``<!--``), and carries the
    payload text intact once decoded."""
    dom = _dom(response)
    blocks = [s for s in dom.iter("script") if s.get("type") == "application/ld+json"]
    assert blocks
    raw = response.content.decode()
    start = 0
    for _ in blocks:  # the raw text between the tags, as a browser's tokenizer sees it
        start = raw.index('type="application/ld+json"', start)
        body = raw[raw.index(">", start) + 1 : raw.index("</script>", start)]
        assert "<" not in body and "</script" not in body.lower() and "<!--" not in body
        start += 1
    decoded = [json.loads(block.text) for block in blocks]
    dumped = json.dumps(decoded, ensure_ascii=False)
    for value in expect:
        assert json.dumps(value, ensure_ascii=False)[1:-1] in dumped, value
    return decoded


def test_paper_page(client, hostile):
    response = client.get(hostile["paper"].get_absolute_url())
    # Defence in depth: even an injected inline script would not run.
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert response["X-Frame-Options"] == "DENY"
    assert_html_safe(response, expect=[TITLE, "</script><script>alert(2)</script>", AUTHOR, AFFILIATION])
    assert_json_ld_safe(response, expect=[TITLE, AUTHOR])


def test_researcher_page(client, hostile):
    response = client.get(hostile["researcher"].get_absolute_url())
    assert_html_safe(response, expect=[RESEARCHER, TITLE])
    assert_json_ld_safe(response, expect=[RESEARCHER])


def test_institution_page(client, hostile):
    response = client.get(hostile["institution"].get_absolute_url())
    assert_html_safe(response, expect=[INSTITUTION])
    assert_json_ld_safe(response, expect=[INSTITUTION])


@pytest.mark.parametrize(
    ("params", "expect"),
    [
        ({"q": "quasar"}, [TITLE]),
        ({"q": "quasar", "type": "researchers"}, [RESEARCHER]),
        ({"q": "quasar", "type": "institutions"}, [INSTITUTION]),
        ({"q": '<script>alert(1)</script>"><img src=x onerror=alert(1)>'}, []),  # the query echoed
    ],
)
def test_search_results(client, hostile, params, expect):
    assert_html_safe(client.get("/search", params), expect=expect)


@pytest.mark.parametrize(("kind", "name"), [("researcher", RESEARCHER), ("institution", INSTITUTION)])
def test_autocomplete_is_json_with_the_text_intact(client, hostile, kind, name):
    response = client.get("/search/suggest", {"kind": kind, "q": "quasar"})
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert [r["name"] for r in response.json()["results"]] == [name]


def _feed(response) -> etree._Element:
    assert response.status_code == 200
    assert "xml" in response["Content-Type"]
    # Strict parse: a payload that broke out of its element would make it ill-formed.
    return etree.fromstring(response.content, etree.XMLParser(resolve_entities=False, no_network=True))


@pytest.mark.parametrize("url", ["/rss/latest.xml", "/rss/category/quant-ph.xml", "researcher"])
def test_feeds_are_well_formed_with_the_text_as_text(client, hostile, url):
    if url == "researcher":
        url = f"/rss/researchers/{hostile['researcher'].pk}.xml"
    root = _feed(client.get(url))
    assert [e.tag for e in root.iter() if e.tag in ("script", "img", "svg")] == []
    item = root.find("channel/item")
    assert item.findtext("title") == TITLE
    assert "</script><script>alert(2)</script>" in item.findtext("description")
    if url.startswith("/rss/researchers/"):
        assert RESEARCHER in root.findtext("channel/title")


@pytest.mark.parametrize("fmt", ["bib", "ris"])
def test_citation_exports_are_plain_text(client, hostile, fmt):
    response = client.get(f"/papers/0801.3673/export.{fmt}")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] in (
        "application/x-bibtex",
        "application/x-research-info-systems",
        "text/plain",
    )
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Quasar spins" in response.content.decode()


def test_api_json_carries_the_text_intact(client, hostile):
    response = client.get("/api/v1/papers/0801.3673")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["X-Content-Type-Options"] == "nosniff"
    body = response.json()
    assert body["title"] == TITLE
    assert body["abstract"] == ABSTRACT
    response = client.get(f"/api/v1/researchers/{hostile['researcher'].pk}")
    assert response.json()["name"] == RESEARCHER


def test_digest_email_and_private_feed(client, hostile, django_user_model):
    from django.utils import timezone

    from accounts import services
    from accounts.models import Digest, DigestPaper

    user = django_user_model.objects.create_user("reader", "reader@example.org", "pw-reader-123")
    services.follow_create(user_id=user.pk, target=hostile["researcher"])
    digest = Digest.objects.create(user=user, frequency="weekly", paper_count=1, created_at=timezone.now())
    DigestPaper.objects.create(user=user, paper=hostile["paper"], digest=digest)
    message = services.digest_message(digest, to="reader@example.org")
    html, mime = message.alternatives[0]
    assert mime == "text/html"
    for marker in PAYLOAD_MARKERS:
        assert marker not in html, marker
    dom = lxml.html.document_fromstring(html)
    elements = [e for e in dom.iter() if isinstance(e.tag, str)]
    injected = [e for e in elements if e.tag == "script" or e.get("src") == "x"]
    assert injected == []
    assert TITLE in "".join(dom.itertext())
    assert TITLE in message.body  # the text part: plain text, as written

    token = services.feed_token_regenerate(user_id=user.pk)
    root = _feed(client.get(f"/accounts/feed/{token}.xml"))
    assert root.find("channel/item").findtext("title") == TITLE
