"""The researcher page on the real sample: counts, JSON-LD, redirects, list and search."""

import json
import re

import pytest

from researchers.models import Authorship, Researcher

pytestmark = pytest.mark.django_db


@pytest.fixture
def chablat(matched_sample):
    return Authorship.objects.get(slot__paper__arxiv_id="0705.0856", slot__position=3).researcher


def ld_json(html):
    block = re.search(r'<script type="application/ld\+json" id="ld-researcher">(.*?)</script>', html, re.S)
    return json.loads(block.group(1))


def test_page_shows_the_counts_checked_by_hand(visitor, chablat, settings):
    url = f"/researchers/{chablat.pk}-damien-chablat"
    assert chablat.get_absolute_url() == url
    html = visitor.get(url).content.decode()
    assert "<title>Damien Chablat · wovepaper</title>" in html
    assert '<meta name="description" content="Damien Chablat: 8 papers in this archive.">' in html
    assert f'<link rel="canonical" href="{settings.SITE_URL}{url}">' in html
    assert '<meta property="og:title" content="Damien Chablat">' in html
    assert "8 papers here" in html
    assert "Matching runs newest-first and has papers still waiting, so older work may not be" in html
    assert "Across the 8 of 8 papers where every author was matched, so the position is known." in html
    counts = re.findall(
        r'<span class="bar-label">(\w+ author)</span>.*?<span class="bar-count">(\d+)</span>', html, re.S
    )
    assert counts == [("first author", "4"), ("middle author", "1"), ("last author", "3")]
    assert f'href="{url}?category=cs.RO">cs.RO</a>' in html
    assert "local match" in html
    # Co-authors: Philippe Wenger on 5 of the 8 papers, Jorge Angeles on 3, Bouyer and Caro on 2.
    assert re.findall(r"<title>([^<:]+): (\d) shared papers?</title>", html) == [
        ("Philippe Wenger", "5"),
        ("Jorge Angeles", "3"),
        ("Emilie Bouyer", "2"),
        ("Stéphane Caro", "2"),
    ]
    assert html.count('<article class="paper-item">') == 8
    assert ">Follow</" in html  # the button (accounts issue wires it)


def test_json_ld_person_and_breadcrumbs(visitor, chablat, settings):
    site = settings.SITE_URL
    url = f"{site}/researchers/{chablat.pk}-damien-chablat"
    Researcher.objects.filter(pk=chablat.pk).update(orcid="0000-0002-5250-9277")
    data = ld_json(visitor.get(url.removeprefix(site)).content.decode())
    person, crumbs = data["@graph"]
    assert person == {
        "@type": "Person",
        "@id": f"{url}#person",
        "url": url,
        "name": "Damien Chablat",
        "description": "Damien Chablat: 8 papers in this archive.",
        "identifier": {"@type": "PropertyValue", "propertyID": "ORCID", "value": "0000-0002-5250-9277"},
        "sameAs": ["https://orcid.org/0000-0002-5250-9277"],
        "mainEntityOfPage": {"@id": f"{url}#page"},
    }
    assert [i["name"] for i in crumbs["itemListElement"]] == ["wovepaper", "Researchers", "Damien Chablat"]
    Researcher.objects.filter(pk=chablat.pk).update(orcid=None)


def test_harvested_name_is_escaped_in_json_ld(visitor, matched_sample):
    evil = Researcher.objects.create(display_name="</script><b>x</b>", slug="x", paper_count=0)
    html = visitor.get(f"/researchers/{evil.pk}-x").content.decode()
    assert "</script><b>" not in html
    assert ld_json(html)["@graph"][0]["name"] == "</script><b>x</b>"
    evil.delete()


def test_redirects(visitor, chablat):
    canonical = f"/researchers/{chablat.pk}-damien-chablat"
    for path in [f"/researchers/{chablat.pk}", f"/researchers/{chablat.pk}-wrong-name"]:
        response = visitor.get(path)
        assert (response.status_code, response["Location"]) == (301, canonical)
    assert (
        visitor.get(f"/researchers/{chablat.pk}-x?category=cs.RO")["Location"]
        == canonical + "?category=cs.RO"
    )
    merged = Researcher.objects.create(
        display_name="Damien Chablat", slug="damien-chablat", merged_into=chablat
    )
    response = visitor.get(f"/researchers/{merged.pk}-damien-chablat")
    assert (response.status_code, response["Location"]) == (301, canonical)
    merged.delete()
    assert visitor.get("/researchers/999999999-nobody").status_code == 404


