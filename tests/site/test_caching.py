"""Conditional GET (ETag, Last-Modified, 304) and Cache-Control on pages, feeds and the API
(issue 28 "Conditional and cacheable", issue 30 "A CDN in front")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from curation.merge import researcher_merge
from institutions.models import AuthorAffiliation, Institution
from papers import harvest
from papers.models import Collaboration, Paper
from provenance.models import Record
from provenance.services import records_sign
from researchers.models import Authorship, Researcher
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db

# The table in wove/http_cache.py (README "Caching"), spelled out so a change is deliberate.
PAPER = "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400"
PERSON = "public, max-age=120, s-maxage=900, stale-while-revalidate=3600"
LIST = "public, max-age=60, s-maxage=300, stale-while-revalidate=600"
HOME = "public, max-age=60, s-maxage=120, stale-while-revalidate=600"
SEARCH = "public, max-age=30, s-maxage=60, stale-while-revalidate=120"
FEED = "public, max-age=300, s-maxage=900, stale-while-revalidate=3600"
FILE = "public, max-age=3600, s-maxage=86400, stale-while-revalidate=86400"
API = "public, max-age=60, s-maxage=300, stale-while-revalidate=600"
PAGE1 = OAI / "edited_arXivRaw_ListRecords_page1.xml"
LONG_AGO = datetime(2020, 1, 1, tzinfo=UTC)


def _link(paper: Paper, position: int, name: str, block: str) -> Researcher:
    researcher = Researcher.objects.create(display_name=name, paper_count=1)
    Authorship.objects.create(
        slot=paper.authors.get(position=position),
        paper=paper,
        researcher=researcher,
        method="editor",
        confidence=1.0,
        block=block,
    )
    return researcher


@pytest.fixture
def site(fixtures_dir):
    """Eight real arXivRaw records, the collaboration forms, two researchers (Naoum C.
    Bacalis on 0801.3673, and a second record of him on 0801.3675's first slot, for a
    merge), the University of Tokyo linked to 0801.3673's author, and a signed record.
    Every row is dated 2020-01-01, as if harvested long ago (HTTP dates have whole seconds)."""
    harvest.harvest_files(
        paths=[
            PAGE1,
            OAI / "edited_arXivRaw_ListRecords_page2.xml",
            OAI / "edited_arXivRaw_collaboration_forms.xml",
        ]
    )
    paper = Paper.objects.get(arxiv_id="0801.3673")
    bacalis = _link(paper, 1, "Naoum C. Bacalis", "n bacalis")
    other = _link(Paper.objects.get(arxiv_id="0801.3675"), 1, "N. Bacalis", "n bacalis")
    tokyo = Institution.objects.create(
        ror_id="057zh3y96", name="The University of Tokyo", country_code="JP", city="Tokyo"
    )
    AuthorAffiliation.objects.create(
        slot=paper.authors.get(position=1), institution=tokyo, source="string-match", confidence=0.9
    )
    records_sign(paper_ids=[paper.pk])
    for model in (Paper, Researcher, Authorship, Institution):
        model.objects.update(modified_at=LONG_AGO)
    return {
        "paper": paper,
        "bacalis": bacalis,
        "other": other,
        "tokyo": tokyo,
        "collaboration": Collaboration.objects.order_by("pk").first(),
        "record": Record.objects.filter(paper=paper).latest("source_version"),
    }


def _urls(site: dict) -> dict[str, tuple[str, str]]:
    paper = site["paper"].get_absolute_url()
    return {
        "home": ("/", HOME),
        "paper": (paper, PAPER),
        "paper authors": (paper + "/authors", PAPER),
        "researcher": (site["bacalis"].get_absolute_url(), PERSON),
        "institution": (site["tokyo"].get_absolute_url(), PERSON),
        "collaboration": (site["collaboration"].get_absolute_url(), PERSON),
        "papers list": ("/papers/", LIST),
        "researchers list": ("/researchers/", LIST),
        "institutions list": ("/institutions/", LIST),
        "search": ("/search?q=excited", SEARCH),
        "pith page": (f"/pith/{site['record'].pith_body}", PAPER),
        "latest feed": ("/rss/latest.xml", FEED),
        "category feed": ("/rss/category/quant-ph.xml", FEED),
        "researcher feed": (f"/rss/researchers/{site['bacalis'].pk}.xml", FEED),
        "sitemap": ("/sitemap.xml", FEED),
        "robots.txt": ("/robots.txt", FILE),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "home",
        "paper",
        "paper authors",
        "researcher",
        "institution",
        "collaboration",
        "papers list",
        "researchers list",
        "institutions list",
        "search",
        "pith page",
        "latest feed",
        "category feed",
        "researcher feed",
        "sitemap",
        "robots.txt",
    ],
)
def test_every_kind_answers_304_to_its_etag_with_a_public_cache_control(site, client, kind):
    url, cache_control = _urls(site)[kind]
    first = client.get(url)
    assert first.status_code == 200, url
    assert first["Cache-Control"] == cache_control
    assert "Cookie" in first["Vary"]
    assert "Set-Cookie" not in first
    etag = first["ETag"]
    assert etag.startswith('"') and len(etag) == 34  # a strong ETag: 32 hex digits of the body's MD5

    again = client.get(url, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert again["Cache-Control"] == cache_control  # a 304 refreshes what the cache keeps
    assert client.get(url, headers={"if-none-match": '"0123"'}).status_code == 200


def test_a_cms_page_gets_the_default_short_public_policy(site, client, cms_pages):
    response = client.get("/about")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=60, s-maxage=300, stale-while-revalidate=600"


@pytest.mark.parametrize("kind", ["latest feed", "category feed", "researcher feed"])
def test_feeds_answer_if_modified_since_and_move_with_a_reharvested_title(site, client, kind, tmp_path):
    url, _ = _urls(site)[kind]
    first = client.get(url)
    last_modified = first["Last-Modified"]
    # The newest item's modified_at, not its 2008 submission date: every row dates from 2020.
    assert last_modified == "Wed, 01 Jan 2020 00:00:00 GMT"
    not_modified = client.get(url, headers={"if-modified-since": last_modified})
    assert not_modified.status_code == 304 and not_modified.content == b""

    # arXiv sends 0801.3673 again with a corrected title.
    text = PAGE1.read_text().replace(
        "<title>Variational Functionals for Excited States</title>",
        "<title>Variational Functionals for Excited States, revised</title>",
    )
    text = text.replace("<datestamp>2008-01-25</datestamp>", "<datestamp>2008-02-01</datestamp>", 1)
    (tmp_path / "page1.xml").write_text(text)
    harvest.harvest_files(paths=[tmp_path / "page1.xml"])
    assert Paper.objects.get(arxiv_id="0801.3673").title.endswith(", revised")

    for headers in ({"if-modified-since": last_modified}, {"if-none-match": first["ETag"]}):
        changed = client.get(url, headers=headers)
        assert changed.status_code == 200
        assert "Variational Functionals for Excited States, revised" in changed.content.decode()
    assert changed["Last-Modified"] != last_modified


def test_a_researcher_feed_moves_when_the_researcher_is_renamed(site, client):
    url = f"/rss/researchers/{site['bacalis'].pk}.xml"
    last_modified = client.get(url)["Last-Modified"]
    bacalis = site["bacalis"]
    bacalis.display_name = "Naoum Bacalis"
    bacalis.save()
    changed = client.get(url, headers={"if-modified-since": last_modified})
    assert changed.status_code == 200
    assert "papers by Naoum Bacalis" in changed.content.decode()


def test_a_reharvested_abstract_gives_200_to_the_paper_pages_old_etag(site, client, tmp_path):
    url = site["paper"].get_absolute_url()  # (a new title would move the slug: a 301)
    etag = client.get(url)["ETag"]
    assert client.get(url, headers={"if-none-match": etag}).status_code == 304
    text = PAGE1.read_text().replace("Hamiltonian are presented.", "Hamiltonian are presented and proved.")
    (tmp_path / "page1.xml").write_text(text)
    harvest.harvest_files(paths=[tmp_path / "page1.xml"])
    changed = client.get(url, headers={"if-none-match": etag})
    assert changed.status_code == 200
    assert "Hamiltonian are presented and proved." in changed.content.decode()


def test_an_editors_merge_gives_200_to_the_survivors_old_etag(site, client, django_user_model):
    url = site["bacalis"].get_absolute_url()
    etag = client.get(url)["ETag"]
    assert client.get(url, headers={"if-none-match": etag}).status_code == 304
    editor = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-123", is_staff=True)
    researcher_merge(
        survivor_id=site["bacalis"].pk, merged_ids=[site["other"].pk], editor=editor, reason="Same person"
    )
    changed = client.get(url, headers={"if-none-match": etag})
    assert changed.status_code == 200
    assert "0801.3675" in changed.content.decode()  # the merged record's paper is listed now


def test_signed_in_pages_are_private_and_a_follow_changes_the_etag(site, client, django_user_model):
    user = django_user_model.objects.create_user("reader", "reader@example.org", "pw-reader-123")
    client.force_login(user)
    url = site["bacalis"].get_absolute_url()
    first = client.get(url)
    assert first["Cache-Control"] == "private, no-cache"
    assert "Cookie" in first["Vary"]
    assert 'aria-pressed="false"' in first.content.decode()
    response = client.post(f"/accounts/follow/researcher/{site['bacalis'].pk}", {"next": url})
    assert response.status_code in (302, 303)
    after = client.get(url, headers={"if-none-match": first["ETag"]})
    assert after.status_code == 200
    assert 'aria-pressed="true"' in after.content.decode()
    assert after["Cache-Control"] == "private, no-cache"
    # Every other kind too, feeds and the API included: never public once signed in.
    for kind, (other, _) in _urls(site).items():
        assert client.get(other)["Cache-Control"] == "private, no-cache", kind
    assert client.get("/api/v1/papers/0801.3673")["Cache-Control"] == "private, no-cache"


def test_an_anonymous_page_with_a_csrf_form_is_private(site, client, cms_pages):
    response = client.get("/contact")  # the CMS contact page's form
    assert response.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in response.content.decode()
    assert response["Cache-Control"] == "private, no-cache"
    assert "csrftoken" in response.cookies
    # allauth's sign-in page keeps its own never_cache, which is private too.
    login = client.get("/accounts/login/")
    assert login["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"


def test_the_404_varies_on_accept_and_is_not_stored(site, client):
    html = client.get("/papers/2601.99999")
    markdown = client.get("/papers/2601.99999", headers={"accept": "text/markdown"})
    assert (html.status_code, markdown.status_code) == (404, 404)
    assert markdown["Content-Type"] == "text/markdown; charset=utf-8"
    for response in (html, markdown):
        assert "Accept" in response["Vary"]
        assert response["Cache-Control"] == "no-store"
        assert "ETag" not in response


def test_the_api_is_public_for_anonymous_callers_and_revalidates(site, client):
    first = client.get("/api/v1/papers/0801.3673")
    assert first["Cache-Control"] == API
    assert "Cookie" in first["Vary"]
    again = client.get("/api/v1/papers/0801.3673", headers={"if-none-match": first["ETag"]})
    assert again.status_code == 304 and again["Cache-Control"] == API


@pytest.mark.parametrize(
    "url",
    ["/robots.txt", "/llms.txt", "/favicon.ico", "/sitemap.xml", "/search?q=quantum", "/search/suggest?q=ch"],
)
def test_head_answers_as_get_does(client, url):
    """Crawlers, CDNs and uptime monitors ask with HEAD (RFC 9110 §9.3.2): it answered 405
    where a view allowed GET alone (a newcomer found it)."""
    get, head = client.get(url), client.head(url)
    assert get.status_code == 200
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Type"] == get["Content-Type"]
