"""How text becomes the search index's terms (issue 28): the analyzer of its text fields,
the query text a visitor's words make, and the adjacent word pairs that let a phrase of
common words be found without reading every paper holding its words. Split from
``papers/search_index.py`` by job (text here, reading the index there); both the reading
(:mod:`papers.search_index`) and the writing (:mod:`papers.search_index_sync`) use it, so
a paper's terms and a query's are made by the same code.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

ANALYZER = "wove_en"
TEXT_FIELDS = ("title", "authors", "abstract")
# Snowball's English stop words, the list PostgreSQL's 'english' configuration drops
# (tsearch_data/english.stop): a query word dropped there is dropped here, so "how prime
# numbers are distributed" needs neither "how" nor "are" in either.
STOP_WORDS = """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
    her hers herself it its itself they them their theirs themselves what which who whom this that
    these those am is are was were be been being have has had having do does did doing a an the and
    but if or because as until while of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once here
    there when where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don should now
""".split()  # noqa: SIM905 (laid out as the list reads)
_STOP = frozenset(STOP_WORDS)

# Each text field's adjacent word pairs, one term a pair, papers only (no frequencies or
# positions): a phrase's pairs pick the papers that may hold it before Tantivy checks the
# positions of its words (search_index._query). Without them a phrase of common words ("r n"
# from "$R^n$", "gamma ray" from "gamma-ray") is found by intersecting its words' postings and
# reading positions for every paper holding all of them: 6-9 ms at 1 M (BENCHMARKS.md).
PAIR_FIELDS = {name: f"{name}_pairs" for name in TEXT_FIELDS}
PAIR_JOIN = "_"  # never inside a term: the analyzer's words are letters and digits


@functools.cache
def analyzer():
    """The text fields' Tantivy analyzer (:data:`ANALYZER`): words and numbers (Tantivy's
    simple tokenizer), words over 60 bytes dropped, lower case, accents folded (as
    ``papers.search_fold`` folds them for PostgreSQL), :data:`STOP_WORDS` dropped, Snowball
    English stems (as ``to_tsvector('english', ...)``). Its ``analyze(text)`` gives the terms."""
    import tantivy  # imported on first use: the web process pays for it only when searching

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(60))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.custom_stopword(STOP_WORDS))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.cache
def _words_analyzer():
    """:func:`analyzer` without its last two filters: every word, stop words included, as
    the stop-word filter sees it, so a word's place among them is known (:func:`word_pairs`)."""
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(60))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def word_pairs(text: str) -> list[str]:
    """The stems of each two neighbouring words of ``text`` (neither a stop word), joined by
    :data:`PAIR_JOIN`, in order: "Gamma-Ray Bursts" -> ``["gamma_ray", "ray_burst"]``;
    a stop word between two words makes no pair ("state of the art" -> ``[]``; "$T_c$" ->
    ``[]``, "t" being one), as Tantivy's phrase query, which keeps the stop word's position, would not
    match them side by side. Every phrase match of two words in a field is a pair of that
    field (a word too long for the analyzer, dropped, may add one pair more: harmless)."""
    pairs: list[str] = []
    previous = None
    for word in _words_analyzer().analyze(text):
        stem = None if word in _STOP else _stem(word)
        if previous is not None and stem is not None:
            pairs.append(previous + PAIR_JOIN + stem)
        previous = stem
    return pairs


@functools.lru_cache(maxsize=262_144)
def _stem(word: str) -> str | None:
    """The term :func:`analyzer` makes of ``word`` (one word of :func:`_words_analyzer`),
    ``None`` when it makes no single term. Kept per word: the analyzer's call costs more than
    the stemming, and a paper's words are mostly the archive's common ones."""
    terms = analyzer().analyze(word)
    return terms[0] if len(terms) == 1 else None


# websearch-style query text: "quoted phrases", OR, -excluded words, other words all required.
_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)


def query_text(q: str) -> str:
    """``q`` (web search syntax, as PostgreSQL's ``websearch_to_tsquery`` reads it) as
    Tantivy query text: words and numbers only, so no field name, range, boost or regex can
    be written into the query; ``"a phrase"`` stays a phrase, ``OR`` an alternative and a
    leading ``-`` an exclusion. Returns ``""`` when nothing searchable is left."""
    return " ".join(query_parts(q))


def query_parts(q: str) -> list[str]:
    """:func:`query_text`'s parts: ``word``, ``"a phrase"``, ``-word`` or ``-"a phrase"``
    (excluded), and ``OR`` between two alternatives; ``[]`` when nothing searchable is left."""
    parts: list[str] = []
    for phrase, word in _TOKEN.findall(q):
        if phrase:
            words = _WORD.findall(phrase)
            if words:
                parts.append('"' + " ".join(w.lower() for w in words) + '"')
            continue
        if word == "OR":
            if parts and parts[-1] != "OR":
                parts.append("OR")
            continue
        negate = word.startswith("-") and len(word) > 1
        # A possessive reads as its noun, as PostgreSQL's English parser reads it.
        words = [w.lower() for w in _WORD.findall(_POSSESSIVE.sub("", word))]
        if not words:
            continue
        # "p-adic", "Schwarzschild's": one token in the text as the analyzer splits it,
        # so the pieces are searched as a phrase.
        term = words[0] if len(words) == 1 else '"' + " ".join(words) + '"'
        parts.append(("-" if negate else "") + term)
    while parts and parts[-1] == "OR":
        parts.pop()
    if parts and parts[0] == "OR":
        parts.pop(0)
    # Only exclusions match nothing (as in PostgreSQL's websearch).
    if all(p.startswith("-") or p == "OR" for p in parts):
        return []
    return parts


def required_phrases(parts: list[str]) -> list[tuple[int, list[str]]]:
    """``(index, pairs)`` of each part of :func:`query_parts` ``parts`` that every match must
    hold as a phrase (quoted, not excluded) and that has word pairs (:func:`word_pairs`);
    ``[]`` for a query with an ``OR`` (how Tantivy groups it is left to Tantivy)."""
    if "OR" in parts:
        return []
    found = []
    for i, part in enumerate(parts):
        if not part.startswith('"'):
            continue
        pairs = word_pairs(part.strip('"'))
        if pairs:
            found.append((i, pairs))
    return found


@dataclass(frozen=True)
class QueryTerms:
    """A query as the index reads it, made once per search: ``parts``
    (:func:`query_parts`) and ``phrases``, ``{index into parts: word pairs}`` of its required
    phrases (:func:`required_phrases`)."""

    parts: list[str]
    phrases: dict[int, list[str]]


def query_terms(q: str) -> QueryTerms:
    """:class:`QueryTerms` of ``q`` (web search syntax); ``parts`` empty when nothing
    searchable is left."""
    parts = query_parts(q)
    return QueryTerms(parts, dict(required_phrases(parts)))
