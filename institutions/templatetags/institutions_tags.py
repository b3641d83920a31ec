"""Template tags for the institution page: its researchers, fields and relations, rendered in Python."""

from __future__ import annotations

from urllib.parse import quote

from django import template
from django.utils.safestring import SafeString, mark_safe

from wove.markup import escaped, grouped

register = template.Library()


@register.simple_tag
def researcher_count_items(rows) -> SafeString:
    """``{% researcher_count_items researchers %}``: one ``<li>`` per
    :class:`institutions.selectors.ResearcherCount` (the researcher's link, then "N papers").

    Rendered here rather than by the template's loop: 50 rows of five lookups each were about
    a third of the page's render (issue 28). Names are escaped; the HTML is the loop's
    (``tests/institutions/test_page_tags.py``)."""
    items = []
    for row in rows:
        who, n = row.researcher, row.papers
        items.append(
            f'<li><a href="{escaped(who.get_absolute_url())}">{escaped(who.display_name)}</a>'
            f' <span class="muted">{grouped(n)} paper{"" if n == 1 else "s"}</span></li>\n      '
        )
    return mark_safe("".join(items))  # noqa: S308 (every harvested string escaped)


@register.simple_tag
def field_badges(fields) -> SafeString:
    """``{% field_badges fields %}``: a badge per field (``{"code", "name", "count"}``, as the
    institution summary keeps them) linking to the paper list of that category, with its
    paper count. Rendered in Python for the reason :func:`researcher_count_items` gives; the
    HTML is the template loop's (``tests/institutions/test_page_tags.py``)."""
    badges = []
    for f in fields:
        code = str(f["code"])
        badges.append(
            f'<a class="badge" href="/papers/?category={escaped(quote(code, safe="/"))}"'
            f' title="{escaped(f["name"])}">{escaped(code)}'
            f' <span class="count">{grouped(f["count"])}</span></a> '
        )
    return mark_safe("".join(badges))  # noqa: S308 (every string escaped)


# A relation list shows this many targets, then says how many more ROR lists.
RELATIONS_SHOWN = 40


@register.simple_tag
def relation_items(items) -> SafeString:
    """``{% relation_items items %}``: one relation list of the institution page (its
    :class:`institutions.selectors.RelatedInstitution` of one type) as ``<ul>``: the first
    :data:`RELATIONS_SHOWN` targets, each a link to its page here (with a badge when it is not
    active) or to ROR with ROR's label, then "and N more listed on ROR". Rendered in Python
    for the reason :func:`researcher_count_items` gives (CNRS names 1,038); the HTML is the
    included template's as it was (``tests/institutions/test_page_tags.py``)."""
    out = ['<ul class="inline-list">']
    for r in items[:RELATIONS_SHOWN]:
        if target := r.institution:
            out.append(f'<li><a href="{escaped(target.get_absolute_url())}">{escaped(target.name)}</a>')
            if not target.is_active:
                out.append(f' <span class="badge badge-warn">{escaped(target.status)}</span>')
        else:
            out.append(
                f'<li><a href="{escaped(r.ror_url)}" rel="noopener">{escaped(r.label or r.ror_id)}</a>'
                ' <span class="muted">(ROR)</span>'
            )
        out.append("</li>")
    if len(items) > RELATIONS_SHOWN:
        out.append(f'<li class="muted">and {len(items) - RELATIONS_SHOWN} more listed on ROR</li>')
    out.append("</ul>")
    return mark_safe("".join(out))  # noqa: S308 (every harvested string escaped)
