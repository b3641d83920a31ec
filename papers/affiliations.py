"""Affiliation strings of author slots as the matchers read them: the one normaliser.

The strings live on ``papers.PaperAuthor.affiliations``; two readers above papers compare
them, each with its own :class:`WordRules` (abbreviations expanded, words dropped):

- institutions' ROR matching (:func:`tokens`, :func:`normalize`, :data:`NAME_RULES`) finds an
  institution's name in the string as a whole sequence of words, so word order, ``of`` and
  field separators count, and only unambiguous English abbreviations are expanded;
- researchers' clustering (:func:`affiliation_words`, :func:`affiliation_tokens`,
  :func:`affiliation_keys`, :data:`EVIDENCE_RULES`) compares the naming words of two
  mentions as a bag, so function words of several languages, one-letter words and numbers
  (postcodes) go, and language variants fold to one word (``universitat`` →
  ``university``).

The two rule sets differ where the uses differ (``universite`` stays itself for ROR names
written in French; ``saint`` becomes ``st`` for names, ``st`` becomes ``saint`` for
evidence): one list for both would change what each matcher finds.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .text import fold


@dataclass(frozen=True)
class WordRules:
    """How one reader expands and drops the folded words of an affiliation string.

    ``abbreviations`` maps a word to its expansion (``""`` drops it); a word in ``dropped``
    or shorter than ``min_length`` characters (after expansion) is left out.
    """

    abbreviations: Mapping[str, str]
    dropped: frozenset[str]
    min_length: int = 1

    def word(self, word: str) -> str:
        """``word`` expanded, or ``""`` when these rules leave it out."""
        word = self.abbreviations.get(word, word)
        if word in self.dropped or len(word) < self.min_length:
            return ""
        return word


# Abbreviations expanded on both sides (names and strings), so "Univ. of Tokyo" meets
# "University of Tokyo". Kept short: every entry must be unambiguous in affiliations.
_NAME_ABBREVIATIONS = {
    "univ": "university",
    "universty": "university",
    "inst": "institute",
    "natl": "national",
    "tech": "technology",
    "saint": "st",
    "ste": "st",
    "mt": "mount",
    "acad": "academy",
    "centre": "center",
    "lab": "laboratory",
    "labs": "laboratories",
    "and": "",
}
# Words dropped on both sides: "The University of Tokyo" = "University of Tokyo",
# "University of North Carolina at Chapel Hill" = "University of North Carolina, Chapel Hill".
_NAME_DROPPED = frozenset({"the", "at", "in"})

# Researchers' clustering: function words of several languages, and abbreviations and
# language variants of the kinds of place, folded to one English word.
_EVIDENCE_ABBREVIATIONS = {
    "univ": "university",
    "universitat": "university",
    "universite": "university",
    "universita": "university",
    "universidad": "university",
    "universidade": "university",
    "universiteit": "university",
    "uni": "university",
    "u": "university",
    "nat": "national",
    "natl": "national",
    "inst": "institute",
    "institut": "institute",
    "instituto": "institute",
    "istituto": "institute",
    "tech": "technology",
    "technol": "technology",
    "dept": "department",
    "dep": "department",
    "lab": "laboratory",
    "labs": "laboratory",
    "laboratoire": "laboratory",
    "ctr": "center",
    "centre": "center",
    "sci": "science",
    "sciences": "science",
    "acad": "academy",
    "coll": "college",
    "res": "research",
    "eng": "engineering",
    "engn": "engineering",
    "phys": "physics",
    "math": "mathematics",
    "comput": "computer",
    "st": "saint",
}
_EVIDENCE_DROPPED = frozenset(
    [
        "of",
        "the",
        "and",
        "for",
        "at",
        "in",
        "de",
        "des",
        "du",
        "la",
        "le",
        "di",
        "del",
        "der",
        "fur",
        "und",
        "e",
        "y",
        "a",
        "an",
        "on",
    ]
)
_DIGITS = re.compile(r"\d+")

NAME_RULES = WordRules(abbreviations=_NAME_ABBREVIATIONS, dropped=_NAME_DROPPED)
EVIDENCE_RULES = WordRules(abbreviations=_EVIDENCE_ABBREVIATIONS, dropped=_EVIDENCE_DROPPED, min_length=2)


_CAMEL = re.compile(r"(?<=[a-zà-ÿ])(?=[A-ZÀ-Þ])")
_DIGIT_EDGE = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
_NON_WORD = re.compile(r"[\W_]+")


def _fold_accents(text: str) -> str:
    """Decompose, drop combining marks, case-fold: ``Zürich`` → ``zurich``, ``ß`` → ``ss``."""
    if text.isascii():
        return text.casefold()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


_BREAK = re.compile(r"[,;/()\[\]{}:|\n\r\t•·]+")
BREAK = "|"
# A dash joining two words ("Michigan-Flint", "Paris-Sud") is kept as a token with
# ``breaks``: a name followed by one is the first half of another name.
DASH = "~"
_DASH_JOIN = re.compile(r"(?<=\w)[-\u2010\u2011\u2013\u2014](?=\w)")


def tokens(text: str, *, breaks: bool = False) -> list[str]:
    """The words of ``text`` as matching compares them (see :func:`normalize`).

    With ``breaks``, a separator between fields (comma, semicolon, slash, parenthesis,
    colon) becomes the token ``"|"``, so a name is not found across two fields
    ("IoA Cambridge, University of Exeter" does not contain "Cambridge University"), and a
    dash joining two words becomes ``"~"``.
    """
    text = html.unescape(html.unescape(text))  # Crossref strings carry &amp;#x0026; twice over
    text = text.replace("&", " and ")
    # Crossref glues fields together ("SystemsÉcole …LausanneLausanne1015Switzerland").
    text = _CAMEL.sub(" ", text)
    text = _DIGIT_EDGE.sub(" ", text)
    text = _fold_accents(_BREAK.sub(" \x00 ", text))
    out: list[str] = []
    for piece in text.split():
        if piece == "\x00":
            if breaks and out and out[-1] != BREAK:
                out.append(BREAK)
            continue
        parts = _DASH_JOIN.split(piece) if breaks else [piece]
        for index, part in enumerate(parts):
            if index and out and out[-1] not in (BREAK, DASH):
                out.append(DASH)
            for word in _NON_WORD.split(part):
                if not word:
                    continue
                word = NAME_RULES.word(word)
                if word:
                    out.append(word)
    while out and out[-1] in (BREAK, DASH):
        out.pop()
    return out


def normalize(text: str) -> str:
    """A name or affiliation string as matching compares it: HTML entities decoded, accents
    folded, lower case, punctuation to spaces, a few abbreviations expanded (``univ`` →
    ``university``), ``the``/``at``/``in``/``and`` dropped, single spaces.

    ``normalize("The Univ. of Tokyo")`` → ``"university of tokyo"``.
    """
    return " ".join(tokens(text))


def affiliation_words(text: str) -> list[str]:
    """The naming words of one affiliation string, in order, as researchers' clustering
    compares them (:data:`EVIDENCE_RULES`): numbers dropped, folded by
    :func:`papers.text.fold` (TeX decoded, ASCII, lower case, apostrophes removed),
    abbreviations and language variants expanded, function words and one-letter words
    dropped. ``affiliation_words("Univ. of Iowa")`` gives ``["university", "iowa"]``."""
    words = []
    for token in fold(_DIGITS.sub(" ", text or "")).split():
        token = EVIDENCE_RULES.word(token)
        if token:
            words.append(token)
    return words


def affiliation_tokens(affiliations: Iterable[str]) -> frozenset[str]:
    """Normalised token set of raw affiliation strings.

    Folded to ASCII lower case, abbreviations expanded (``Nat. Univ.`` to ``national
    university``), stop words and numbers (postcodes) dropped.
    """
    return frozenset(t for text in affiliations for t in affiliation_words(text))


def affiliation_keys(affiliations: Iterable[str]) -> frozenset[str]:
    """One normalised key per affiliation string (its words in order, as
    :func:`affiliation_tokens` normalises them): ``"Univ. of Iowa"`` and ``"University of
    Iowa"`` give ``"university iowa"``; empty strings give nothing."""
    return frozenset(k for k in (" ".join(affiliation_words(t)) for t in affiliations) if k)


__all__ = [
    "BREAK",
    "DASH",
    "EVIDENCE_RULES",
    "NAME_RULES",
    "WordRules",
    "affiliation_keys",
    "affiliation_tokens",
    "affiliation_words",
    "normalize",
    "tokens",
]
