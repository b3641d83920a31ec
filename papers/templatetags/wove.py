"""Template filters shared by every page: readable TeX, paragraphs, query links, JSON-LD."""

from __future__ import annotations

import json
import re

from django import template
from django.conf import settings
from django.http import QueryDict
from django.templatetags.static import static
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from papers.examples import code_examples_fill
from papers.text import byline, tex_to_unicode
from wove.context_processors import SITE_DESCRIPTION

register = template.Library()


_AMPERSAND = re.compile(r"(?<!\\)&")
_SPACE_AFTER_MACRO = re.compile(r"(\\[A-Za-z]+) (?=[A-Za-z]{2})")


def readable_text(value: str | None) -> str:
    """Harvested TeX as plain Unicode text for titles, meta tags, JSON-LD and feeds:
    :func:`papers.text.tex_to_unicode`, except that a bare ``&`` (TeX's alignment tab, but
    in titles the word "and"), the space after a control word (``1/\\mu is``) and an
    author-defined macro (as its TeX source, ``\\D``) are kept."""
    text = _SPACE_AFTER_MACRO.sub(r"\1{} ", value or "")
    return tex_to_unicode(_AMPERSAND.sub(r"\\&", text), keep_unknown=True)


@register.filter
def tex(value: str) -> str:
    """TeX accents and simple math made readable as plain Unicode text (still escaped by the
    template engine, since the result is a plain string); see :func:`readable_text`."""
    return readable_text(value)


@register.filter(name="byline")
def byline_filter(value: str) -> str:
    """An author string as a readable byline: affiliations and marks removed
    (:func:`papers.text.byline`), TeX decoded (:func:`readable_text`)."""
    return readable_text(byline(value))


@register.filter
def with_site_url(value: str) -> str:
    """Editorial code examples name this site as ``{site}``: replaced by ``SITE_URL``, so the
    developers' page shows calls a reader can paste against the instance they are reading;
    and records as ``{paper}``, ``{other_paper}``, ``{researcher_query}``, ``{ror_id}``,
    ``{pith}``: replaced by records this archive holds (:func:`papers.examples.code_examples_fill`)."""
    return code_examples_fill((value or "").replace("{site}", settings.SITE_URL.rstrip("/")))


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


