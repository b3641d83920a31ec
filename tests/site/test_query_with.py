"""{% query_with %}: the page's query string with changes applied, as QueryDict gives it
(issue 28: written without QueryDict.copy, which deep-copies, for each of a page's links)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from papers.templatetags.wove import query_with

QUERIES = [
    "q=dark+matter&category=astro-ph.CO&from=2020&page=2",
    # A title searched as its TeX source, a repeated key and an accented name.
    "q=%24%5Calpha%24-particle+%26+%24%5Cbeta%24&institution=Universit%C3%A9+Paris-Saclay&category=hep-th&category=hep-ph",
    "",
]
CHANGES = [{}, {"page": 3}, {"page": None}, {"sort": "cited", "q": None}, {"type": "researchers", "page": ""}]


@pytest.mark.parametrize("query", QUERIES)
def test_links_keep_the_query_as_querydict_writes_it(query):
    request = RequestFactory().get("/search?" + query)
    for changes in CHANGES:
        expected = request.GET.copy()
        for key, value in changes.items():
            if value in (None, ""):
                expected.pop(key, None)
            else:
                expected[key] = value
        assert query_with({"request": request}, **changes) == expected.urlencode(), changes


def test_a_hand_checked_link():
    request = RequestFactory().get("/search?" + QUERIES[1])
    assert query_with({"request": request}, page=2) == (
        "q=%24%5Calpha%24-particle+%26+%24%5Cbeta%24&institution=Universit%C3%A9+Paris-Saclay"
        "&category=hep-th&category=hep-ph&page=2"
    )
    assert query_with({}, page=2) == "page=2"
