"""The search page's facet lists (``{% facet_items %}``, issue 28: written in Python, not by
four template loops of ``{% query_with %}`` links) give the HTML the loops gave: the links keep
the page's query (repeated keys, accents, TeX) without its page, the value the page is
filtered by is marked, names are escaped, a category's name is cut to 22 characters."""

from __future__ import annotations

import pytest
from django.template import engines
from django.test import RequestFactory

from pages.search_facets import Facet

# templates/pages/search.html's facet loops as they were before the tag replaced them.
LOOPS = {
    "categories": """{% for f in facets.categories %}<li><a href="/search?{% query_with category=f.value page=None %}" title="{{ f.title }}"{% if f.value == search.category %} aria-current="true"{% endif %}><span class="label">{{ f.label }} <span class="faint small">{{ f.title|truncatechars:22 }}</span></span><span class="n">{{ f.count|intcomma }}</span></a></li>{% endfor %}""",  # noqa: E501
    "years": """{% for f in facets.years|slice:":8" %}<li><a href="/search?{% query_with from=f.value to=f.value page=None %}"{% if search.year_from|stringformat:'s' == f.value and search.year_to|stringformat:'s' == f.value %} aria-current="true"{% endif %}><span class="label">{{ f.label }}</span><span class="n">{{ f.count|intcomma }}</span></a></li>{% endfor %}""",  # noqa: E501
    "researchers": """{% for f in facets.researchers %}<li><a href="/search?{% query_with researcher=f.value page=None %}"{% if search.researcher and search.researcher.pk|stringformat:'s' == f.value %} aria-current="true"{% endif %}><span class="label">{{ f.label }}</span><span class="n">{{ f.count|intcomma }}</span></a></li>{% endfor %}""",  # noqa: E501
    "institutions": """{% for f in facets.institutions %}<li><a href="/search?{% query_with institution=f.value page=None %}"{% if search.institution and search.institution.pk|stringformat:'s' == f.value %} aria-current="true"{% endif %}><span class="label">{{ f.label }}</span><span class="n">{{ f.count|intcomma }}</span></a></li>{% endfor %}""",  # noqa: E501
}
TAGS = {
    "categories": '{% facet_items facets.categories "category" search.category %}',
    "years": '{% facet_items facets.years|slice:":8" "from,to" search.year_from search.year_to %}',
    "researchers": '{% facet_items facets.researchers "researcher" search.researcher.pk %}',
    "institutions": '{% facet_items facets.institutions "institution" search.institution.pk %}',
}

# Real names from the bundled sample and ROR (an ampersand, apostrophes, accents, a category
# name longer than 22 characters).
FACETS = {
    "categories": [
        Facet("astro-ph.GA", "astro-ph.GA", 1234, title="Astrophysics of Galaxies"),
        Facet("hep-th", "hep-th", 7, title="High Energy Physics - Theory"),
        Facet("cond-mat.mes-hall", "cond-mat.mes-hall", 1, title="Mesoscale and Nanoscale Physics"),
    ],
    "years": [Facet(str(y), str(y), n) for y, n in zip(range(2026, 2015, -1), range(11, 0, -1), strict=True)],
    "researchers": [
        Facet("41", "V. I. Fal'ko", 12),
        Facet("7", "N. d'Ambrumenil", 3),
        Facet("1093", "C. -P. Yuan", 2),
    ],
    "institutions": [
        Facet("5", "Texas A&M University", 25_001),
        Facet("12", "Université Paris-Saclay", 4),
    ],
}


class _Pk:
    def __init__(self, pk: int):
        self.pk = pk


SEARCHES = [
    ("q=dark+matter&page=3", {}),
    (
        "q=%24%5Calpha%24-particle+%26+%24%5Cbeta%24&category=hep-th&category=hep-ph&from=2020&to=2020&page=2",
        {"category": "hep-th", "year_from": 2020, "year_to": 2020},
    ),
    (
        "researcher=41&institution=5&from=2019",
        {"researcher": _Pk(41), "institution": _Pk(5), "year_from": 2019},
    ),
    ("", {"year_from": 2021, "year_to": 2022}),
]


@pytest.mark.parametrize(("query", "search"), SEARCHES)
@pytest.mark.parametrize("kind", sorted(LOOPS))
def test_facet_items_give_the_loops_html(query, search, kind):
    request = RequestFactory().get("/search?" + query)
    search = {
        "category": "",
        "year_from": None,
        "year_to": None,
        "researcher": None,
        "institution": None,
    } | search
    context = {"request": request, "facets": FACETS, "search": search}
    engine = engines["django"]
    loop = engine.from_string("{% load wove humanize %}" + LOOPS[kind]).render(context)
    tag = engine.from_string("{% load wove %}" + TAGS[kind]).render(context)
    assert tag == loop


def test_a_hand_checked_facet():
    request = RequestFactory().get("/search?q=dark+matter&category=hep-th&page=2")
    html = (
        engines["django"]
        .from_string("{% load wove %}" + TAGS["categories"] + TAGS["institutions"])
        .render({"request": request, "facets": FACETS, "search": {"category": "hep-th", "institution": None}})
    )
    assert (
        '<li><a href="/search?q=dark+matter&amp;category=hep-th" title="High Energy Physics - Theory"'
        ' aria-current="true"><span class="label">hep-th <span class="faint small">High Energy Physics -…'
        '</span></span><span class="n">7</span></a></li>'
    ) in html
    assert (
        '<li><a href="/search?q=dark+matter&amp;category=hep-th&amp;institution=5"><span class="label">'
        'Texas A&amp;M University</span><span class="n">25,001</span></a></li>'
    ) in html
