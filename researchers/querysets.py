"""Read-side queries for researchers."""

from __future__ import annotations

import re

from django.db import models
from unidecode import unidecode


def _fold_table() -> tuple[str, str]:
    """Accented Latin letters and the one ASCII letter each folds to, as two aligned strings.

    Drawn from unidecode over Latin-1 Supplement and Latin Extended-A/B (U+00C0..U+024F),
    keeping only letters that fold to exactly one letter (``ü`` to ``u``, ``ł`` to ``l``;
    ``ß`` to ``ss`` is left out, since PostgreSQL's ``translate`` maps one character to one).
    """
    source, target = [], []
    for code in range(0xC0, 0x250):
        char = chr(code)
        folded = unidecode(char).lower()
        if char.isalpha() and len(folded) == 1 and folded.isalpha() and folded != char.lower():
            source.append(char)
            target.append(folded)
    return "".join(source), "".join(target)


FOLD_FROM, FOLD_TO = _fold_table()
_FOLD = str.maketrans(FOLD_FROM, FOLD_TO)
_WORD = re.compile(r"[\w'.-]+", re.UNICODE)
# Web-search operators a query may hold; never part of a name search.
_OPERATORS = {"or", "and", "not"}
MAX_NAME_WORDS = 8
# Shorter name words match at a word's start only (ResearcherQuerySet.name_contains). A word
# of one or two letters has no trigram: ``LIKE '%wu%'`` read every researcher, 320 ms at a
# million papers for "Wu" (2,658 names, under the count cap, so read again on every search;
# issue 28), and found "Goldwurm" too. At a word's start it has one (`` wu``): 7 ms.
SUBSTRING_MIN = 3
# Characters a word of a folded name starts after (names_folded joins names with " | ").
_WORD_STARTS_AFTER = " .'-"


def word_start_pattern(key: str) -> str:
    """A PostgreSQL regular expression (ARE, the ``~`` operator) matching ``key`` (folded)
    at the start of the text or after one of :data:`_WORD_STARTS_AFTER`:
    ``"wu"`` gives ``(^|[ .'-])wu``. Every character of ``key`` but a letter or digit is
    escaped, so it stands for itself. pg_trgm's index reads it by the trigram of the
    word's start; a class of every non-word character (``\\W``) it cannot read."""
    escaped = "".join(c if c.isalnum() else "\\" + c for c in key)
    return f"(^|[{_WORD_STARTS_AFTER}]){escaped}"


def name_words(text: str) -> list[str]:
    """The words of a query for name matching, at most :data:`MAX_NAME_WORDS`: quotes,
    search operators (``OR``, ``AND``, ``NOT``, a leading ``-``) and the dots of initials
    dropped, so ``"A. Loeb"`` gives ``["A", "Loeb"]``."""
    words = []
    for word in _WORD.findall(text or ""):
        word = word.strip(".-'")
        if word and word.lower() not in _OPERATORS:
            words.append(word)
    return words[:MAX_NAME_WORDS]


def fold_text(text: str) -> str:
    """``text`` lower-cased with accents removed the way :class:`Folded` does it in SQL:
    ``"Müller"`` and ``"MULLER"`` both give ``"muller"``."""
    return text.lower().translate(_FOLD)


class Folded(models.Func):
    """SQL ``translate(lower(expr), FOLD_FROM, FOLD_TO)``: a text column lower-cased with
    accents removed, to compare with :func:`fold_text` of a query.

    Plain ``translate``/``lower`` rather than the ``unaccent`` extension, which the embedded
    PostgreSQL does not ship.
    """

    output_field = models.TextField()

    def __init__(self, expression) -> None:
        super().__init__(
            models.Func(expression, function="lower", output_field=models.TextField()),
            models.Value(FOLD_FROM),
            models.Value(FOLD_TO),
            function="translate",
        )


class NamesFolded(models.Func):
    """SQL ``researcher_names_folded(display_name, name_variants)``: the display name and every
    variant joined by `` | ``, folded as :class:`Folded` folds (the function is created by
    migration ``researchers.0003``). Stored as :attr:`Researcher.names_folded`, so a name
    search reads one column instead of folding every row on every query.
    """

    output_field = models.TextField()
    function = "researcher_names_folded"


# The order of a list of researchers: most papers first, then by name.
LISTED_ORDER = ("-paper_count", "display_name", "id")


class ResearcherQuerySet(models.QuerySet):
    """Public reads of researcher records."""

    def active(self) -> ResearcherQuerySet:
        """Records not merged away by an editor (a merged record only redirects)."""
        return self.filter(merged_into__isnull=True)

    def listed(self) -> ResearcherQuerySet:
        """Active researchers with at least one paper, most papers first."""
        return self.active().filter(paper_count__gt=0).order_by(*LISTED_ORDER)

    def search(self, query: str) -> ResearcherQuerySet:
        """The one researcher name search (the site's list and search tab, the API's list
        and search): researchers whose display name or a name variant holds every word of
        ``query`` (:func:`name_words`), ignoring case and accents (``Muller`` finds
        ``Müller``, ``A. Loeb`` finds ``Abraham Loeb``). A blank ``query`` filters nothing;
        one with no words (``"..."``) finds no one."""
        if not (query or "").strip():
            return self
        words = name_words(query)
        return self.name_contains(*words) if words else self.none()

    def name_contains(self, *words: str) -> ResearcherQuerySet:
        """Researchers whose display name or a name variant holds every one of ``words``,
        each compared case- and accent-insensitively (:func:`fold_text`): a word of three
        or more letters anywhere (``oeb`` finds ``Loeb``), a shorter one at the start of a
        word of the name (``Li`` finds ``Li`` and ``Lin``, not ``Oliver``; ``A`` finds
        ``Abraham``), :func:`word_start_pattern`."""
        qs = self
        for word in words:
            key = fold_text(word)
            if len(key) < SUBSTRING_MIN:
                qs = qs.filter(names_folded__regex=word_start_pattern(key))
            else:
                # LIKE '%key%' on the stored column: a trigram index answers it where pg_trgm exists.
                qs = qs.filter(names_folded__contains=key)
        return qs
