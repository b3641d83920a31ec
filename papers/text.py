"""Text helpers for harvested metadata: TeX read as Unicode (its rule: papers.macros), whitespace, slugs."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from django.utils.text import slugify
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec
from pylatexenc.latex2text import get_default_latex_context_db as latex2text_context_db
from pylatexenc.latexwalker import get_default_latex_context_db
from pylatexenc.macrospec import MacroSpec
from unidecode import unidecode

from .macros import ARGUMENT_READINGS, READINGS, SILENT, prepare

# Control characters XML 1.0 forbids (and that break feeds and JSON consumers), minus tab/CR/LF.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TEX_HINT = re.compile(r"[\\{}$~]")
# TeX's dashes and quotes written as ligatures (--, ---, ``, ''): TeX for readers too.
_TEX_LIGATURE = re.compile(r"--|``|''")
SLUG_MAX_LENGTH = 80
_NON_LOWER_ALPHA = re.compile(r"[^a-z ]+")
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _latex() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


def _named(text: str):
    def repl(node) -> str:
        return text + (node.macro_post_space or "")

    return repl


def _unknown_macro(node) -> str:
    # Rule 3 of papers.macros: an author's own macro (\D, \foo) shows as its name; its
    # meaning is in a preamble arXiv does not publish, and dropping it turned "$\D$ is" into " is".
    return node.macroname + (node.macro_post_space or "")


# Cube and fourth roots have their own signs; any other index is written raised before √.
_ROOT_SIGNS = {"": "√", "3": "∛", "4": "∜"}


def _root(node, l2tobj) -> str:
    # pylatexenc's own reading, "√(%(2)s)", drops \sqrt[3]'s index: "√(x)" for ∛x.
    index_node, radicand = node.nodeargd.argnlist
    index = l2tobj.nodelist_to_text([index_node]).strip() if index_node is not None else ""
    sign = _ROOT_SIGNS.get(index) or f"^{index}√"
    return f"{sign}({l2tobj.nodelist_to_text([radicand])})"


_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL")]
_ROMAN += [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def roman(number: int) -> str:
    """``number`` (1 to 3999) in Roman numerals: ``7`` gives ``"VII"``."""
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def _ion(node, l2tobj) -> str:
    # aastex's \ion{O}{7} prints the ionisation stage in Roman numerals ("O VII": AASTeX's
    # \ion is \@Roman of its second argument); a stage written as letters stays as written.
    element, stage = (
        l2tobj.nodelist_to_text([arg]).strip() if arg is not None else "" for arg in node.nodeargd.argnlist
    )
    if stage.isdigit() and 0 < int(stage) < 4000:
        stage = roman(int(stage))
    return f"{element} {stage}"


# An unknown macro with braced arguments (\foo{C}{IV}): pylatexenc reads the groups as text
# after it ("fooCIV"); escaped braces keep them apart ("foo{C}{IV}").
_UNKNOWN_WITH_GROUPS = re.compile(r"\\([A-Za-z]+)((?:\{[^{}$]+\})+)")


def _braces_shown(match: re.Match) -> str:
    name = match.group(1)
    if (
        _latex_keeping_unknown().latex_context.get_macro_spec(name)
        is not _latex_keeping_unknown().unknown_spec
    ):
        return match.group(0)
    return "\\" + name + match.group(2).replace("{", "\\{").replace("}", "\\}")


@lru_cache(maxsize=1)
def _latex_keeping_unknown() -> LatexNodes2Text:
    context = latex2text_context_db()
    macros = [MacroTextSpec(name, discard=True) for name in SILENT]
    macros += [MacroTextSpec(name, simplify_repl=_named(text)) for name, text in READINGS.items()]
    readers = {name: text for name, (_, text, _) in ARGUMENT_READINGS.items()} | {"ion": _ion}
    macros += [MacroTextSpec(name, simplify_repl=text) for name, text in readers.items()]
    macros.append(MacroTextSpec("sqrt", simplify_repl=_root))
    context.add_context_category("wove-latex", macros=macros, prepend=True)
    unknown = MacroTextSpec("", simplify_repl=_unknown_macro)
    context.set_unknown_macro_spec(unknown)
    converter = LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)
    converter.unknown_spec = unknown  # what get_macro_spec answers for a macro it lacks
    return converter


@lru_cache(maxsize=2)
def _latex_context(readers: bool = False):
    # LatexWalker builds this default macro table anew for every string unless given one.
    # Readers' text also parses the arguments of the macros papers.macros reads with them.
    context = get_default_latex_context_db()
    if readers:
        specs = [MacroSpec(name, args) for name, (args, _, _) in ARGUMENT_READINGS.items()]
        context.add_context_category("wove-arguments", macros=specs, prepend=True)
    return _specials_tested_first_char(context)


def _specials_tested_first_char(context):
    """``context`` whose ``test_for_specials`` answers ``None`` at once where the character
    at ``pos`` begins no specials sequence (``~``, ``&``, ``--``, the quote ligatures), and
    asks pylatexenc's own test (every sequence of every category, ``startswith`` each)
    otherwise: the same answers. The walker asks at every character of the text, and its
    full test was 40 % of reading an abstract (2 ms a paper on the real sample)."""
    table = context.d
    first_chars = frozenset(chars[0] for cat in context.category_list for chars in table[cat]["specials"])
    full_test = context.test_for_specials

    def test_for_specials(s, pos, parsing_state=None):
        if pos < len(s) and s[pos] not in first_chars:
            return None
        return full_test(s, pos, parsing_state)

    context.test_for_specials = test_for_specials
    return context


def collapse_whitespace(text: str | None) -> str:
    """Collapse runs of whitespace to one space and trim the ends, in Unicode NFC (every
    harvested string passes here once at ingest, so a title sent decomposed, NFD, is stored,
    hashed, slugged and searched as the same string composed; issue 18); ``None`` gives ``""``."""
    if not text:
        return ""
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    # str.split() splits on exactly the characters ``\s`` matches (str.isspace), and drops
    # empty ends: the same result as re.sub(r"\s+", " ", text).strip(), several times faster.
    return " ".join(text.split())


def strip_control(text: str) -> str:
    """Remove C0 control characters other than tab, CR and LF (XML 1.0 forbids them)."""
    return _CONTROL.sub("", text)


def clean_text(text: str | None) -> str:
    """Harvested free text as stored: control characters removed, whitespace collapsed."""
    return collapse_whitespace(strip_control(text or ""))


def tex_to_unicode(text: str, *, keep_unknown: bool = False) -> str:
    """Decode TeX accent macros and markup into Unicode text.

    ``C. Bal\\'azs`` gives ``C. Balázs``, ``M{\\"u}ller`` gives ``Müller``, ``\\v{z}`` gives
    ``ž``; math is rendered as plain text (``$\\alpha$`` gives ``α``). Text without any TeX
    character is returned unchanged (fast path: most names carry none). On a parse failure
    the input is returned with whitespace collapsed, never an exception.

    A macro neither LaTeX nor pylatexenc knows is dropped, unless ``keep_unknown``: then
    text is read for readers (titles, abstracts, feeds, RIS) by the rule written in
    :mod:`papers.macros`: a macro with a known Unicode reading gets it (``\\magcir`` gives
    ``≳``), any other shows as its name (``$\\D$ is`` gives ``D is``), ``%`` is text and a
    ``sqrt{`` missing its backslash is a root; TeX's dash and quote ligatures (``--``) are
    then read even in text with no other TeX, so a title reads the same with or without
    math in it. Keys, slugs and name matching keep dropping unknown macros, so stored slugs
    and matches stay.
    """
    if not text or not (_TEX_HINT.search(text) or (keep_unknown and _TEX_LIGATURE.search(text))):
        return collapse_whitespace(text)
    converter = _latex_keeping_unknown() if keep_unknown else _latex()
    if keep_unknown:
        text = _UNKNOWN_WITH_GROUPS.sub(_braces_shown, prepare(text))
    try:
        decoded = converter.latex_to_text(text, latex_context=_latex_context(keep_unknown))
    except Exception:  # pylatexenc raises assorted errors on broken TeX; keep the raw text.
        return collapse_whitespace(text)
    return collapse_whitespace(decoded)


# A word holding TeX: a TeX character or ligature anywhere between two runs of white space.
_WORD = re.compile(r"\S+")
# A run ending in a control word or symbol (\sqrt, \') or a group (\frac{a}) may take its
# argument from the next word: the run takes that word too.
_WANTS_NEXT_WORD = re.compile(r"\\(?:[A-Za-z]+|.)$|\}$")


def _has_tex(word: str) -> bool:
    return bool(_TEX_HINT.search(word) or _TEX_LIGATURE.search(word))


def _tex_islands(text: str) -> list[tuple[int, int]]:
    """``[(start, end)]``: the runs of ``text`` that hold TeX, each from the start of a word
    to the end of one, every run closing the groups and math spans it opens and taking the
    word after a trailing control word, symbol or group (``\\sqrt 2``); words joined only
    by white space are one run. A run that never closes (an unmatched ``}`` or ``$``, as in
    a snippet cut inside a formula) runs to the end of the text: pylatexenc reads it from
    there as it would have read the whole text, since everything before it closed. One pass
    over the words, the braces and dollars of each counted once."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    islands: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        start, end = words[i]
        if not _has_tex(text[start:end]):
            i += 1
            continue
        j, depth, dollars = i, 0, 0
        while True:
            word = text[words[j][0] : words[j][1]]
            for char in word:
                if char == "{":
                    depth += 1
                elif char == "}":
                    depth -= 1
                    if depth < 0:  # closes a group opened before the run: read to the end
                        islands.append((start, len(text)))
                        return islands
            dollars += word.count("$") - word.count("\\$")  # \$ is a dollar sign, not math
            balanced = depth == 0 and dollars % 2 == 0
            following = j + 1 < len(words)
            next_has_tex = following and _has_tex(text[words[j + 1][0] : words[j + 1][1]])
            if balanced and not _WANTS_NEXT_WORD.search(word) and not next_has_tex:
                break
            if not following:
                if not balanced:
                    end = len(text)
                break
            j += 1
            end = words[j][1]
        islands.append((start, end))
        i = j + 1
    return islands


