"""Template helpers for researcher pages: JSON-LD script blocks, an authorship's reasons in words."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from papers.templatetags.wove import ld_json_script
from researchers.evidence import WHY_FULL_AUTHORS, evidence_owner_confirmed, evidence_words

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
