"""Template filters shared by every page: readable TeX, paragraphs, query links, JSON-LD."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from urllib.parse import quote, quote_plus, urlencode

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from papers.examples import code_examples_fill
from papers.macros import prepare
from papers.mathml import tex_to_mathml
from papers.text import byline, tex_to_unicode_by_parts
from wove.context_processors import SITE_DESCRIPTION
from wove.markup import escaped, grouped

register = template.Library()


_AMPERSAND = re.compile(r"(?<!\\)&")
_SPACE_AFTER_MACRO = re.compile(r"(\\[A-Za-z]+) (?=[A-Za-z]{2})")


# A paper page reads its title four times and its abstract three (<title>, meta tags, JSON-LD,
# the heading); each reading of a string with TeX costs pylatexenc 2-10 ms. The readings are
# pure functions of the string: keep the last few thousand per process (about 10 MB).
@lru_cache(maxsize=4096)
def readable_text(value: str | None) -> str:
    """Harvested TeX as plain Unicode text for titles, meta tags, JSON-LD and feeds:
    :func:`papers.text.tex_to_unicode` (read island by island,
    :func:`papers.text.tex_to_unicode_by_parts`), except that a bare ``&`` (TeX's alignment tab, but
    in titles the word "and"), the space after a control word (``1/\\mu is``) and an
    author-defined macro (as its TeX source, ``\\D``) are kept. Memoised per process."""
    text = _SPACE_AFTER_MACRO.sub(r"\1{} ", value or "")
    return tex_to_unicode_by_parts(_AMPERSAND.sub(r"\\&", text))


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
    # A dict of the lists, not QueryDict.copy(): that deep-copies, and a search page asks
    # for a few dozen links (issue 28). Encoded as QueryDict.urlencode encodes, keys in order.
    lists = dict(request.GET.lists()) if request is not None else {}
    for key, value in changes.items():
        if value is None or value == "":
            lists.pop(key, None)
        else:
            lists[key] = [value]
    return urlencode([(key, str(value)) for key, values in lists.items() for value in values])


def query_setter(request, names: list[str], *, drop: tuple[str, ...] = ()):
    """A function of one value giving the query string of ``request`` with every key of
    ``names`` set to that value and the keys of ``drop`` removed, as ``{% query_with %}``
    writes it (a set key keeps the place of its first occurrence, a new one comes last): for
    the dozens of links of one list, whose query's other pairs are encoded once here."""
    pairs = [
        (key, urlencode([(key, value)]))
        for key, values in (request.GET.lists() if request is not None else ())
        if key not in drop
        for value in values
    ]
    named = set(names)

    def with_value(value: object) -> str:
        quoted = quote_plus(str(value))
        own = {name: f"{quote_plus(name)}={quoted}" for name in names}
        parts = [own.pop(key, None) if key in named else pair for key, pair in pairs]
        return "&".join([part for part in parts if part] + list(own.values()))

    return with_value


@register.simple_tag(takes_context=True)
def facet_items(context, facets, keys: str, *current) -> SafeString:
    """A search facet's values as ``<li>`` links (``facets``: :class:`pages.search_facets.Facet`
    list): each link is the page's query with every key of ``keys`` (comma-separated, e.g.
    ``"from,to"``) set to the value and the page dropped (:func:`query_setter`); a value is
    marked ``aria-current`` when each of ``current`` (one per key, ``None`` for unset) equals
    it. A facet with a ``title`` (a category's name) shows it, cut to 22 characters. Escaped
    piece by piece.

    Written here rather than as template loops: four facet lists of up to twelve links were
    about a fifth of a search page's render (issue 28); the HTML is the loops' own
    (``tests/site/test_facet_items.py``)."""
    link = query_setter(context.get("request"), keys.split(","), drop=("page",))
    wanted = [None if c is None or c == "" else str(c) for c in current]
    items = []
    for f in facets:
        mark = ' aria-current="true"' if wanted and all(w == f.value for w in wanted) else ""
        if f.title:
            title = f' title="{escaped(f.title)}"'
            label = (
                f'{escaped(f.label)} <span class="faint small">{escaped(truncated_chars(f.title, 22))}</span>'
            )
        else:
            title, label = "", escaped(f.label)
        items.append(
            f'<li><a href="/search?{escaped(link(f.value))}"{title}{mark}><span class="label">{label}</span>'
            f'<span class="n">{grouped(f.count)}</span></a></li>'
        )
    return mark_safe("".join(items))  # noqa: S308 (every piece escaped above)


