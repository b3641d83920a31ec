"""Template filters shared by every page: readable TeX, paragraphs, pagination links."""

from __future__ import annotations

from django import template
from django.http import QueryDict

from papers.text import tex_to_unicode

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
