"""Template tags for provenance: ``{% pith_for_paper paper as pith %}``."""

from __future__ import annotations

from django import template

from provenance.selectors import pith_for_paper as _pith_for_paper

register = template.Library()


@register.simple_tag
def pith_for_paper(paper):
    """The paper's current :class:`~provenance.models.Record`, or ``None`` when unsigned."""
    return _pith_for_paper(paper)
