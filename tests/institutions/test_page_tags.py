"""The institution page's researchers and fields (issue 28: rendered in Python, not by the
template's loops) give the HTML the loops gave, with every name escaped."""

from __future__ import annotations

from django.template import engines

from institutions.selectors import ResearcherCount
from researchers.models import Researcher

# templates/institutions/institution_detail.html's loops as they were before the tags.
RESEARCHERS_LOOP = """{% load humanize %}{% for r in researchers %}<li><a href="{{ r.researcher.get_absolute_url }}">{{ r.researcher.display_name }}</a> <span class="muted">{{ r.papers|intcomma }} paper{{ r.papers|pluralize }}</span></li>
      {% endfor %}"""  # noqa: E501 (the template's lines as they were)
FIELDS_LOOP = """{% load humanize %}{% for f in fields %}<a class="badge" href="/papers/?category={{ f.code|urlencode }}" title="{{ f.name }}">{{ f.code }} <span class="count">{{ f.count|intcomma }}</span></a> {% endfor %}"""  # noqa: E501

RESEARCHERS = [
    ResearcherCount(Researcher(pk=7, display_name="Damien Chablat", slug="damien-chablat"), 1),
    ResearcherCount(Researcher(pk=12, display_name="O'Brien <b>&</b> Sons", slug="o-brien-b-sons"), 12345),
    ResearcherCount(Researcher(pk=3, display_name="Stéphane Caro", slug="stephane-caro"), 2),
]
FIELDS = [
    {"code": "hep-th", "name": "High Energy Physics - Theory", "count": 1200},
    {"code": "cs.RO", "name": "Robotics", "count": 1},
    {"code": 'x"<y>', "name": "<script>alert(1)</script>", "count": 3},
]


def _render(source: str, **context) -> str:
    return engines["django"].from_string(source).render(context)


def test_the_researcher_rows_are_the_loop_s():
    tag = _render(
        "{% load institutions_tags %}{% researcher_count_items researchers %}", researchers=RESEARCHERS
    )
    assert tag == _render(RESEARCHERS_LOOP, researchers=RESEARCHERS)
    assert '<a href="/researchers/12-o-brien-b-sons">O&#x27;Brien &lt;b&gt;&amp;&lt;/b&gt; Sons</a>' in tag
    assert '<span class="muted">12,345 papers</span>' in tag and '<span class="muted">1 paper</span>' in tag


def test_the_field_badges_are_the_loop_s():
    tag = _render("{% load institutions_tags %}{% field_badges fields %}", fields=FIELDS)
    assert tag == _render(FIELDS_LOOP, fields=FIELDS)
    assert 'title="&lt;script&gt;alert(1)&lt;/script&gt;"' in tag
    assert (
        '<a class="badge" href="/papers/?category=hep-th" title="High Energy Physics - Theory">hep-th' in tag
    )
    assert '<span class="count">1,200</span>' in tag