@lru_cache(maxsize=8192)
def _island_to_unicode(island: str) -> str:
    return tex_to_unicode(island, keep_unknown=True)


def tex_to_unicode_by_parts(text: str) -> str:
    """:func:`tex_to_unicode` with ``keep_unknown``, read island by island: only the runs of
    words that hold TeX (:func:`_tex_islands`) go through pylatexenc, each memoised (the
    same ``$L^{2}$`` recurs across a page's results), and the plain words between them are
    kept as they are. pylatexenc reads every character it is given (1-2 ms for a 200-character
    search snippet with one formula, issue 28); the islands are a few. The same output as
    :func:`tex_to_unicode` on the sample's titles, abstracts, bylines and cut snippets, but
    for the spacing inside 5 of 11,200 formula-dense texts: pylatexenc keeps or drops a
    space after a macro in math by what it read before (``tests/papers/test_tex_by_parts.py``)."""
    if not text or not _has_tex(text):
        return collapse_whitespace(text)
    out, pos = [], 0
    for start, end in _tex_islands(text):
        out.append(text[pos:start])
        out.append(_island_to_unicode(text[start:end]))
        pos = end
    out.append(text[pos:])
    return collapse_whitespace("".join(out))


_INNERMOST_GROUP = re.compile(r"\s*\([^()]*\)")
_SPACE_BEFORE_COMMA = re.compile(r"\s+,")