def test_filters_sorting_and_same_name(visitor, chablat):
    url = f"/researchers/{chablat.pk}-damien-chablat"
    assert visitor.get(url + "?category=math.AG").content.decode().count('class="paper-item"') == 0
    oldest = visitor.get(url + "?sort=oldest").content.decode()
    # 0705.0738 (5 May 2007) is the oldest of the eight; the others are from 7 May.
    assert oldest.index("0705.0738") < oldest.index("0705.0856")
    twin = Researcher.objects.create(display_name="Damien Chablat", slug="damien-chablat", paper_count=3)
    html = visitor.get(url).content.decode()
    assert (
        f'href="/researchers/{twin.pk}-damien-chablat">Damien Chablat</a> <span class="fine">— 3 papers'
        in html
    )
    assert "Either other researchers who publish under this name" in html
    twin.delete()


def test_list_and_name_search(visitor, matched_sample):
    html = visitor.get("/researchers?q=chablat").content.decode()
    assert 'Damien Chablat</a></div><span class="badge">8 papers</span>' in html
    assert "1 researcher," in html
    assert visitor.get("/researchers/").status_code == 200


def test_most_cited_and_per_year_chart(visitor, chablat):
    from papers.models import Paper

    Paper.objects.filter(arxiv_id="0705.0856").update(cited_by_count=5)
    Paper.objects.filter(arxiv_id="0705.0738").update(cited_by_count=2)
    url = f"/researchers/{chablat.pk}-damien-chablat"
    html = visitor.get(url).content.decode()
    most = html[html.index("most cited") :]
    assert "The Multiobjective Optimization of a Prismatic Drive" in most[:600]
    assert "5 citations · 7 across the 2 of their papers we have counts for" in html
    # All eight papers were submitted in 2007; the two counted ones hold 7 citations.
    assert '<span class="bar-count">8 papers · 7 citations</span>' in html
    assert '<span class="bar-label year">2007<span class="visually-hidden">:</span></span>' in html
    cited = visitor.get(url + "?sort=cited").content.decode()
    assert cited.index("0705.0856") < cited.index("0705.0738") < cited.index("0705.0982")


def _social_tags(html: str) -> list[str]:
    """The ``og:``/``twitter:`` property or name of every social ``<meta>`` in ``html``."""
    return re.findall(r'<meta (?:property|name)="((?:og|twitter):[a-z:_]+)"', html)


def test_social_tags_are_sent_once(visitor, chablat):
    """Issue 21: researcher pages sent every ``og:``/``twitter:`` tag twice, their own and
    then the site's defaults (the page filled ``meta``, not the ``social`` block)."""
    html = visitor.get(chablat.get_absolute_url()).content.decode()
    tags = _social_tags(html)
    assert sorted(tags) == sorted(set(tags))
    assert f'<meta property="og:title" content="{chablat.display_name}">' in html
    assert "og:image" in tags and "og:site_name" in tags


def test_fields_past_the_first_are_counted_and_offered_by_the_filter(visitor, chablat, monkeypatch):
    # A prolific researcher's fields are drawn as FIELD_BARS_SHOWN bars, the rest counted and
    # left to the papers' Field filter (111 bars for a synthetic 2,523-paper researcher, issue
    # 28); the filtered field stays drawn. Chablat's 8 papers are all in cs.RO.
    from researchers import profiles

    url = f"/researchers/{chablat.pk}-damien-chablat"
    monkeypatch.setattr(profiles, "FIELD_BARS_SHOWN", 0)
    html = visitor.get(url).content.decode()
    assert f'href="{url}?category=cs.RO">cs.RO</a>' not in html
    assert "and 1 more field in the" in html
    assert '<option value="cs.RO">cs.RO (8)</option>' in html
    filtered = visitor.get(url + "?category=cs.RO").content.decode()
    assert f'href="{url}?category=cs.RO" aria-current="true">cs.RO</a>' in filtered
    assert "more field" not in filtered
    assert '<option value="cs.RO" selected>cs.RO (8)</option>' in filtered
