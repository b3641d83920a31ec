"""The one rule for TeX macros in what readers see, and the table of their Unicode readings.

arXiv titles and abstracts are TeX written against the author's own preamble, which arXiv
does not publish: ``\\magcir``, ``\\au`` and ``\\GHz`` come from the AAS and MNRAS macro files,
``\\D`` from nowhere a reader can see. Every reader of harvested text (the plain Unicode
reading of :func:`papers.text.tex_to_unicode` with ``keep_unknown=True``, used by feeds,
JSON-LD, ``<title>``, RIS and search snippets, and the MathML of :mod:`papers.mathml` on
pages) follows one rule:

1. A macro with a known Unicode reading gets it: :data:`READINGS` (``\\magcir`` is ``≳``,
   ``\\mincir`` ``≲``, ``\\au`` ``AU``, ``\\GHz`` ``GHz``, ``\\Msun`` ``M☉``), then the macros
   LaTeX, amsmath and pylatexenc or latex2mathml already read (``\\alpha`` is ``α``).
   :data:`ARGUMENT_READINGS` reads a few that take arguments (``\\ion{C}{IV}`` is ``C IV``).
2. A font, size or spacing switch with no text of its own (:data:`SILENT`, ``\\rm``,
   ``\\displaystyle``) reads as nothing; a braced group after it reads as its text.
3. Any other macro is shown as its name without the backslash, never dropped: ``$\\D$ is``
   reads ``D is`` (set upright in MathML, as an operator name is). Braced groups right after
   it keep their braces, so ``\\foo{C}{IV}`` reads ``foo{C}{IV}``, never ``fooCIV``.

Two more decisions, for the same readers:

- ``%`` is text, never a TeX comment. arXiv's own abstract page sends the abstract through
  ``tex2utf`` (accents and Greek only) and leaves everything outside ``$…$`` to MathJax,
  which does not read ``%`` in running text: 0705.0921's left-over ``%\\sout{…} can be
  %observed`` shows there as written, and so it does here (before, pylatexenc read it as a
  comment and dropped the rest of the line).
- ``sqrt{…}`` written without its backslash (0801.4375: ``at sqrt{s}=1.96 TeV``, as arXiv
  stores it) is the root its author meant; its braces read as nothing otherwise, ``sqrts``.
- ``~`` outside math is text, kept as written; inside math it stays TeX's space. In arXiv
  abstracts it almost always means "about" (0705.0234 ``N_H~10^22``, 0801.4173 ``(~35%)``)
  or sits in a URL (0705.0114 ``uva.nl/~claw/``); TeX's tie read it as a space and glued or
  broke them.

Keys, slugs and name matching (``tex_to_unicode`` without ``keep_unknown``) keep dropping
unknown macros, so stored slugs and matches do not move. BibTeX and RIS exports keep their
own TeX (:mod:`papers.latex`).
"""

from __future__ import annotations

import re

# Rule 2: switches that print nothing themselves.
_SILENT_NAMES = (
    "rm it bf sf tt sc sl em cal Bbb boldmath unboldmath normalfont small scriptsize footnotesize "
    "tiny large Large LARGE normalsize displaystyle textstyle scriptstyle scriptscriptstyle "
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr limits nolimits protect hbox "
    "mbox operatorname boldsymbol centerline hfill hfil vfill noindent cr citealt citealp "
    "ensuremath nonumber relax"
)
SILENT = frozenset(_SILENT_NAMES.split())

# LaTeX's operator names and a few of its symbols pylatexenc's table lacks.
_OPERATOR_NAMES = "dim lg arg deg det ker hom gcd Pr cot coth sec csc"
_LATEX = {name: name for name in _OPERATOR_NAMES.split()}
_LATEX |= {"Re": "ℜ", "Im": "ℑ", "ne": "≠", "implies": "⟹", "colon": ":", "over": "/"}
_LATEX |= {"pmod": "mod ", "bmod": "mod", "choose": "choose", "varinjlim": "lim"}
# \sim is "∼" (U+223C): latex2mathml's table gives it as "~", the ASCII tilde.
_LATEX |= {"sim": "∼", "AA": "Å", "lesssim": "≲", "gtrsim": "≳"}

