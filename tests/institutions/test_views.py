"""Institution pages: resolution by every input form, the page, JSON-LD, the list."""

from __future__ import annotations

import json
import re

import pytest
from lxml import html as lxml_html

from institutions.models import AuthorAffiliation, Institution, InstitutionName
from papers.models import Paper, PaperAuthor


def _canonical(registry, ror_id: str) -> str:
    return registry[ror_id].get_absolute_url()


def test_canonical_url_shape(ror_registry):
    mit = ror_registry["042nb2s44"]
    assert mit.get_absolute_url() == f"/institutions/{mit.pk}-massachusetts-institute-of-technology"
    assert ror_registry["0161xgx34"].slug == "universite-de-montreal"


@pytest.mark.parametrize(
    ("key", "ror_id"),
    [
        ("https://ror.org/042nb2s44", "042nb2s44"),
        ("ror.org/042nb2s44", "042nb2s44"),
        ("042nb2s44", "042nb2s44"),
        ("Massachusetts Institute of Technology", "042nb2s44"),  # display name
        ("MIT", "042nb2s44"),  # acronym
        ("Instituto Tecnológico de Massachusetts", "042nb2s44"),  # label (es)
        ("Todai", "057zh3y96"),  # alias
        ("the university of tokyo", "057zh3y96"),  # case and "the" ignored
        ("universite-de-montreal", "0161xgx34"),  # a slug of the display name
        # An inactive record's name leads to its active successor (issue 18).
        ("Université Montpellier 2", "051escj72"),
    ],
)
def test_every_form_redirects_permanently_to_the_canonical_page(visitor, ror_registry, key, ror_id):
    response = visitor.get(f"/institutions/{key}")
    assert response.status_code == 301
    assert response["Location"] == _canonical(ror_registry, ror_id)


def test_internal_id_and_wrong_slug_redirect(visitor, ror_registry):
    mit = ror_registry["042nb2s44"]
    assert visitor.get(f"/institutions/{mit.pk}")["Location"] == mit.get_absolute_url()
    response = visitor.get(f"/institutions/{mit.pk}-mit")
    assert (response.status_code, response["Location"]) == (301, mit.get_absolute_url())


# Bad check digits; a valid ROR ID that is not loaded (California Digital Library); a
# name nobody has; internal ids that do not exist.
@pytest.mark.parametrize("key", ["042nb2s45", "03yrm5c26", "nowhere-university", "999999", "999999-x"])
def test_unknown_is_404(visitor, ror_registry, key):
    assert visitor.get(f"/institutions/{key}").status_code == 404


def test_a_name_shared_by_several_institutions_gets_a_page_to_choose_from(visitor, ror_registry):
    # ROR's names set maps "Washington University" to the University of Washington; it is
    # also what people write for Washington University in St. Louis. Give it to both.
    for ror_id in ("00cvxb145", "01yc7t268"):
        InstitutionName.objects.create(
            institution=ror_registry[ror_id], value="Washington University", kind="alias",
            normalized="washington university",
        )  # fmt: skip
    response = visitor.get("/institutions/Washington University")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<meta name="robots" content="noindex">' in html
    assert html.index("University of Washington") < html.index("Washington University in St. Louis")
    assert _canonical(ror_registry, "00cvxb145") in html and _canonical(ror_registry, "01yc7t268") in html


def _json_ld(html: str) -> dict:
    match = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert match, "no JSON-LD"
    return json.loads(match.group(1))


