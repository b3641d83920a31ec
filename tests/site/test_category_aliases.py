"""BUGS.md CAT-01: alias categories are filed, listed and fed under their canonical code."""

from __future__ import annotations

import importlib
import re
from xml.etree import ElementTree

import pytest
from django.apps import apps

from papers import harvest
from papers.models import Paper
from papers.selectors import category_canonical
from tests.site.conftest import OAI

pytestmark = pytest.mark.django_db

SET_CS = OAI / "edited_arXiv_category_aliases_set_cs.xml"  # A, B
SET_MATH = OAI / "edited_arXiv_category_aliases_set_math.xml"  # A again, C, D, E
A, B, C, D, E = "0705.0760", "0705.0043", "0705.0069", "chao-dyn/9705012", "0705.0862"


@pytest.fixture
def aliased(db):
    """The five CAT-01 records harvested as arXiv's OAI sends them: A in set cs and in set math."""
    harvest.harvest_files(paths=[SET_CS, SET_MATH])


def _feed_ids(response) -> list[str]:
    root = ElementTree.fromstring(response.content)
    guids = [item.findtext("guid").split("/papers/", 1)[1] for item in root.iter("item")]
    return [re.match(r"\d{4}\.\d{4,5}|[a-z-]+/\d{7}", guid).group(0) for guid in guids]


def test_cat01_canonical_map_follows_arxivs_taxonomy():
    """BUGS.md CAT-01: arXiv's six aliases and a subsumed archive, each to the code papers
    are filed under (arXiv taxonomy page: "math.IT is an alias for cs.IT", ...)."""
    pairs = {
        "math.IT": "cs.IT",
        "stat.TH": "math.ST",
        "math.MP": "math-ph",
        "cs.SY": "eess.SY",
        "cs.NA": "math.NA",
        "q-fin.EC": "econ.GN",
        "chao-dyn": "nlin.CD",
    }
    assert {alias: category_canonical(alias) for alias in pairs} == pairs
    assert {category_canonical(code) for code in pairs.values()} == set(pairs.values())
    assert category_canonical("no-such.XX") is None


def test_cat01_ingest_files_papers_under_canonical_codes(aliased):
    """BUGS.md CAT-01: canonical, deduplicated, first-seen order; one Paper for A."""
    stored = {p.arxiv_id: (p.categories, p.primary_category_id) for p in Paper.objects.all()}
    assert stored == {
        A: (["cs.IT", "cs.LG"], "cs.IT"),
        B: (["cs.IT"], "cs.IT"),
        C: (["math.ST"], "math.ST"),
        D: (["nlin.CD"], "nlin.CD"),
        E: (["math-ph", "quant-ph"], "math-ph"),
    }
    assert Paper.objects.filter(arxiv_id=A).count() == 1
    assert sorted(Paper.objects.get(arxiv_id=A).set_specs) == ["cs", "math"]


def test_cat01_listing_and_feed_redirect_aliases(aliased, client):
    """BUGS.md CAT-01: /papers/?category=cs.IT lists A and B once each; math.IT answers 301
    to it with the other parameters kept; the math.IT feed 301s to cs.IT's, which has no
    duplicate item."""
    page = client.get("/papers/?category=cs.IT")
    assert page.status_code == 200
    assert sorted(p.arxiv_id for p in page.context["page"]) == [B, A]
    assert page.context["page"].paginator.count == 2

    moved = client.get("/papers/?category=math.IT&page=1")
    assert moved.status_code == 301
    assert moved["Location"] == "/papers/?category=cs.IT&page=1"

    feed = client.get("/rss/category/math.IT.xml")
    assert feed.status_code == 301
    assert feed["Location"] == "/rss/category/cs.IT.xml"
    assert sorted(_feed_ids(client.get("/rss/category/cs.IT.xml"))) == [B, A]
    assert sorted(_feed_ids(client.get("/rss/category/math.ST.xml"))) == [C]


def test_cat01_search_page_and_api_filter_by_canonical_code(aliased, client):
    """BUGS.md CAT-01: the search page redirects an alias filter; the API answers an alias
    with the canonical category's papers."""
    moved = client.get("/search?category=stat.TH&sort=newest")
    assert moved.status_code == 301
    assert moved["Location"] == "/search?category=math.ST&sort=newest"
    found = client.get("/search?category=math.ST&sort=newest")
    assert [p.arxiv_id for p in found.context["page"]] == [C]

    for code in ("math.IT", "cs.IT"):
        body = client.get(f"/api/v1/papers?category={code}").json()
        assert sorted(item["arxiv_id"] for item in body["items"]) == [B, A]
    body = client.get("/api/v1/papers?category=chao-dyn").json()
    assert [item["arxiv_id"] for item in body["items"]] == [D]


def _stored() -> dict[str, tuple]:
    return {p.arxiv_id: (p.categories, p.primary_category_id, p.content_hash) for p in Paper.objects.all()}


def test_cat01_migration_canonicalises_stored_alias_codes(aliased):
    """BUGS.md CAT-01: categories stored as harvested (aliases, as before canonicalisation)
    become canonical, with the hash a re-harvest computes, so the re-harvest writes nothing."""
    migration = importlib.import_module("papers.migrations.0009_canonical_categories")
    canonical = _stored()
    Paper.objects.filter(arxiv_id=A).update(
        categories=["math.IT", "cs.LG"], primary_category_id="math.IT", content_hash="as-harvested"
    )
    Paper.objects.filter(arxiv_id=E).update(
        categories=["math.MP", "math-ph", "quant-ph"], primary_category_id="math.MP", content_hash="x"
    )
    Paper.objects.filter(arxiv_id=D).update(categories=["chao-dyn"], primary_category_id="chao-dyn")

    migration.canonicalise(apps, None)

    assert _stored() == canonical
    run = harvest.harvest_files(paths=[SET_CS, SET_MATH])
    assert run.records_written == 0
