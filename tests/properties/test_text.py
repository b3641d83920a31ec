"""Properties of the text helpers every page relies on: TeX rendering stays escaped HTML,
slugs always fit the URL pattern, JSON-LD never closes its script element."""

from __future__ import annotations

import json
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from institutions.views import json_ld
from papers.export import bibtex_value
from papers.latex import MATH_MACROS, TEXT_MACROS, compilable_tex
from papers.templatetags.wove import highlight, ld_json_script, texhtml
from papers.text import SLUG_MAX_LENGTH, make_slug, tex_to_unicode
from researchers.templatetags.researchers_tags import ld_json

PROPERTY = settings(max_examples=200, deadline=None)

# Text that looks like arXiv titles and abstracts gone wrong: TeX, math, HTML, quotes.
tex_alphabet = st.sampled_from(
    list("abcxyz XYZ019")
    + [
        "$",
        "$$",
        "\\(",
        "\\)",
        "\\[",
        "\\]",
        "\\sqrt",
        "[3]",
        "^",
        "_",
        "{",
        "}",
        "\\",
        "\\alpha",
        "\\mathrm",
        "\\frac",
        "\\text",
        "\\href",
        "\\magcir",
        "sqrt",
        "<",
        ">",
        "&",
        '"',
        "'",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "\\'",
        '\\"',
        "~",
        "%",
        "\ue000",
        "\ue001",
        "\n",
        "\x00",
        "é",
    ]
)
tex_text = st.lists(tex_alphabet, max_size=30).map("".join) | st.text(max_size=60)
# Ours: <sub>, <sup>, <mark>, and MathML elements (papers.mathml) with plain attributes whose
# values hold no quote or angle bracket (escaped).
OUR_TAGS = re.compile(r'</?(?:sup|sub|mark)>|</(?:math|m[a-z]+)>|<(?:math|m[a-z]+)(?: [a-z]+="[^"<>]*")*>')


def _no_markup_but_ours(html: str) -> None:
    stripped = OUR_TAGS.sub("", str(html))
    assert "<" not in stripped and ">" not in stripped, html
    # Every & starts an entity the escaper wrote.
    assert re.fullmatch(r"(?:[^&]|&(?:amp|lt|gt|quot|#x27|#39);)*", stripped, re.DOTALL), html


@PROPERTY
@given(tex_text)
@example("$x^{<script>}$")
@example("a_{</sub><script>}")
@example("$\\text{<b>}$")
@example("\\textless script\\textgreater")
@example("\\[\\sqrt[<b>]{x^<i>}\\] \\sqrt{y_<s>}")
@example("$\\frac{<b>^2}{}$ \\sqrt{a_1</span>}")
@example('$\\href{javascript:alert(1)}{x}\\text{"><img src=x>}$')
@example('$x" onmouseover="alert(1)$ sqrt{<b>}')
def test_texhtml_is_escaped_html(text):
    _no_markup_but_ours(texhtml(text))


@PROPERTY
@given(tex_text)
@example("\ue000<script>\ue001")
@example("\ue000$x^\ue001$")
def test_highlight_adds_only_balanced_marks(text):
    html = str(highlight(text))
    _no_markup_but_ours(html)
    assert html.count("<mark>") == html.count("</mark>")


@PROPERTY
@given(tex_text)
def test_tex_to_unicode_never_raises(text):
    assert isinstance(tex_to_unicode(text), str)


@PROPERTY
@given(tex_text)
@example("\\'{}")
@example("ǅ")  # a title-case digraph
@example("ﬁ" * 100)  # ligatures that widen on folding
def test_slug_fits_the_url_pattern(text):
    slug = make_slug(text)
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug), slug
    assert len(slug) <= SLUG_MAX_LENGTH


json_docs = st.dictionaries(
    st.text(max_size=8), st.text(max_size=40) | st.lists(st.text(max_size=20), max_size=3), max_size=4
)


@PROPERTY
@given(json_docs)
@example({"name": "</script><script>alert(1)</script>"})
@example({"name": "<!--<script>"})
@example({"name": "\u2028\u2029"})
def test_json_ld_cannot_close_its_script_element(data):
    for body in (
        str(json_ld(data)),
        _inner(str(ld_json_script(data))),
        _inner(str(ld_json(data))),
    ):
        assert "<" not in body and ">" not in body
        assert json.loads(body) == data


def _inner(script: str) -> str:
    assert script.startswith('<script type="application/ld+json"') and script.endswith("</script>")
    return script[script.index(">") + 1 : -len("</script>")]


def _raw_balanced(value: str) -> bool:
    depth = 0
    for char in value:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


@PROPERTY
@given(tex_text)
@example("Foo}, note={injected")  # the "}" ended the title; "note" became a field
@example("Sets $\\{x_n$ of")  # an escaped brace without partner: BibTeX counts it
@example("ends with a backslash \\")  # swallowed the closing brace
@example("\\ \\")  # dropping the last backslash left another one at the end
@example("$\\{x\\}$ 100% & #1")
def test_bibtex_value_keeps_braces_balanced(text):
    value = bibtex_value(text)
    assert _raw_balanced(value), value
    assert not re.search(r"(?<!\\)(?:\\\\)*\\$", value), value
    assert not re.search(r"(?<!\\)[%&#]", value), value
    if _raw_balanced(text) and "\\" not in text and not re.search(r"[%&#\x00-\x1f\x7f]", text):
        assert value == " ".join(text.split())  # nothing touched when nothing needed it


_CONTROL_WORD = re.compile(r"\\([A-Za-z]+)")
_BIBTEX_EXTRA = st.sampled_from(
    ["\\mu", "\\PGL", "\\bar", "\\it", "\\'e", "\\to", "SL_2(C)", "x^2^3", "s_NN"]
)


def _math_and_text(value: str) -> tuple[list[str], list[str]]:
    """``value`` cut at its unescaped dollars (``\\\\$`` is an escaped backslash, then a dollar)."""
    parts = re.split(r"(?<!\\)((?:\\\\)*)\$", value)
    # re.split keeps the captured backslash pairs: glue them back to the piece before.
    pieces = [parts[0]]
    for pairs, piece in zip(parts[1::2], parts[2::2], strict=True):
        pieces[-1] += pairs
        pieces.append(piece)
    return pieces[1::2], pieces[0::2]


@PROPERTY
@given(st.lists(tex_alphabet | _BIBTEX_EXTRA, max_size=30).map("".join) | st.text(max_size=60))
@example(r"A \mu-ordinary $\PGL_n$ and f_D_{S^+}, 4\Lambda$-Terms")
def test_compilable_tex_leaves_no_math_outside_dollars(text):
    # What makes pdflatex stop on arXiv titles: a ^, _ or math macro in text mode, an odd
    # dollar, a macro LaTeX does not define. None may survive compilable_tex.
    value = compilable_tex(bibtex_value(text))
    math, plain = _math_and_text(value)
    assert len(plain) == len(math) + 1, value  # dollars paired
    for piece in plain:
        assert not re.search(r"(?<!\\)[\^_]", piece.replace("\\\\", "")), value
        assert all(name in TEXT_MACROS for name in _CONTROL_WORD.findall(piece.replace("\\\\", ""))), value
    for piece in math:
        assert all(name in MATH_MACROS for name in _CONTROL_WORD.findall(piece.replace("\\\\", ""))), value
    assert _raw_balanced(value), value