def test_page_shows_the_record(visitor, ror_registry):
    tum = ror_registry["02kkvpp62"]
    html = visitor.get(tum.get_absolute_url()).content.decode()
    assert "<title>Technical University of Munich · wovepaper</title>" in html
    assert f'<link rel="canonical" href="http://127.0.0.1:8000{tum.get_absolute_url()}">' in html
    assert "TUM" in html  # acronym
    assert "Technische Universitaet Muenchen" in html  # alias
    assert "Technische Universität München" in html  # label (de)
    assert "Munich, Germany" in html
    assert 'href="https://ror.org/02kkvpp62"' in html
    assert 'href="https://www.tum.de"' in html
    # External ids: Wikidata Q157808, ISNI 0000 0001 2322 2966, FundRef 501100005713, GRID grid.6936.a.
    assert '<a href="https://www.wikidata.org/wiki/Q157808" rel="noopener nofollow">Q157808</a>' in html
    assert 'href="https://isni.org/isni/0000000123222966"' in html
    assert 'href="https://doi.org/10.13039/501100005713"' in html
    assert "grid.6936.a" in html
    data = _json_ld(html)
    assert "https://www.wikidata.org/wiki/Q157808" in data["sameAs"]
    assert data["@type"] == "Organization"
    assert data["identifier"] == {
        "@type": "PropertyValue",
        "propertyID": "ROR",
        "value": "https://ror.org/02kkvpp62",
    }
    assert data["address"] == {"@type": "PostalAddress", "addressLocality": "Munich", "addressCountry": "DE"}


def test_parent_and_children(visitor, ror_registry):
    mpi = ror_registry["04fq9j139"]
    html = visitor.get(mpi.get_absolute_url()).content.decode()
    # Its parent, the Max Planck Society, is loaded: an internal link.
    assert f'<a href="{ror_registry["01hhn8329"].get_absolute_url()}">Max Planck Society</a>' in html
    assert _json_ld(html)["parentOrganization"][0]["@id"] == "https://ror.org/01hhn8329"
    mpg_html = visitor.get(ror_registry["01hhn8329"].get_absolute_url()).content.decode()
    assert "Includes (99)" in mpg_html
    assert "Max Planck Institute for Intelligent Systems" in mpg_html


def test_inactive_record_is_shown_as_such_and_links_its_successor(visitor, ror_registry):
    html = visitor.get(ror_registry["00wh4bp03"].get_absolute_url()).content.decode()
    assert "ROR lists this institution as <strong>Inactive</strong>." in html
    successor = ror_registry["051escj72"]
    assert f'succeeded by <a href="{successor.get_absolute_url()}">Université de Montpellier</a>' in html
    # And the successor names it back as a predecessor (it lists it itself here).
    back = visitor.get(successor.get_absolute_url()).content.decode()
    assert "Succeeds" in back and ror_registry["00wh4bp03"].get_absolute_url() in back


def test_inbound_successor_links_fill_missing_predecessors(visitor, ror_registry):
    # Université Paris-Sud names Paris-Saclay as successor; Paris-Saclay lists no predecessor.
    html = visitor.get(ror_registry["03xjwb503"].get_absolute_url()).content.decode()
    assert "Succeeds" in html and ror_registry["028rypz17"].get_absolute_url() in html


def test_harvested_text_cannot_break_out_of_json_ld(visitor, ror_registry):
    mila = ror_registry["05c22rx21"]
    evil = "Mila </script><script>alert(1)</script> & <b>"
    Institution.objects.filter(pk=mila.pk).update(name=evil)
    html = visitor.get(f"/institutions/{mila.pk}-{mila.slug}").content.decode()
    assert "<script>alert(1)" not in html
    assert _json_ld(html)["name"] == evil
    assert "Mila &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in html


