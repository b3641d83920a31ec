"""The institution page's researchers, fields and relations (issue 28: rendered in Python, not by the
template's loops) give the HTML the loops gave, with every name escaped."""

from __future__ import annotations

import json
from pathlib import Path

from django.template import engines

from institutions.selectors import RelatedInstitution, RelatedRecord, ResearcherCount
from researchers.models import Researcher

# templates/institutions/institution_detail.html's loops as they were before the tags.
RESEARCHERS_LOOP = """{% load humanize %}{% for r in researchers %}<li><a href="{{ r.researcher.get_absolute_url }}">{{ r.researcher.display_name }}</a> <span class="muted">{{ r.papers|intcomma }} paper{{ r.papers|pluralize }}</span></li>
      {% endfor %}"""  # noqa: E501 (the template's lines as they were)
FIELDS_LOOP = """{% load humanize %}{% for f in fields %}<a class="badge" href="/papers/?category={{ f.code|urlencode }}" title="{{ f.name }}">{{ f.code }} <span class="count">{{ f.count|intcomma }}</span></a> {% endfor %}"""  # noqa: E501
# templates/institutions/includes/relation_list.html as it was before the tag.
RELATIONS_LOOP = """<ul class="inline-list">{% for r in items|slice:":40" %}<li>{% if r.institution %}<a href="{{ r.institution.get_absolute_url }}">{{ r.institution.name }}</a>{% if not r.institution.is_active %} <span class="badge badge-warn">{{ r.institution.status }}</span>{% endif %}{% else %}<a href="{{ r.ror_url }}" rel="noopener">{{ r.label|default:r.ror_id }}</a> <span class="muted">(ROR)</span>{% endif %}</li>{% endfor %}{% if items|length > 40 %}<li class="muted">and {{ items|length|add:"-40" }} more listed on ROR</li>{% endif %}</ul>"""  # noqa: E501

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


def _relations(n: int) -> list[RelatedInstitution]:
    """The first ``n`` relationships of CNRS's real ROR record (1,038, ROR's labels only),
    after two loaded here: Sorbonne Université (active) and Université Montpellier 2
    (inactive), and one label edited to be empty (shown as its ROR ID)."""
    records = json.loads(Path("data/ror/ror_records_v2.json").read_text())
    cnrs = next(r for r in records if r["id"].endswith("/02feahw73"))
    items = [
        RelatedInstitution(
            "related",
            "02en5vm52",
            "Sorbonne Université",
            RelatedRecord(19, "02en5vm52", "Sorbonne Université", "sorbonne-universite", "active"),
        ),
        RelatedInstitution(
            "related",
            "00wh4bp03",
            "Université Montpellier 2",
            RelatedRecord(
                34, "00wh4bp03", "Université Montpellier 2", "universite-montpellier-2", "inactive"
            ),
        ),
    ]
    items += [
        RelatedInstitution(r["type"], r["id"].rsplit("/", 1)[1], r["label"], None)
        for r in cnrs["relationships"]
    ]
    items[2].label = ""
    return items[:n]


def test_the_relation_lists_are_the_include_s():
    for n in (3, 40, 41, 1040):
        items = _relations(n)
        tag = _render("{% load institutions_tags %}{% relation_items items %}", items=items)
        assert tag == _render(RELATIONS_LOOP, items=items), n
    items = _relations(1040)
    tag = _render("{% load institutions_tags %}{% relation_items items %}", items=items)
    assert '<li><a href="/institutions/19-sorbonne-universite">Sorbonne Université</a></li>' in tag
    assert 'Université Montpellier 2</a> <span class="badge badge-warn">inactive</span></li>' in tag
    empty = items[2].ror_id
    assert (
        f'<a href="https://ror.org/{empty}" rel="noopener">{empty}</a> <span class="muted">(ROR)</span>'
        in tag
    )
    assert "Institut Français d&#x27;Études Anatoliennes</a>" in tag  # CNRS's 13th, escaped
    assert tag.count("<li>") == 40 and tag.endswith('<li class="muted">and 1000 more listed on ROR</li></ul>')
