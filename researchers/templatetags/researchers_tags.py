"""Template helpers for researcher pages: JSON-LD script blocks, an authorship's reasons in words."""

from __future__ import annotations

import json

from django import template
from django.utils.html import _json_script_escapes
from django.utils.safestring import SafeString, mark_safe

from researchers.evidence import WHY_FULL_AUTHORS, evidence_words

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


@register.simple_tag
def ld_json(data: dict, element_id: str = "") -> SafeString:
    """``<script type="application/ld+json">`` holding ``data``.

    Escaped as ``json_script`` does (``<``, ``>`` and ``&`` as ``\\u003C`` etc.), so a
    harvested name holding ``</script>`` cannot end the block; ``json_script`` itself would
    give the wrong ``type`` for search engines.
    """
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_json_script_escapes)
    id_attr = f' id="{element_id}"' if element_id.replace("-", "").isalnum() else ""
    return mark_safe(f'<script type="application/ld+json"{id_attr}>{body}</script>')  # noqa: S308
