"""A list's page links (``{% pagination %}``, issue 28: built in Python, not by an included
template). The template asked ``get_elided_page_range`` without the page number, so page 9 of
219 listed 1-4 and 218-219 with no current page and no neighbours; the numbers now surround
the page shown. Where the template was right (a short list, the first page) the HTML is its."""

from __future__ import annotations

import re

import pytest
from django.template import engines
from django.test import RequestFactory

from wove.paginator import SitePaginator

# templates/includes/pagination.html as it was before the tag replaced it.
OLD = """{% load wove humanize %}{% if page.paginator.num_pages > 1 %}
<nav class="pagination" aria-label="Pagination">
  {% if page.has_previous %}<a rel="prev" href="?{% query_with page=page.previous_page_number %}">← Previous</a>{% endif %}
  {% for n in page.paginator.get_elided_page_range %}{% if n == page.number %}<span aria-current="page" class="current">{{ n|intcomma }}</span>{% elif n == page.paginator.ELLIPSIS %}<span aria-hidden="true">…</span>{% else %}<a href="?{% query_with page=n %}" aria-label="Page {{ n|intcomma }}">{{ n|intcomma }}</a>{% endif %}{% endfor %}
  {% if page.has_next %}<a rel="next" href="?{% query_with page=page.next_page_number %}">Next →</a>{% endif %}
  <span class="total">page {{ page.number|intcomma }} of {{ page.paginator.num_pages|intcomma }}</span>
</nav>
{% endif %}"""  # noqa: E501 (the template's lines as they were)
QUERY = (
    "q=%24%5Calpha%24-particle+%26+%24%5Cbeta%24&page=3&category=hep-th&category=hep-ph"
    "&institution=Universit%C3%A9"
)


def _render(source: str, page, query: str = QUERY) -> str:
    request = RequestFactory().get("/search?" + query)
    html = engines["django"].from_string(source).render({"page": page, "request": request})
    return re.sub(r"\s+", " ", html).strip()


def _new(page, query: str = QUERY) -> str:
    return _render('{% include "includes/pagination.html" %}', page, query)


def _numbers(html: str) -> list[str]:
    """The page numbers and ellipses as listed, the current one in brackets."""
    found = re.findall(
        r'<span aria-current="page" class="current">([\d,]+)</span>|>([\d,]+|…)</(?:a|span)>', html
    )
    return [f"[{current}]" if current else other for current, other in found]


@pytest.mark.parametrize("number", range(1, 10))
def test_a_short_list_as_the_template_gave_it(number):
    page = SitePaginator(range(180), 20).page(number)
    assert _new(page) == _render(OLD, page)


def test_the_first_page_of_a_long_list_as_the_template_gave_it():
    page = SitePaginator(range(4_370), 20).page(1)
    assert _new(page) == _render(OLD, page)
    assert _numbers(_new(page)) == ["[1]", "2", "3", "4", "…", "218", "219"]


def test_a_middle_page_lists_its_neighbours():
    page = SitePaginator(range(4_370), 20).page(9)
    html = _new(page)
    assert _numbers(html) == ["1", "2", "…", "6", "7", "8", "[9]", "10", "11", "12", "…", "218", "219"]
    # The template listed 1-4 and 218-219 and marked no page.
    assert _numbers(_render(OLD, page)) == ["1", "2", "3", "4", "…", "218", "219"]
    base = (
        "q=%24%5Calpha%24-particle+%26+%24%5Cbeta%24&amp;page={}&amp;category=hep-th"
        "&amp;category=hep-ph&amp;institution=Universit%C3%A9"
    )
    assert f'<a rel="prev" href="?{base.format(8)}">← Previous</a>' in html
    assert f'<a href="?{base.format(10)}" aria-label="Page 10">10</a>' in html
    assert f'<a rel="next" href="?{base.format(10)}">Next →</a>' in html
    assert '<span class="total">page 9 of 219</span>' in html


def test_the_last_page_and_thousands():
    page = SitePaginator(range(25_000), 20).page(1_250)
    html = _new(page, "q=dark+matter")
    assert _numbers(html) == ["1", "2", "…", "1,247", "1,248", "1,249", "[1,250]"]
    assert 'href="?q=dark+matter&amp;page=1249" aria-label="Page 1,249"' in html
    assert "Next" not in html
    assert html.endswith('<span class="total">page 1,250 of 1,250</span> </nav>')


def test_one_page_or_no_page_gives_nothing():
    assert _new(SitePaginator(range(5), 20).page(1)) == ""
    assert _new(None) == ""