@register.simple_tag(takes_context=True)
def pagination(context, page) -> SafeString:
    """A list page's ``<nav class="pagination">`` for ``page`` (a Django
    :class:`~django.core.paginator.Page`), or nothing for a single page: previous and next
    links, the page numbers around ``page.number`` (``Paginator.get_elided_page_range``: three
    each side, two at each end, "…" between) with the current one marked, and "page N of M".
    Each link is the page's query with ``page`` set (:func:`query_setter`).

    Built here rather than by an included template: the template called
    ``get_elided_page_range`` without the page number, so every page listed the numbers
    around page 1, and its loop of ``{% query_with %}`` links was a tenth of a search page's
    render (issue 28)."""
    paginator = getattr(page, "paginator", None)  # a template without a page: nothing
    if paginator is None or paginator.num_pages <= 1:
        return mark_safe("")
    link = query_setter(context.get("request"), ["page"])
    parts = []
    if page.has_previous():
        parts.append(f'<a rel="prev" href="?{escaped(link(page.previous_page_number()))}">← Previous</a>')
    numbers = []
    for n in paginator.get_elided_page_range(page.number):
        if n == paginator.ELLIPSIS:
            numbers.append('<span aria-hidden="true">…</span>')
        elif n == page.number:
            numbers.append(f'<span aria-current="page" class="current">{grouped(n)}</span>')
        else:
            numbers.append(f'<a href="?{escaped(link(n))}" aria-label="Page {grouped(n)}">{grouped(n)}</a>')
    parts.append("".join(numbers))
    if page.has_next():
        parts.append(f'<a rel="next" href="?{escaped(link(page.next_page_number()))}">Next →</a>')
    parts.append(f'<span class="total">page {grouped(page.number)} of {grouped(paginator.num_pages)}</span>')
    body = "\n  ".join(parts)
    return mark_safe(f'\n<nav class="pagination" aria-label="Pagination">\n  {body}\n</nav>\n')  # noqa: S308 (every piece escaped above)


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
# TeX drops the space after a control word ("1/\mu is" would read "1/μis"); an empty group
# keeps it. Only before a real word, so macros taking a one-letter argument are untouched.
_MACRO_SPACE = re.compile(r"(\\[A-Za-z]+) (?=[A-Za-z]{2})")
# Scripts written outside $...$ (common in arXiv abstracts: "AdS_3", "c_L", "\ell^2"): a
# braced group, a macro or one character not followed by a letter or digit ("file_name" stays).
_BARE_SCRIPT = re.compile(
    r"(?<=\S)(?P<mark>[\^_])(?P<arg>\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9+*-](?![A-Za-z0-9]))"
)
# A root outside $...$ ("\sqrt{\log_2 n}" in 0801.4310, "sqrt{s}" in 0801.4375), read whole
# as math: split at a script inside it, the root would close before it ("√(log)₂ n").
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


# A script opening a math span, with no base of its own: it belongs to the text before it
# (0705.0621's "La$_{1-x}$Sr$_{x}$MnO$_{3}$", 0801.3978's "$^{234}U$").
_LEADING_SCRIPT = re.compile(r"\s*(?P<mark>[\^_])\s*(?P<arg>\{[^{}]*\}|\\[A-Za-z]+|[^\s{}\\$])")


