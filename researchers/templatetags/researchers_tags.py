"""Template helpers for researcher pages: JSON-LD script blocks, an authorship's reasons in
words, the co-author network picture."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from papers.templatetags.wove import ld_json_script
from researchers.evidence import WHY_FULL_AUTHORS, evidence_owner_confirmed, evidence_words
from wove.markup import escaped, grouped

register = template.Library()


@register.filter
def authorship_why(authorship, author_count: int = 0) -> list[str]:
    """An :class:`~researchers.models.Authorship`'s reasons as lines of text
    (:func:`researchers.evidence.evidence_words`), brief on a paper of more than
    :data:`~researchers.evidence.WHY_FULL_AUTHORS` authors (``author_count``); ``[]`` for
    ``None``. Use: ``{{ authorship|authorship_why:author_count }}``."""
    if authorship is None:
        return []
    return evidence_words(
        method=authorship.method,
        confidence=authorship.confidence,
        evidence=authorship.evidence,
        unconfirmed=authorship.unconfirmed,
        brief=(author_count or 0) > WHY_FULL_AUTHORS,
    )


@register.filter
def owner_confirmed(authorship) -> bool:
    """``{% if authorship|owner_confirmed %}``: the researcher who claimed the record confirmed
    this link (:func:`researchers.evidence.evidence_owner_confirmed`); False for ``None``."""
    return authorship is not None and evidence_owner_confirmed(authorship.evidence)


@register.simple_tag
def ld_json(data: dict, element_id: str = "") -> SafeString:
    """``{% ld_json data "id" %}``: :func:`papers.templatetags.wove.ld_json_script` with an
    element id (``<script type="application/ld+json" id="ld-researcher">``)."""
    return ld_json_script(data, element_id)


def _papers(n: int) -> str:
    return f"{n} shared paper{'' if n == 1 else 's'}"


@register.simple_tag
def field_options(fields) -> SafeString:
    """``<option>`` per field bar (:class:`researchers.selectors.Bar`) for the papers' Field
    filter: ``cs.RO (8)``, the current one selected. Built in Python, not a template loop:
    a prolific researcher's hundred fields cost a millisecond of template nodes."""
    return mark_safe(  # noqa: S308 (every value escaped)
        "".join(
            f'<option value="{escaped(bar.label)}"{" selected" if bar.current else ""}>'
            f"{escaped(bar.label)} ({grouped(bar.count)})</option>"
            for bar in fields
        )
    )


@register.simple_tag
def network_svg(network, name: str) -> SafeString:
    """``{% network_svg network researcher.display_name %}``: the co-author network
    (:class:`researchers.selectors.Network`) as an SVG of links, one per co-author, then the
    same co-authors as a list.

    Rendered here rather than by an included template: its loops of coordinates were about a
    fifth of the researcher page's render (issue 28). Names and labels are escaped; the HTML is
    the template's (``tests/researchers/test_network_svg.py``). ``role="group"``, not
    ``"img"``: an image is one thing to assistive technology, and may not hold the links to
    each co-author."""
    who = escape(name)
    nodes = network.nodes
    cx, cy = f"{network.cx:.1f}", f"{network.cy:.1f}"
    out = [
        f'<svg class="network-svg" viewBox="0 0 {network.width} {network.height}" role="group"'
        ' aria-labelledby="network-title network-desc">\n'
        f'  <title id="network-title">Co-author network of {who}</title>\n'
        f'  <desc id="network-desc">{who} in the centre; around them their {len(nodes)} most frequent'
        " co-authors here, larger for more shared papers; lines between co-authors who wrote one of"
        " these papers together.</desc>\n"
        '  <g class="net-edges">',
        *(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke-width="{w:.2f}"/>'
            for x1, y1, x2, y2, w in network.edges
        ),
        '</g>\n  <g class="net-spokes">',
        *(
            f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke-width="{w:.2f}"/>'
            for x, y, w in network.spokes
        ),
        f'</g>\n  <circle class="net-centre" cx="{cx}" cy="{cy}" r="12"><title>{who}</title></circle>\n  ',
    ]
    for node in nodes:
        node_name, shared = escape(node.name), _papers(node.shared)
        dy = ("-14" if node.y < network.cy else "22") if node.label_anchor == "middle" else "4"
        out.append(
            f'<a href="{escape(node.url)}" aria-label="{node_name}, {shared}">'
            f'<circle class="net-node" cx="{node.x:.1f}" cy="{node.y:.1f}" r="{node.r:.1f}">'
            f"<title>{node_name}: {shared}</title></circle>"
            f'<text class="net-label" x="{node.label_x:.1f}" y="{node.y:.1f}" dy="{dy}"'
            f' text-anchor="{escape(node.label_anchor)}">{escape(node.label)}</text></a>\n  '
        )
    out.append('</svg>\n<ul class="coauthor-list">\n  ')
    out += (
        f'<li><a href="{escape(node.url)}">{escape(node.name)}</a>'
        f' <span class="fine">{_papers(node.shared)}</span></li>\n  '
        for node in nodes
    )
    out.append("</ul>")
    return mark_safe("".join(out))  # noqa: S308 (every harvested string escaped above)
