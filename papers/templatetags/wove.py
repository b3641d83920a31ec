"""Template filters shared by every page: readable TeX, paragraphs, query links, JSON-LD."""

from __future__ import annotations

import json

from django import template
from django.conf import settings
from django.http import QueryDict
from django.templatetags.static import static
from django.utils.html import _json_script_escapes
from django.utils.safestring import SafeString, mark_safe

from papers.text import tex_to_unicode
from wove.context_processors import SITE_DESCRIPTION

register = template.Library()


@register.filter
def tex(value: str) -> str:
    """TeX accents and simple math made readable as plain Unicode text (still escaped by the
    template engine, since the result is a plain string)."""
    return tex_to_unicode(value or "")


@register.filter
def paragraphs(value: str) -> list[str]:
    """Split stored text on newlines into non-empty paragraphs."""
    return [p for p in (value or "").split("\n") if p.strip()]


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with ``changes`` applied (``None`` removes a key), for
    paging and filter links: ``?{% query_with page=3 %}``."""
    request = context.get("request")
    query = request.GET.copy() if request is not None else QueryDict(mutable=True)
    for key, value in changes.items():
        if value is None or value == "":
            query.pop(key, None)
        else:
            query[key] = value
    return query.urlencode()


def ld_json_script(data: dict | list) -> SafeString:
    """``<script type="application/ld+json">`` holding ``data``, escaped as ``json_script``
    escapes (``<``, ``>``, ``&`` as ``\\u003C`` …) so harvested text cannot close the block."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_json_script_escapes)
    return mark_safe(f'<script type="application/ld+json">{body}</script>')  # noqa: S308 (escaped above)


@register.simple_tag
def jsonld(data: dict | list) -> SafeString:
    """Template form of :func:`ld_json_script`: ``{% jsonld data %}``."""
    return ld_json_script(data)


def site_graph() -> dict:
    """The site-wide schema.org graph: ``Organization`` and ``WebSite`` with a
    ``SearchAction`` whose target is ``<SITE_URL>/search?q={search_term_string}``."""
    base = settings.SITE_URL
    search_template = f"{base}/search?q={{search_term_string}}"
    return {
        "@context": "https://schema.org",
        "@graph": [
            {
                "@type": "Organization",
                "@id": f"{base}/#organization",
                "name": "wovepaper",
                "url": base,
                "logo": {"@type": "ImageObject", "url": f"{base}{static('img/icon.svg')}"},
                "description": SITE_DESCRIPTION,
                "contactPoint": [
                    {"@type": "ContactPoint", "contactType": "customer support", "url": f"{base}/contact"}
                ],
            },
            {
                "@type": "WebSite",
                "@id": f"{base}/#website",
                "name": "wovepaper",
                "alternateName": "wovepaper — research, woven together",
                "url": base,
                "description": SITE_DESCRIPTION,
                "inLanguage": "en",
                "publisher": {"@id": f"{base}/#organization"},
                "potentialAction": {
                    "@type": "SearchAction",
                    "target": {"@type": "EntryPoint", "urlTemplate": search_template},
                    "query-input": "required name=search_term_string",
                },
            },
        ],
    }


@register.simple_tag
def site_jsonld() -> SafeString:
    """The site-wide ``Organization`` + ``WebSite`` JSON-LD block (see :func:`site_graph`)."""
    return ld_json_script(site_graph())
