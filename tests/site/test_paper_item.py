"""The paper list item (``{% paper_item %}``, issue 28: rendered in Python, not by an included
template) gives the HTML the template gave, for every paper of the real sample: titles with
TeX and MathML, search marks and snippets, bylines of long author lists, categories, dates,
citations and the withdrawn badge. Compared with runs of white space collapsed (the template's
empty ``{% if %}`` lines left blank lines, which HTML reads as one space)."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict
from django.template import engines

from pages import search as site_search
from papers.models import Paper

pytestmark = pytest.mark.django_db

# templates/includes/paper_item.html as it was before the tag replaced it.
TEMPLATE = """{% load wove humanize %}
<article class="paper-item">
  <h3 class="paper-item-title"><a href="{{ paper.get_absolute_url }}">{% if marked and paper.title_marked %}{{ paper.title_marked|highlight }}{% else %}{{ paper.title|texhtml }}{% endif %}</a></h3>
  <p class="paper-item-authors">{{ paper.authors_text|byline|truncatechars:220 }}</p>
  {% if show_abstract and paper.snippet %}<p class="paper-item-abstract">…{{ paper.snippet|highlight }}…</p>{% elif show_abstract and paper.abstract %}<p class="paper-item-abstract">{{ paper.abstract|truncatechars:420|texhtml }}</p>{% endif %}
  <p class="paper-item-meta">
    <span class="mono">arXiv:{{ paper.arxiv_id }}</span>
    {% if paper.primary_category_id %}<a class="badge badge-primary" href="/papers/?category={{ paper.primary_category_id|urlencode }}" title="{{ paper.primary_category.name }}">{{ paper.primary_category_id }}</a>{% endif %}
    {% if paper.submitted_at %}<time datetime="{{ paper.submitted_at|date:'Y-m-d' }}">{{ paper.submitted_at|date:"j M Y" }}</time>{% endif %}
    {% if paper.cited_by_count %}<span>{{ paper.cited_by_count|intcomma }} citation{{ paper.cited_by_count|pluralize }}</span>{% endif %}
    {% if paper.withdrawn %}<span class="badge badge-warn">withdrawn</span>{% endif %}
  </p>
</article>"""  # noqa: E501 (the template's lines as they were)
TAG = "{% load wove %}{% paper_item paper show_abstract=show_abstract marked=marked %}"


def _squash(html: str) -> str:
    return re.sub(r"\s+", " ", str(html)).strip()


def test_the_tag_renders_every_sample_paper_as_the_template_did(sample_papers):
    engine = engines["django"]
    template, tag = engine.from_string(TEMPLATE), engine.from_string(TAG)
    Paper.objects.filter(arxiv_id="0704.0002").update(cited_by_count=1)
    Paper.objects.filter(arxiv_id="0704.0003").update(cited_by_count=12345, withdrawn=True)
    papers = list(Paper.objects.select_related("primary_category").order_by("pk"))
    assert len(papers) == 2800
    for paper in papers:
        for show_abstract in (False, True):
            context = {"paper": paper, "show_abstract": show_abstract, "marked": False}
            assert _squash(tag.render(context)) == _squash(template.render(context)), paper.arxiv_id
    withdrawn = next(p for p in papers if p.arxiv_id == "0704.0003")
    cited = _squash(tag.render({"paper": withdrawn, "show_abstract": False, "marked": False}))
    assert "<span>12,345 citations</span>" in cited and "withdrawn</span>" in cited


def test_search_marks_and_snippets_render_as_the_template_did(sample_papers):
    engine = engines["django"]
    template, tag = engine.from_string(TEMPLATE), engine.from_string(TAG)
    search = site_search.parse_search(QueryDict('q="dark matter"&mode=keyword'))
    site_search.tab_counts(search)
    found = list(site_search.search_papers(search)[:100])
    assert len(found) == 58  # the phrase, by PostgreSQL (as in test_search.py)
    for paper in found:
        context = {"paper": paper, "show_abstract": True, "marked": True}
        html = _squash(tag.render(context))
        assert html == _squash(template.render(context)), paper.arxiv_id
        assert "<mark>" in html
    # A title that holds a <script> comes out escaped, marked or not.
    paper = found[0]
    paper.title = paper.title_marked = "<script>alert(1)</script> \ue000dark\ue001 matter"
    html = tag.render({"paper": paper, "show_abstract": True, "marked": True})
    assert "<script>" not in html and "&lt;script&gt;" in html and "<mark>dark</mark>" in html


@pytest.mark.parametrize(
    "text",
    [
        "",
        "A. Aduszkiewicz",
        # Decomposed accents (combining marks are not counted) around the limit of 20.
        "Jose\u0301 Mari\u0301a Mu\u0303noz Ga\u0301lvez",
        "Jose\u0301 Mari\u0301a Mu\u0303n",
        "x" * 20,
        "x" * 21,
        "ATLAS Collaboration: G. Aad, B. Abbott, J. Abdallah",
    ],
)
def test_truncated_chars_gives_what_truncator_gives(text):
    from django.utils.text import Truncator

    from papers.templatetags.wove import truncated_chars

    assert truncated_chars(text, 20) == Truncator(text).chars(20)
    assert truncated_chars("x" * 21, 20) == "x" * 19 + "…"
