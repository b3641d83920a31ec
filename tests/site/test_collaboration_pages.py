"""Collaboration pages (issue 19): the page with its papers and members, JSON-LD
``Organization``, the sitemap section, llms.txt, and the paper page's collaborations."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest

from papers import harvest
from papers.models import Collaboration, Paper, PaperCollaboration
from researchers.matching_local import researchers_match_local

pytestmark = pytest.mark.django_db

OAI = "arxiv/oai"
SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@pytest.fixture
def harvested(fixtures_dir):
    harvest.harvest_files(
        paths=[
            # Chudasama; Dutta for the CMS. Then KESTREL, Keck/BICEP2, CDF/D0/CMS.
            fixtures_dir / OAI / "hepcrawl_sample_arxiv_record9.xml",
            fixtures_dir / OAI / "edited_arXivRaw_collaboration_forms.xml",
        ]
    )
    researchers_match_local()


def _jsonld(html: str) -> list[dict]:
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return [json.loads(block) for block in blocks]


def test_collaboration_page_lists_papers_members_and_organization(harvested, client, settings):
    settings.SITE_URL = "https://wove.example"
    cms = Collaboration.objects.get(key="cms")
    response = client.get(cms.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    # Both papers: "Dipanwita Dutta for the CMS" (1607.00786) and the bare "CMS" (0801.3881).
    assert "/papers/1607.00786-" in html and "/papers/0801.3881-" in html
    assert ">Dipanwita Dutta</a>" in html
    org = next(d for d in _jsonld(html) if d.get("@type") == "Organization" and "member" in d)
    assert org["name"] == "CMS Collaboration"
    assert org["url"] == f"https://wove.example/collaborations/{cms.pk}-cms-collaboration"
    assert [m["name"] for m in org["member"]] == ["Dipanwita Dutta"]
    # A wrong slug and the id alone answer 301 to the canonical page.
    assert client.get(f"/collaborations/{cms.pk}-wrong")["Location"] == cms.get_absolute_url()
    assert client.get(f"/collaborations/{cms.pk}")["Location"] == cms.get_absolute_url()
    assert client.get("/collaborations/999999-x").status_code == 404


def test_paper_page_shows_collaborations_in_author_order(harvested, client):
    # "Keck Array and BICEP2 Collaborations: P. Ade, Z. Ahmed"
    paper = Paper.objects.get(arxiv_id="0801.3880")
    html = client.get(paper.get_absolute_url()).content.decode()
    keck = Collaboration.objects.get(key="keck array")
    bicep = Collaboration.objects.get(key="bicep2")
    line = re.search(r'<p class="collaboration-list">(.*?)</p>', html, re.S).group(1)
    assert line.index(f'href="{keck.get_absolute_url()}"') < line.index(f'href="{bicep.get_absolute_url()}"')
    graphs = [item for d in _jsonld(html) for item in d.get("@graph", [])]
    article = next(item for item in graphs if item["@type"] == "ScholarlyArticle")
    assert article["author"][0]["@type"] == "Organization"
    assert article["author"][0]["url"].endswith(keck.get_absolute_url())
    dutta_page = client.get(Paper.objects.get(arxiv_id="1607.00786").get_absolute_url()).content.decode()
    assert "(for it: Dipanwita Dutta)" in dutta_page


def test_harvested_names_are_escaped(client, settings):
    paper = Paper.objects.create(arxiv_id="0801.3881", slug="x", title="t", categories=["hep-ex"])
    name = "</script><b>X</b> Collaboration"
    evil = Collaboration.objects.create(name=name, key="x", slug="x-collaboration")
    PaperCollaboration.objects.create(paper=paper, collaboration=evil, position=1)
    html = client.get(evil.get_absolute_url()).content.decode()
    assert "<b>X</b>" not in html
    assert "&lt;/script&gt;&lt;b&gt;X&lt;/b&gt; Collaboration" in html
    assert "\\u003C/script\\u003E" in html  # inside the JSON-LD block


def test_sitemap_section_and_llms_txt(harvested, client, settings):
    settings.SITE_URL = "https://wove.example"
    index = client.get("/sitemap.xml")
    sections = [loc.text for loc in ElementTree.fromstring(index.content).iterfind(".//sm:loc", SITEMAP_NS)]
    assert "https://wove.example/sitemap-collaborations.xml" in sections
    response = client.get("/sitemap-collaborations.xml")
    urls = {loc.text for loc in ElementTree.fromstring(response.content).iterfind(".//sm:loc", SITEMAP_NS)}
    on_papers = Collaboration.objects.filter(paper_entries__isnull=False).distinct()
    assert urls == {f"https://wove.example{c.get_absolute_url()}" for c in on_papers}
    ours = {"kestrel", "belle", "keck array", "bicep2", "cdf", "d0", "cms"}
    assert {f"https://wove.example{c.get_absolute_url()}" for c in on_papers.filter(key__in=ours)} <= urls
    assert on_papers.filter(key__in=ours).count() == 7
    assert "`/collaborations/<id>-<name-slug>`" in client.get("/llms.txt").content.decode()


def test_a_punctuation_slot_is_not_shown_as_an_author(client, fixtures_dir):
    """arXiv's record of 1603.05976 lists "Keck Array", "BICEP2 Collaborations", then a slot
    whose keyname is ":", then P. Ade ...: the ":" is stored as harvested but the paper page
    and its JSON-LD show no author named ":" (issue 19: punctuation is no one)."""
    harvest.harvest_files(paths=[fixtures_dir / OAI / "hepcrawl_sample_arxiv_record4.xml"])
    paper = Paper.objects.get(arxiv_id="1603.05976")
    assert paper.authors.filter(name=":").exists()
    page = client.get(paper.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200
    assert ">:</span>" not in html and ">:</a>" not in html
    blocks = [
        json.loads(b)
        for b in re.findall(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', html, re.S)
    ]
    nodes = [n for b in blocks for n in (b if isinstance(b, list) else b.get("@graph", [b]))]
    (article,) = [n for n in nodes if n.get("@type") == "ScholarlyArticle"]
    names = [a["name"] for a in article["author"]]
    assert ":" not in names
    assert names[:3] == ["Keck Array", "BICEP2 Collaborations", "P. Ade"]


def test_the_collaborations_list_and_the_trail_to_it(harvested, client, settings):
    # Bug (issue 32): /collaborations was a 404 and the page's "Collaborations" crumb no link.
    settings.SITE_URL = "https://wove.example"
    html = " ".join(client.get("/collaborations").content.decode().split())
    rows = re.findall(
        r'class="entity-name" href="(/collaborations/[^"]+)">([^<]+)</a></div>'
        r'<div class="entity-badges"><span class="badge">(\d+) papers?</span>',
        html,
    )
    expected = {
        c.name: c.paper_entries.values("paper").distinct().count() for c in Collaboration.objects.all()
    }
    assert {name: int(n) for _url, name, n in rows} == expected
    assert int(rows[0][2]) == max(expected.values())  # most papers first
    cms = Collaboration.objects.get(key="cms")
    assert ("CMS Collaboration", 2) in [(name, int(n)) for _u, name, n in rows]
    page = client.get(cms.get_absolute_url()).content.decode()
    assert '› <a href="/collaborations">Collaborations</a> ›' in page
    crumbs = next(d for d in _jsonld(page) if d.get("@type") == "BreadcrumbList")["itemListElement"]
    assert [c.get("item") for c in crumbs][:2] == [
        "https://wove.example/",
        "https://wove.example/collaborations",
    ]


def test_search_feed_and_saved_search_filter_by_collaboration(harvested, client, settings):
    """Issue 31: a collaboration is a search filter like a researcher: the search page, its
    feed, the API's paper list and a saved search list the CMS's two papers (1607.00786,
    written "for the CMS", and 0801.3881, which names it bare), newest first."""
    from django.contrib.auth import get_user_model

    from accounts.saved_searches import saved_search_save
    from accounts.selectors import saved_search_new

    cms = Collaboration.objects.get(key="cms")
    html = client.get(cms.get_absolute_url()).content.decode()
    assert f'href="/search/feed.xml?collaboration={cms.pk}"' in html
    page = client.get(f"/search?collaboration={cms.pk}&sort=newest").content.decode()
    assert re.findall(r'<span class="mono">arXiv:([^<]+)</span>', page) == ["1607.00786", "0801.3881"]
    assert 'class="chip"' in page and "CMS Collaboration <span" in page
    feed = client.get(f"/search/feed.xml?collaboration={cms.pk}").content.decode()
    assert "<title>wovepaper search: all papers of CMS Collaboration</title>" in feed
    assert re.findall(r"<link>[^<]*/papers/([0-9.]+)-", feed) == ["1607.00786", "0801.3881"]
    listed = client.get(f"/api/v1/papers?collaboration={cms.pk}").json()
    assert [item["arxiv_id"] for item in listed["items"]] == ["1607.00786", "0801.3881"]
    assert client.get("/api/v1/papers?collaboration=999999").status_code == 404
    # A saved search by the collaboration's name, made before these papers were archived.
    user = get_user_model().objects.create_user("ada", "ada@example.org", "pw-ada-12345")
    saved = saved_search_save(user_id=user.pk, data={"name": "CMS", "collaboration": "cms collaboration"})
    assert saved.collaboration == cms
    assert saved.feed_url() == f"/search/feed.xml?collaboration={cms.pk}&mode=keyword".replace(
        "&mode=keyword", ""
    )
    then = Paper.objects.order_by("created_at").first().created_at
    type(saved).objects.filter(pk=saved.pk).update(created_at=then, matches_since=then)
    saved.refresh_from_db()
    assert [p.arxiv_id for p in saved_search_new(saved)] == ["1607.00786", "0801.3881"]