def ld_json_script(data: dict | list, element_id: str = "") -> SafeString:
    """``<script type="application/ld+json">`` holding ``data``, escaped as ``json_script``
    escapes (``<``, ``>``, ``&`` as ``\\u003C`` …) so harvested text cannot close the block
    (``json_script`` itself would give search engines the wrong ``type``). ``element_id``,
    when it is letters, digits and hyphens, becomes the block's ``id``."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Three replaces, not str.translate: a 3,000-author paper's block is 400 KB.
    body = body.replace("<", "\\u003C").replace(">", "\\u003E").replace("&", "\\u0026")
    id_attr = f' id="{element_id}"' if element_id.replace("-", "").isalnum() else ""
    return mark_safe(f'<script type="application/ld+json"{id_attr}>{body}</script>')  # noqa: S308 (escaped above)


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


# Inline ($…$, \(…\)) and display ($$…$$, \[…\]) math, all set inline: a title or abstract
# line has no room for a display block. Not after a backslash: "\\[2pt]" is a line break.
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|(?<!\\)\\\((.+?)\\\)|(?<!\\)\\\[(.+?)\\\]", re.DOTALL)
_MACRO = re.compile(r"\\[A-Za-z]+")
# A control sequence read whole, so "\_" stays an underscore and "\sqrtx" is not a root.
_CONTROL_SEQUENCE = re.compile(r"\\(?:[A-Za-z]+|.)", re.DOTALL)
# \sqrt's optional index: cube and fourth roots have their own signs, others a raised index.
_ROOT_SIGNS = {"": "√", "3": "∛", "4": "∜"}
# TeX drops the space after a control word ("1/\mu is" would read "1/μis"); an empty group
# keeps it. Only before a real word, so macros taking a one-letter argument are untouched.
_MACRO_SPACE = re.compile(r"(\\[A-Za-z]+) (?=[A-Za-z]{2})")
# Scripts written outside $...$ (common in arXiv abstracts: "AdS_3", "c_L", "\ell^2"): a
# braced group, a macro or one character not followed by a letter or digit ("file_name" stays).
_BARE_SCRIPT = re.compile(
    r"(?<=\S)(?P<mark>[\^_])(?P<arg>\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9+*-](?![A-Za-z0-9]))"
)
# A root outside $...$ ("\sqrt{\log_2 n}" in 0801.4310), read whole when its radicand holds a
# script: split at the script, the root would close before it ("√(log)₂ n").
_BARE_PIECE = re.compile(
    r"(?P<root>\\sqrt\s*(?:\[[^\]{}]*\])?\{(?:[^{}]|\{[^{}]*\})*\})|" + _BARE_SCRIPT.pattern
)
# Whitespace at a text segment's edge, behind any braces there (TeX prints none of them; an
# escaped "\}" prints, and its backslash stops the match).
_EDGE_SPACE_LEAD = re.compile(r"[{}]*\s")
_EDGE_SPACE_TRAIL = re.compile(r"\s[{}]*\Z")


def _plain(text: str) -> str:
    """Text-mode TeX to Unicode keeping the segment's outer spaces (collapsed to one). A brace
    at either end prints nothing, so the space behind it counts: "$x$} and" or "i.e. {$x$}"
    (a group around the math, or a stray brace) keep their space between the words."""
    lead = " " if _EDGE_SPACE_LEAD.match(text) else ""
    trail = " " if _EDGE_SPACE_TRAIL.search(text) else ""
    decoded = readable_text(text)
    return lead + decoded + trail if decoded else lead or trail


def _group(src: str, i: int) -> tuple[str, int]:
    """The argument of ``^``/``_`` at ``src[i:]``: a braced group, a macro or one character."""
    while i < len(src) and src[i].isspace():
        i += 1
    if i >= len(src):
        raise ValueError("script without argument")
    if src[i] == "{":
        depth = 0
        for j in range(i, len(src)):
            if src[j] == "{":
                depth += 1
            elif src[j] == "}":
                depth -= 1
                if depth == 0:
                    return src[i + 1 : j], j + 1
        raise ValueError("unbalanced braces")
    macro = _MACRO.match(src, i)
    if macro:
        return macro.group(0), macro.end()
    return src[i], i + 1


def _root_html(src: str, i: int, depth: int) -> tuple[str, int]:
    """``\\sqrt[n]{x}`` read from ``src[i:]`` (just after ``\\sqrt``) as "√(x)": the radicand
    in parentheses with its own scripts, a cube or fourth root as ∛ or ∜, any other index
    raised before √. Returns the HTML and the index after the radicand; ``ValueError`` if
    the index or the radicand is missing."""
    while i < len(src) and src[i].isspace():
        i += 1
    index = ""
    if src.startswith("[", i):
        close = src.find("]", i)
        if close < 0:
            raise ValueError("root index without ]")
        index, i = src[i + 1 : close].strip(), close + 1
    radicand, i = _group(src, i)
    sign = _ROOT_SIGNS.get(index) or f"<sup>{_math_html(index, depth + 1)}</sup>√"
    return f"{sign}({_math_html(radicand, depth + 1)})", i


def _fraction_html(src: str, i: int, depth: int) -> tuple[str, int]:
    """``\\frac{a}{b}`` read from ``src[i:]`` (just after ``\\frac``) as "a/b", as pylatexenc
    writes it, each part with its own scripts. Returns the HTML and the index after it;
    ``ValueError`` if a part is missing."""
    numerator, i = _group(src, i)
    denominator, i = _group(src, i)
    return f"{_math_html(numerator, depth + 1)}/{_math_html(denominator, depth + 1)}", i


# Macros whose braced arguments may hold scripts: split at a script, pylatexenc would read
# "\frac{x" alone (as "%s/%sx") and "\sqrt{R" as "√(R)" with the rest outside the root.
_ARGUMENT_MACROS = {"\\sqrt": _root_html, "\\frac": _fraction_html}


def _math_html(src: str, depth: int = 0) -> str:
    """Inline TeX math as escaped HTML: symbols through pylatexenc, ``^``/``_`` as
    ``<sup>``/``<sub>``, ``\\sqrt`` and ``\\frac`` as "√(…)" and "…/…" (``_ARGUMENT_MACROS``).
    Raises ``ValueError`` on anything it cannot read."""
    if depth > 8:
        raise ValueError("nested too deeply")
    out: list[str] = []
    buf = ""
    level = 0  # braces open here: a \sqrt in an argument of another macro stays in buf
    i = 0
    while i < len(src):
        ch = src[i]
        sequence = _CONTROL_SEQUENCE.match(src, i) if ch == "\\" else None
        macro = _ARGUMENT_MACROS.get(sequence.group(0)) if sequence and level <= 0 else None
        if ch in "^_" or macro:
            if buf:
                out.append(escape(tex_to_unicode(buf, keep_unknown=True)))
                buf = ""
            if macro:
                html, i = macro(src, sequence.end(), depth)
                out.append(html)
                continue
            arg, i = _group(src, i + 1)
            tag = "sup" if ch == "^" else "sub"
            out.append(f"<{tag}>{_math_html(arg, depth + 1)}</{tag}>")
        else:
            # A control sequence whole: "\_" is an underscore, "\{" opens no group.
            step = sequence.group(0) if sequence else ch
            level += (step == "{") - (step == "}")
            buf += step
            i += len(step)
    if buf:
        out.append(escape(tex_to_unicode(buf, keep_unknown=True)))
    return "".join(out)


def _bare_html(text: str) -> str:
    """Escaped HTML for text holding scripts outside math delimiters."""
    out: list[str] = []
    pos = 0
    for match in _BARE_PIECE.finditer(text):
        root = match.group("root")
        if root is not None and not _BARE_SCRIPT.search(root):
            continue  # "\sqrt{T}" stays text: pylatexenc reads it as "√(T)"
        out.append(escape(_plain(text[pos : match.start()])))
        arg = match.group("arg") or ""
        arg = arg[1:-1] if arg.startswith("{") else arg
        tag = "sup" if match.group("mark") == "^" else "sub"
        try:
            html = _math_html(root) if root is not None else f"<{tag}>{_math_html(arg)}</{tag}>"
            out.append(f'<span class="math">{html}</span>')
        except Exception:  # unreadable: keep the characters as text
            out.append(escape(match.group(0)))
        pos = match.end()
    out.append(escape(_plain(text[pos:])))
    return "".join(out)


@register.filter
def texhtml(value: str) -> SafeString:
    """Title or abstract text with its TeX made readable as HTML: text-mode TeX decoded to
    Unicode, inline math (``$…$``, ``\\(…\\)``) and display math (``$$…$$``, ``\\[…\\]``)
    alike set in ``<span class="math">`` with superscripts, subscripts and roots. Every piece
    of harvested text is escaped; a math segment that cannot be read falls back to plain
    Unicode text (never an exception)."""
    text = _MACRO_SPACE.sub(r"\1{} ", value or "")
    if not _MATH.search(text):
        if not _BARE_SCRIPT.search(text):
            return escape(readable_text(text))
        return mark_safe(_bare_html(text).strip())  # noqa: S308 (escaped piece by piece)
    out: list[str] = []
    pos = 0
    for match in _MATH.finditer(text):
        out.append(escape(_plain(text[pos : match.start()])))
        src = next(g for g in match.groups() if g is not None)
        try:
            rendered = _math_html(src)
        except Exception:  # broken TeX: keep it readable as plain text
            rendered = escape(tex_to_unicode(match.group(0), keep_unknown=True))
        out.append(f'<span class="math">{rendered}</span>')
        pos = match.end()
    out.append(escape(_plain(text[pos:])))
    return mark_safe("".join(out).strip())  # noqa: S308 (every piece escaped above)


@register.filter
def highlight(value: str) -> SafeString:
    """:func:`texhtml` of ``ts_headline`` output, then the private-use match markers
    (``\\ue000``/``\\ue001``, see :mod:`pages.search`) turned into ``<mark>``: escaping
    happens first, so only our own markup is ever added."""
    html = str(texhtml(value or ""))
    opened = html.count("\ue000")
    html = html.replace("\ue000", "<mark>").replace("\ue001", "</mark>")
    if opened != html.count("</mark>"):  # a marker lost inside TeX: drop all marks
        html = html.replace("<mark>", "").replace("</mark>", "")
    return mark_safe(html)  # noqa: S308 (texhtml escaped the text)
