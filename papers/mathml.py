"""Inline TeX math as MathML for pages, through latex2mathml, sanitised and with its alttext.

latex2mathml (pure Python, MIT) parses the TeX and builds the MathML tree; browsers render
MathML Core natively, with no script. We picked it over hand-written HTML (``√(…)``, ``a/b``)
because each new title found a hole there (roots, fractions, braces, scripts). Its own
string output is not safe for harvested TeX (it un-escapes the whole document, so
``\\text{<script>}`` comes out as a tag), so we take its element tree and write it out
ourselves: only MathML elements and attributes in :data:`_ELEMENTS` and :data:`_ATTRIBUTES`,
every text and attribute value escaped. Macros follow the rule of :mod:`papers.macros`.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape
from xml.etree.ElementTree import Element

from latex2mathml.converter import convert_to_element

from .macros import ARGUMENT_READINGS, PREAMBLE_READINGS, prepare, reading

# What latex2mathml builds for inline math (commands.py), and MathML Core besides; any other
# element makes the whole span fall back to its plain reading.
_ELEMENT_NAMES = """
    math mrow mi mn mo mtext mspace ms msub msup msubsup munder mover munderover mfrac msqrt
    mroot mstyle merror mpadded mphantom mtable mtr mtd mmultiscripts mprescripts none menclose
    semantics annotation
"""
_ELEMENTS = frozenset(_ELEMENT_NAMES.split())
# Presentation attributes that the Nu Html Checker accepts and that change nothing but
# layout; href (a link, even javascript:), colours and anything else are dropped.
_ATTRIBUTE_NAMES = """
    display mathvariant stretchy fence separator form lspace rspace minsize maxsize symmetric
    largeop movablelimits accent accentunder linethickness displaystyle scriptlevel width
    height depth voffset notation columnalign rowspacing columnspacing
"""
_ATTRIBUTES = frozenset(_ATTRIBUTE_NAMES.split())
# MathML 3's named spaces, which MathML Core and CSS do not know: their lengths.
_NAMED_SPACES = {
    "thinmathspace": "0.167em",
    "mediummathspace": "0.222em",
    "thickmathspace": "0.278em",
    "negativethinmathspace": "-0.167em",
    "negativemediummathspace": "-0.222em",
    "negativethickmathspace": "-0.278em",
}
_ENTITY = re.compile(r"&#x([0-9A-Fa-f]+);")
_MACRO = re.compile(r"\\([A-Za-z]+)")
_PREAMBLE_MACRO = re.compile(r"\\(" + "|".join(PREAMBLE_READINGS) + r")(?![A-Za-z])")
_ARGUMENT_MACRO = re.compile(r"\\(" + "|".join(ARGUMENT_READINGS) + r")(?![A-Za-z])")


def _as_tex(match: re.Match) -> str:
    """A preamble macro as TeX latex2mathml sets as its reading: a symbol alone, a word or
    unit upright as text (``\\au`` is ``\\text{AU}``)."""
    text = PREAMBLE_READINGS[match.group(1)]
    return "{" + text + "}" if len(text) == 1 else r"\text{" + text + "}"


def _source(tex: str) -> str:
    """``tex`` ready for latex2mathml: ``%`` as text, preamble macros as their readings (the
    library's table reads ``\\sun`` as ☼ and ``\\sim`` as an ASCII tilde), and a
    ``\\newcommand`` for each argument-taking macro of :data:`ARGUMENT_READINGS` it uses."""
    tex = _PREAMBLE_MACRO.sub(_as_tex, prepare(tex, math=True))
    used = dict.fromkeys(match.group(1) for match in _ARGUMENT_MACRO.finditer(tex))
    definitions = "".join(
        rf"\newcommand{{\{name}}}[{ARGUMENT_READINGS[name][0].count('{')}]{{{ARGUMENT_READINGS[name][2]}}}"
        for name in used
    )
    return definitions + tex


def _macro_text(match: re.Match) -> str:
    return reading(match.group(1))


def _clean(element: Element) -> None:
    """Sanitise the tree in place: the library's character references decoded (it writes
    ``&#x0003D;`` as text), macros it does not know read by :func:`papers.macros.reading`
    (an author's ``\\D`` an upright ``D``, as ``\\mathrm{D}`` would be), a lone relation
    sign in ``<mi>`` moved to ``<mo>``, attributes outside :data:`_ATTRIBUTES` dropped.
    Raises ``ValueError`` on an element outside :data:`_ELEMENTS`."""
    for node in element.iter():
        if node.tag not in _ELEMENTS:
            raise ValueError(f"unexpected MathML element {node.tag!r}")
        for name in list(node.attrib):
            if name not in _ATTRIBUTES:
                del node.attrib[name]
            elif node.attrib[name] in _NAMED_SPACES:
                node.attrib[name] = _NAMED_SPACES[node.attrib[name]]
        if not node.text:
            continue
        text = _ENTITY.sub(lambda m: chr(int(m.group(1), 16)), node.text)
        shown = reading(text[1:]) if _MACRO.fullmatch(text) else ""
        if node.tag == "mi" and len(shown) == 1 and shown.isalpha():  # upright, as \mathrm{D}
            node.attrib["mathvariant"] = "normal"
        text = _MACRO.sub(_macro_text, text)
        if node.tag == "mi" and len(text) == 1 and unicodedata.category(text) == "Sm":
            node.tag = "mo"
        node.text = text


def _markup(node: Element) -> str:
    """``node`` and its children as HTML: every text and attribute value escaped."""
    attributes = "".join(f' {name}="{escape(value)}"' for name, value in node.attrib.items())
    inner = escape(node.text or "", quote=False)
    inner += "".join(_markup(child) + escape(child.tail or "", quote=False) for child in node)
    return f"<{node.tag}{attributes}>{inner}</{node.tag}>"


def tex_to_mathml(tex: str, *, alttext: str) -> str:
    """Math-mode TeX (the inside of ``$…$``) as one ``<math>`` element of escaped HTML,
    ``display="inline"``, its ``alttext`` the plain Unicode reading the caller gives (the
    one feeds and JSON-LD use, so the heading and its JSON-LD name read alike). Follows
    MathML Core as browsers render it. Raises ``ValueError`` on TeX latex2mathml cannot
    parse (``x^{``): the caller shows the plain reading instead."""
    try:
        element = convert_to_element(_source(tex))
    except Exception as error:  # the library raises its own errors, StopIteration, IndexError
        raise ValueError(f"latex2mathml cannot read {tex!r}") from error
    _clean(element)
    element.attrib.clear()
    element.attrib.update({"display": "inline", "alttext": alttext})
    return _markup(element)