# Relations from the AAS (aaspp4, aastex), MNRAS (mn2e) and A&A macro files and common
# preambles: "less (greater) than or about" written a dozen ways.
_LESS_OR_ABOUT = "la lsim simlt mincir lapprox lessapprox letsim lesssimeq"
_MORE_OR_ABOUT = "ga gsim simgt magcir gapprox gtrapprox getsim gtrsimeq"
_RELATIONS = {name: "≲" for name in _LESS_OR_ABOUT.split()}
_RELATIONS |= {name: "≳" for name in _MORE_OR_ABOUT.split()}
# Astronomers' symbols and units (aastex: \sun \earth \arcdeg \arcmin \arcsec \micron;
# mnras: \degr \arcmin \arcsec \sun \earth; A&A: \Msun), and physicists' units.
_ASTRONOMY = {
    "sun": "☉",
    "Sun": "☉",
    "earth": "⊕",
    "Msun": "M☉",
    "Msol": "M☉",
    "msun": "M☉",
    "msol": "M☉",
    "Lsun": "L☉",
    "Lsol": "L☉",
    "lsun": "L☉",
    "Rsun": "R☉",
    "Rsol": "R☉",
    "Zsun": "Z☉",
    "Mearth": "M⊕",
    "degr": "°",
    "arcdeg": "°",
    "arcmin": "′",
    "arcsec": "″",
    # AAS's decimal arcseconds: 0\farcs32 is 0.″32, the point under the seconds sign.
    "farcs": ".″",
    "micron": "μm",
    "Angstrom": "Å",
    "angstrom": "Å",
    "AU": "AU",
    "au": "AU",
    "pc": "pc",
    "kpc": "kpc",
    "Mpc": "Mpc",
    "Gpc": "Gpc",
    "kms": "km s⁻¹",
    "kmps": "km s⁻¹",
    "Hz": "Hz",
    "kHz": "kHz",
    "MHz": "MHz",
    "GHz": "GHz",
    "THz": "THz",
    "Lya": "Lyα",
    "Lyalpha": "Lyα",
    "Ha": "Hα",
    "Halpha": "Hα",
    "Hb": "Hβ",
    "Hbeta": "Hβ",
    "HI": "H I",
    "HII": "H II",
    "etal": "et al.",
    "eg": "e.g.",
    "ie": "i.e.",
}
_PHYSICS = {
    "eV": "eV",
    "keV": "keV",
    "MeV": "MeV",
    "GeV": "GeV",
    "TeV": "TeV",
    "PeV": "PeV",
    "EeV": "EeV",
    "fb": "fb",
    "pb": "pb",
    "nb": "nb",
    "ifb": "fb⁻¹",
    "ipb": "pb⁻¹",
    "sqrts": "√s",
    # BaBar's and other B-factory preambles (0704.0571: "$\\Bz\\to\\pip\\pim\\piz$").
    "Bz": "B⁰",
    "Bzb": "B̄⁰",
    "pip": "π⁺",
    "pim": "π⁻",
    "piz": "π⁰",
    "ttbar": "tt̄",
    "bbbar": "bb̄",
    "ccbar": "cc̄",
    "qqbar": "qq̄",
}
READINGS: dict[str, str] = _LATEX | _RELATIONS | _ASTRONOMY | _PHYSICS
"""Macro name (no backslash) to its Unicode reading, in running text and in math alike."""
PREAMBLE_READINGS: dict[str, str] = _RELATIONS | _ASTRONOMY | _PHYSICS | {"sim": "∼"}
"""The readings that win over a math library's own table: authors' preamble macros, whose
names that table may give another meaning (latex2mathml reads ``\\sun`` as ☼, wasysym's;
AAS's is ☉), and ``\\sim``, which it reads as an ASCII tilde."""

# Macros with arguments read by rule 1: name -> (pylatexenc argument spec, text reading with
# %s for each argument, the same as a TeX definition latex2mathml expands in math).
ARGUMENT_READINGS: dict[str, tuple[str, str, str]] = {
    # aastex: \ion{C}{IV}, an element and its ionisation stage in small capitals.
    "ion": ("{{", "%s %s", r"\mathrm{#1}\,\mathrm{#2}"),
    # ulem's strike-outs and underlines, xcolor's colours: the text they mark.
    "sout": ("{", "%s", r"{#1}"),
    "uline": ("{", "%s", r"{#1}"),
    "uwave": ("{", "%s", r"{#1}"),
    "xout": ("{", "%s", r"{#1}"),
    "textcolor": ("{{", "%(2)s", r"{#2}"),
    # hyperref's link: its text (pylatexenc fails on it; latex2mathml would make a link).
    "href": ("{{", "%(2)s", r"{#2}"),
}

_MACRO_NAME = re.compile(r"\\([A-Za-z]+)")
# "sqrt{" with no backslash, not inside a word ("isqrt{" stays).
_BARE_SQRT = re.compile(r"(?<![\\A-Za-z])sqrt(?=\s*\{)")
# A percent sign not already escaped: text, never a comment (see the module docstring).
_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")


def reading(name: str) -> str:
    """What macro ``name`` (no backslash) shows by the rule above: its Unicode reading from
    :data:`READINGS`, ``""`` for a silent switch, else the name itself. ``"magcir"`` gives
    ``"≳"``, ``"rm"`` gives ``""``, ``"D"`` gives ``"D"``."""
    if name in READINGS:
        return READINGS[name]
    return "" if name in SILENT else name


# Math spans, where TeX's ``~`` is a space: $$…$$, $…$, \(…\), \[…\] (unescaped dollars).
_MATH_SPAN = re.compile(r"(?<!\\)\$\$.*?(?<!\\)\$\$|(?<!\\)\$.*?(?<!\\)\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
_TILDE = re.compile(r"(?<!\\)~")


def _tilde_kept(text: str) -> str:
    # Outside math a ~ is kept as written (arXiv shows it so; in abstracts it means "about":
    # 0705.0234's "N_H~10^22", 0801.4173's "(~35%)", 0705.0114's "uva.nl/~claw/" URL).
    out, end = [], 0
    for match in _MATH_SPAN.finditer(text):
        out.append(_TILDE.sub(r"\\textasciitilde{}", text[end : match.start()]))
        out.append(match.group(0))
        end = match.end()
    out.append(_TILDE.sub(r"\\textasciitilde{}", text[end:]))
    return "".join(out)


def prepare(text: str, *, math: bool = False) -> str:
    """TeX from arXiv readied for a reader: every unescaped ``%`` escaped as ``\\%`` (text,
    not a comment), a ``sqrt{`` missing its backslash given one, and a ``~`` outside math
    kept as ``~`` (TeX's tie would read as a space). ``math``: ``text`` is the inside of a
    math span (its ``~`` stays a space). Returns the new text."""
    if "%" in text:
        text = _PERCENT.sub(r"\1\\%", text)
    if "sqrt" in text:
        text = _BARE_SQRT.sub(r"\\sqrt", text)
    if "~" in text and not math:
        text = _tilde_kept(text)
    return text
