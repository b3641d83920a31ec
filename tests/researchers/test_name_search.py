"""Researcher name search ignores accents and case: ``Muller`` finds ``Müller`` and back."""

import pytest

from pages.search import researchers_matching, suggest
from researchers.models import Researcher
from researchers.querysets import fold_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def muellers():
    return [
        Researcher.objects.create(display_name="Wolfgang Müller", slug="wolfgang-muller", paper_count=300),
        Researcher.objects.create(display_name="Jochen Muller", slug="jochen-muller", paper_count=200),
        Researcher.objects.create(
            display_name="Ł. Dąbrowski",
            slug="l-dabrowski",
            paper_count=100,
            name_variants=["Łukasz Dąbrowski"],
        ),
    ]


def test_fold_text():
    assert fold_text("Wolfgang MÜLLER") == "wolfgang muller"
    assert fold_text("Łukasz Dąbrowski, Ørsted") == "lukasz dabrowski, orsted"


def test_list_search_ignores_accents_both_ways(client, muellers):
    for query in ("Muller", "müller", "MÜLLER"):
        html = client.get("/researchers", {"q": query}).content.decode()
        assert "Wolfgang Müller" in html and "Jochen Muller" in html, query
    assert "Ł. Dąbrowski" in client.get("/researchers", {"q": "lukasz dab"}).content.decode()


def test_search_tab_and_suggest_ignore_accents(client, muellers):
    # Other tests may have loaded the real sample: look only at the three made here.
    ours = {r.pk for r in muellers}

    def names(query):
        return [r.display_name for r in researchers_matching(query) if r.pk in ours]

    assert names("wolfgang Muller") == ["Wolfgang Müller"]
    assert names("Jöchen") == ["Jochen Muller"]
    html = client.get("/search", {"q": "Müller", "type": "researchers"}).content.decode()
    assert "Wolfgang Müller" in html and "Jochen Muller" in html
    assert [r["name"] for r in suggest(text="mull", kind="researcher") if r["id"] in ours] == [
        "Wolfgang Müller",
        "Jochen Muller",
    ]
    assert [r["name"] for r in suggest(text="Dąb", kind="researcher") if r["id"] in ours] == ["Ł. Dąbrowski"]