def _script_html(mark: str, arg: str) -> str:
    """A script written as ``mark`` (``^`` or ``_``) and its argument as escaped
    ``<sup>``/``<sub>`` holding the argument's plain reading."""
    tag = "sup" if mark == "^" else "sub"
    return f"<{tag}>{escaped(readable_text(arg))}</{tag}>"


def _span_html(tex: str, written: str) -> str:
    """A math span's HTML: scripts opening it with no base as ``<sub>``/``<sup>`` set in the
    text's own type, as a chemical formula's are (MathML would hang them on an empty base,
    apart from the letters they belong to), the rest as :func:`_math_html`."""
    out: list[str] = []
    while (script := _LEADING_SCRIPT.match(tex)) is not None:
        out.append(_script_html(script.group("mark"), script.group("arg")))
        tex = tex[script.end() :]
    if out and tex.strip():
        out.append(_math_html(tex, "$" + tex + "$"))
    return "".join(out) if out else _math_html(tex, written)


# A pure function of the formula: the same ones ($\alpha$, $^{4}$He, $z \sim 2$) recur across
# papers, and converting one costs about a millisecond (latex2mathml, then pylatexenc).
@lru_cache(maxsize=8192)
def _math_html(tex: str, written: str) -> str:
    """Math-mode ``tex`` (``written`` is the span as the text has it, delimiters included)
    as one escaped ``<math>`` element whose ``alttext`` is its plain reading
    (:func:`readable_text` of ``written``, what feeds and JSON-LD show); TeX latex2mathml
    cannot read gives that plain reading, escaped, instead."""
    alttext = readable_text(written)
    try:
        return tex_to_mathml(tex, alttext=alttext)
    except ValueError:
        return escaped(alttext)


def _bare_html(text: str) -> str:
    """Escaped HTML for text holding a root or scripts outside math delimiters: a root as
    MathML, a script as ``<sub>``/``<sup>`` holding its argument's plain reading."""
    out: list[str] = []
    pos = 0
    for match in _BARE_PIECE.finditer(text):
        out.append(escaped(_plain(text[pos : match.start()])))
        root = match.group("root")
        if root is not None:
            out.append(_math_html(root, root))
        else:
            out.append(_script_html(match.group("mark"), match.group("arg")))
        pos = match.end()
    out.append(escaped(_plain(text[pos:])))
    return "".join(out)


@register.filter
def texhtml(value: str) -> SafeString:
    """Title or abstract text with its TeX made readable as HTML: text-mode TeX decoded to
    Unicode (the rule for macros is :mod:`papers.macros`), inline math (``$…$``,
    ``\\(…\\)``) and display math (``$$…$$``, ``\\[…\\]``) alike set inline as MathML by
    :func:`papers.mathml.tex_to_mathml`, each ``<math>`` carrying its plain reading as
    ``alttext``; a root or scripts written outside delimiters likewise (a script as
    ``<sub>``/``<sup>``). Every piece of harvested text is escaped; math latex2mathml cannot
    read falls back to its plain Unicode reading (never an exception)."""
    text = _MACRO_SPACE.sub(r"\1{} ", prepare(value or ""))
    if not _MATH.search(text):
        if not _BARE_PIECE.search(text):
            return escape(readable_text(text))
        return mark_safe(_bare_html(text).strip())  # noqa: S308 (escaped piece by piece)
    out: list[str] = []
    pos = 0
    for match in _MATH.finditer(text):
        out.append(_bare_html(text[pos : match.start()]))
        tex = next(g for g in match.groups() if g is not None)
        out.append(_span_html(tex, match.group(0)))
        pos = match.end()
    out.append(_bare_html(text[pos:]))
    return mark_safe("".join(out).strip())  # noqa: S308 (every piece escaped above)