def byline(authors_text: str | None) -> str:
    """An arXiv author string with its parenthesised affiliations and marks removed, for
    bylines in lists and feeds: ``"S. Ando (1 and 2), J.W. Shin (1) ((1) Sungkyunkwan U.,
    (2) U. of Manchester)"`` gives ``"S. Ando, J.W. Shin"``. Nested groups go too; an
    unbalanced ``(`` is left as it stands. TeX is kept (decode it for display). Never raises.
    """
    text = authors_text or ""
    while True:
        stripped = _INNERMOST_GROUP.sub("", text)
        if stripped == text:
            break
        text = stripped
    return _SPACE_BEFORE_COMMA.sub(",", collapse_whitespace(text)).strip(" ,;")


def ascii_fold(text: str) -> str:
    """Transliterate to ASCII (``Müller`` gives ``Muller``, ``Ж`` gives ``Zh``)."""
    return unidecode(unicodedata.normalize("NFC", text))


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower-case ASCII form of a name part or an affiliation: TeX decoded, accents and hyphens removed.

    ``M{\\"u}ller`` and ``Müller`` give ``muller``; ``Jean-Pierre`` gives ``jean pierre``;
    apostrophes vanish (``O'Brien`` gives ``obrien``); any other non-letter becomes a space,
    spaces are collapsed. Used by ``researchers.names`` and :mod:`papers.affiliations`.
    """
    if not text:
        return ""
    text = tex_to_unicode(text) if ("\\" in text or "{" in text) else text
    text = unidecode(unicodedata.normalize("NFC", text)).lower()
    text = text.replace("'", "").replace("`", "")
    text = _NON_LOWER_ALPHA.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def make_slug(title: str, fallback: str = "paper") -> str:
    """URL slug for a title: TeX removed, ASCII, lower case, hyphenated, at most 80 characters.

    Never empty: a title with nothing sluggable gives ``fallback``. The cut happens at a
    hyphen boundary when one falls in the last third, so words are not chopped mid-way.
    """
    ascii_title = ascii_fold(tex_to_unicode(title or "")).replace("'", "")
    # Any other punctuation separates words ("D3/D7" gives "d3-d7", "SrTiO_3" "srtio-3").
    slug = slugify(re.sub(r"[^A-Za-z0-9]+", " ", ascii_title))
    if len(slug) > SLUG_MAX_LENGTH:
        cut = slug[:SLUG_MAX_LENGTH]
        boundary = cut.rfind("-")
        slug = cut[:boundary] if boundary > SLUG_MAX_LENGTH * 2 // 3 else cut
        slug = slug.strip("-")
    return slug or fallback


def canon_text(text: str | None) -> str:
    """Lower-cased, whitespace-collapsed text, as hashed in provenance records (PROVENANCE.md)."""
    return collapse_whitespace(text or "").lower()