def test_papers_newest_first_and_fields(visitor, ror_registry):
    uw = ror_registry["00cvxb145"]
    for arxiv_id, when, category in [
        ("0704.0789", "2007-04-05T18:00:00Z", "astro-ph"),
        ("0801.3845", "2008-01-24T20:00:00Z", "astro-ph"),
        ("0704.0001", "2007-04-02T19:18:42Z", "hep-ph"),
    ]:
        paper = Paper.objects.create(
            arxiv_id=arxiv_id, slug="p", title=f"Paper {arxiv_id}", submitted_at=when,
            primary_category_id=category, categories=[category],
        )  # fmt: skip
        slot = PaperAuthor.objects.create(paper=paper, position=1, name="A. Author")
        AuthorAffiliation.objects.create(slot=slot, institution=uw, source="openalex")
    response = visitor.get(uw.get_absolute_url())
    assert [p.arxiv_id for p in response.context["page"].object_list] == [
        "0801.3845",
        "0704.0789",
        "0704.0001",
    ]
    assert [(f["code"], f["count"]) for f in response.context["fields"]] == [("astro-ph", 2), ("hep-ph", 1)]
    assert "3 papers in this archive" in response.content.decode()


def test_list_search_and_country_filter(visitor, ror_registry):
    html = visitor.get("/institutions/?q=montreal").content.decode()
    # Université de Montréal, Université du Québec à Montréal (accents folded), and Mila
    # (alias "Montreal Institute for Learning Algorithms").
    assert "3 institutions." in html
    assert "Université de Montréal" in html and "Université du Québec à Montréal" in html
    assert "Mila - Quebec Artificial Intelligence Institute" in html
    html = visitor.get("/institutions/?country=fr").content.decode()
    # France: Sorbonne, CNRS, Inria, Paris-Saclay, Montpellier, Paris Cité. Paris-Sud and
    # the inactive Montpellier record lead to Paris-Saclay and Montpellier: listed once each.
    assert "6 institutions." in html
    assert "Université Paris-Sud" not in html
    html = visitor.get("/institutions/?q=CNRS&country=FR").content.decode()
    assert "1 institution." in html and "Centre National de la Recherche Scientifique" in html
    assert "38 institutions." in visitor.get("/institutions/").content.decode()
    # A search still finds an inactive record, with the record that replaced it.
    html = visitor.get("/institutions/?q=paris-sud").content.decode()
    assert "Université Paris-Sud" in html and "<p>Now <a href=" in html


def test_an_unknown_institution_says_so_and_links_the_search(visitor, ror_registry):
    response = visitor.get("/institutions/Nowhere <b>University</b>")
    assert response.status_code == 404
    page = lxml_html.fromstring(response.content)
    assert page.xpath("string(//h1)") == "No institution matches “Nowhere <b>University</b>”"
    assert "/institutions?q=Nowhere%20%3Cb%3EUniversity%3C/b%3E" in page.xpath("//main//a/@href")
    assert "paper may not be in the corpus" not in response.content.decode()


def test_social_tags_are_sent_once(visitor, ror_registry):
    """Issue 21: institution pages sent their ``og:``/``twitter:`` tags and then the site's
    defaults again (the page filled ``meta``, not the ``social`` block)."""
    tum = ror_registry["02kkvpp62"]
    html = visitor.get(tum.get_absolute_url()).content.decode()
    tags = re.findall(r'<meta (?:property|name)="((?:og|twitter):[a-z:_]+)"', html)
    assert sorted(tags) == sorted(set(tags))
    assert '<meta property="og:title" content="Technical University of Munich · wovepaper">' in html
    assert "og:description" in tags and "og:image" in tags


def test_breadcrumb_json_ld_is_the_trail_the_page_shows(visitor, ror_registry):
    """Issue 21: institution pages showed a breadcrumb trail but sent no ``BreadcrumbList``."""
    tum = ror_registry["02kkvpp62"]
    html = visitor.get(tum.get_absolute_url()).content.decode()
    blocks = [
        json.loads(b) for b in re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    ]
    (crumbs,) = [b for b in blocks if b.get("@type") == "BreadcrumbList"]
    names = [item["name"] for item in crumbs["itemListElement"]]
    assert names == ["wovepaper", "Institutions", "Germany"]
    assert names == lxml_html.fromstring(html).xpath('//nav[@class="breadcrumbs"]/a/text()')
    assert crumbs["itemListElement"][2]["item"] == "http://127.0.0.1:8000/institutions/?country=DE"