@register.filter
def highlight(value: str) -> SafeString:
    """``ts_headline`` output (a search snippet, or a title with its matches marked) as
    escaped plain Unicode text (:func:`readable_text`: a snippet may cut math in two, and
    MathML cannot hold a mark), then the private-use match markers (``\\ue000``/``\\ue001``,
    see :mod:`pages.search`) turned into ``<mark>``: escaping happens first, so only our own
    markup is ever added."""
    html = escaped(readable_text(value or ""))
    opened = html.count("\ue000")
    html = html.replace("\ue000", "<mark>").replace("\ue001", "</mark>")
    if opened != html.count("</mark>"):  # a marker lost inside TeX: drop all marks
        html = html.replace("<mark>", "").replace("</mark>", "")
    return mark_safe(html)  # noqa: S308 (escaped above)


def truncated_chars(text: str, limit: int) -> str:
    """``Truncator(text).chars(limit)`` (NFC-normalised, at most ``limit`` characters not
    counting combining marks, "…" added when cut), without Django's character-by-character
    loop for a text no longer than ``limit``: most bylines, 20 on a list page (issue 28)."""
    normalized = unicodedata.normalize("NFC", text)
    if len(normalized) <= limit:
        return normalized
    return Truncator(normalized).chars(limit)


MONTHS_SHORT = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@register.simple_tag
def paper_item(paper, show_abstract: bool = False, marked: bool = False) -> SafeString:
    """One paper of a list (search, researcher, institution, category, home, following) as
    ``<article class="paper-item">``: title (with the search's marks when ``marked``), byline,
    with ``show_abstract`` the search snippet or the abstract's first 420 characters, then
    identifier, primary category, submission day, citations and a withdrawn badge.

    Rendered here rather than by an included template: 20 includes were about a third of a
    search page's render (issue 28). Every harvested string is escaped (:func:`wove.markup.escaped`, or
    the :func:`texhtml`/:func:`highlight` filters, which escape piece by piece); the HTML is
    the same as the template's (``tests/site/test_paper_item.py``)."""
    esc = escaped  # leaves the filters' SafeStrings as they are
    marks = getattr(paper, "title_marked", None) if marked else None
    title = highlight(marks) if marks else texhtml(paper.title)
    authors = truncated_chars(byline_filter(paper.authors_text), 220)
    parts = [
        '<article class="paper-item">\n  <h3 class="paper-item-title">'
        f'<a href="{esc(paper.get_absolute_url())}">{esc(title)}</a></h3>\n',
        f'  <p class="paper-item-authors">{esc(authors)}</p>\n',
    ]
    snippet = getattr(paper, "snippet", None) if show_abstract else None
    if snippet:
        parts.append(f'  <p class="paper-item-abstract">…{highlight(snippet)}…</p>\n')
    elif show_abstract and paper.abstract:
        parts.append(
            f'  <p class="paper-item-abstract">{esc(texhtml(truncated_chars(paper.abstract, 420)))}</p>\n'
        )
    meta = [f'<span class="mono">arXiv:{esc(paper.arxiv_id)}</span>']
    if code := paper.primary_category_id:
        name = paper.primary_category.name
        meta.append(
            f'<a class="badge badge-primary" href="/papers/?category={esc(quote(code, safe="/"))}"'
            f' title="{esc(name)}">{esc(code)}</a>'
        )
    if paper.submitted_at:
        day = timezone.localtime(paper.submitted_at)
        # Django's "j M Y" without its per-call format machinery (English month names).
        meta.append(
            f'<time datetime="{day:%Y-%m-%d}">{day.day} {MONTHS_SHORT[day.month - 1]} {day.year}</time>'
        )
    if n := paper.cited_by_count:
        meta.append(f"<span>{grouped(n)} citation{'' if n == 1 else 's'}</span>")
    if paper.withdrawn:
        meta.append('<span class="badge badge-warn">withdrawn</span>')
    parts.append('  <p class="paper-item-meta">\n    ' + "\n    ".join(meta) + "\n  </p>\n</article>")
    return mark_safe("".join(parts))  # noqa: S308 (every piece escaped above)
