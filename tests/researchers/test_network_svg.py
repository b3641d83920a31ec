"""The co-author network picture (``{% network_svg %}``, issue 28: rendered in Python, not by
an included template) gives the HTML the template gave, for the sample's researchers with
co-authors, and escapes every name. Compared with runs of white space collapsed."""

from __future__ import annotations

import re

import pytest
from django.template import engines

from researchers.models import Researcher
from researchers.profiles import researcher_profile
from researchers.selectors import network_layout

# templates/researchers/includes/network.html as it was before the tag replaced it.
TEMPLATE = """<svg class="network-svg" viewBox="0 0 {{ network.width }} {{ network.height }}" role="group" aria-labelledby="network-title network-desc">
  <title id="network-title">Co-author network of {{ researcher.display_name }}</title>
  <desc id="network-desc">{{ researcher.display_name }} in the centre; around them their {{ network.nodes|length }} most frequent co-authors here, larger for more shared papers; lines between co-authors who wrote one of these papers together.</desc>
  <g class="net-edges">{% for x1, y1, x2, y2, w in network.edges %}<line x1="{{ x1|stringformat:'.1f' }}" y1="{{ y1|stringformat:'.1f' }}" x2="{{ x2|stringformat:'.1f' }}" y2="{{ y2|stringformat:'.1f' }}" stroke-width="{{ w|stringformat:'.2f' }}"/>{% endfor %}</g>
  <g class="net-spokes">{% for x, y, w in network.spokes %}<line x1="{{ network.cx|stringformat:'.1f' }}" y1="{{ network.cy|stringformat:'.1f' }}" x2="{{ x|stringformat:'.1f' }}" y2="{{ y|stringformat:'.1f' }}" stroke-width="{{ w|stringformat:'.2f' }}"/>{% endfor %}</g>
  <circle class="net-centre" cx="{{ network.cx|stringformat:'.1f' }}" cy="{{ network.cy|stringformat:'.1f' }}" r="12"><title>{{ researcher.display_name }}</title></circle>
  {% for node in network.nodes %}<a href="{{ node.url }}" aria-label="{{ node.name }}, {{ node.shared }} shared paper{{ node.shared|pluralize }}"><circle class="net-node" cx="{{ node.x|stringformat:'.1f' }}" cy="{{ node.y|stringformat:'.1f' }}" r="{{ node.r|stringformat:'.1f' }}"><title>{{ node.name }}: {{ node.shared }} shared paper{{ node.shared|pluralize }}</title></circle><text class="net-label" x="{{ node.label_x|stringformat:'.1f' }}" y="{{ node.y|stringformat:'.1f' }}" dy="{% if node.label_anchor == 'middle' %}{% if node.y < network.cy %}-14{% else %}22{% endif %}{% else %}4{% endif %}" text-anchor="{{ node.label_anchor }}">{{ node.label }}</text></a>
  {% endfor %}
</svg>
<ul class="coauthor-list">
  {% for node in network.nodes %}<li><a href="{{ node.url }}">{{ node.name }}</a> <span class="fine">{{ node.shared }} shared paper{{ node.shared|pluralize }}</span></li>
  {% endfor %}
</ul>"""  # noqa: E501 (the template's lines as they were)
TAG = "{% load researchers_tags %}{% network_svg network researcher.display_name %}"


def _squash(html: str) -> str:
    return re.sub(r"\s+", " ", str(html)).strip()


@pytest.mark.django_db
def test_the_tag_draws_the_sample_networks_as_the_template_did(matched_sample):
    engine = engines["django"]
    template, tag = engine.from_string(TEMPLATE), engine.from_string(TAG)
    drawn = 0
    for researcher in Researcher.objects.order_by("-paper_count", "id")[:150]:
        network = researcher_profile(researcher)["network"]
        if network is None:
            continue
        context = {"network": network, "researcher": researcher}
        assert _squash(tag.render(context)) == _squash(template.render(context)), researcher.pk
        drawn += 1
    assert drawn >= 100


def test_names_are_escaped():
    evil = '<script>alert("x")</script>'
    network = network_layout([[1, evil, "x", 2], [2, "O'Brien & Sons", "o-brien", 1]], [[1, 2, 1]])
    html = (
        engines["django"].from_string(TAG).render({"network": network, "researcher": {"display_name": evil}})
    )
    assert "<script>" not in html
    assert (
        html.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") == 3 + 3
    )  # title, desc, centre; node, its title, list (the label is cut)
    assert "O&#x27;Brien &amp; Sons, 1 shared paper" in html
    assert ">2 shared papers</span></li>" in html
