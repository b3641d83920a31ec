"""A keyword search's words and filters as conditions on papers, shared by the search page,
its feed, the API and saved searches (issue 31), so all of them match the same papers.

Words match ``websearch_to_tsquery('english', q)`` against the stored, GIN-indexed
``papers_paper.search_vector`` (PostgreSQL's web-search syntax: "quoted phrases", ``OR``,
``-excluded``; https://www.postgresql.org/docs/15/textsearch-controls.html).

The terms helpers (:func:`terms_query_string`, :func:`describe_terms`) read any object with
the attributes ``q``, ``category``, ``year_from``, ``year_to``, ``researcher`` (``pk`` and
``display_name``, or ``None``), ``institution`` and ``collaboration`` (``pk`` and ``name``,
or ``None``): the search page's ``PaperSearch`` and an account's ``SavedSearch`` both are one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Exists, Model, OuterRef, Q

from .models import Paper, PaperAuthor, PaperCollaboration
from .search_fold import search_fold
from .selectors import category_q

SEARCH_CONFIG = "english"


def _related_model(model: type[Model], name: str) -> type[Model]:
    """The model at the other end of ``model``'s reverse relation ``name``: the apps above
    this one are read off the relations that lead to them (an import of researchers or
    institutions here would break the layers). Read at call time, once the app registry
    has every model (reverse relations are unknown before)."""
    return model._meta.get_field(name).related_model


# A word of hyphen-joined pieces ("black-hole", "p-adic", "2-dimensional"), and a quoted
# phrase or any other run of non-blanks, as websearch_to_tsquery reads the query.
_HYPHENATED = re.compile(r"[^\W_]+(?:-[^\W_]+)+")
_QUOTED_OR_WORD = re.compile(r'"[^"]*"?|[^\s"]+')
_DASHES = re.compile(r"-+")


def web_text(q: str) -> str:
    """``q`` with each hyphenated word written as the phrase of its pieces: ``black-hole``
    reads ``"black hole"``, inside a quoted phrase too (``-black-hole`` excludes that phrase).

    PostgreSQL's parser reads a hyphenated query word as the compound followed by its
    pieces (``'black-hole' <-> 'black' <-> 'hole'``), which only text hyphenated the same
    way matches: "black-hole" found 4 papers of the sample where "black hole" finds 96. The
    pieces as a phrase match both spellings (hyphenated text keeps its pieces at adjacent
    positions), and the search index reads such a word so too
    (:func:`papers.search_index.query_text`), so the page, its feed and a saved search
    count the same papers."""

    def rewrite(token: re.Match) -> str:
        if _DASHES.fullmatch(token.group(0)) and not q.startswith('"', token.end()):
            # A dash standing alone ("black - hole") excludes nothing, as the index reads
            # it; PostgreSQL would exclude the next word.
            return ""
        if token.group(0).startswith('"'):
            return _HYPHENATED.sub(lambda m: m.group(0).replace("-", " "), token.group(0))
        return _HYPHENATED.sub(lambda m: '"' + m.group(0).replace("-", " ") + '"', token.group(0))

    # Substituted in place, so what lies between tokens stays as typed: ``-"dark matter"``
    # is one exclusion, and written ``- "dark matter"`` it would be the phrase itself.
    return _QUOTED_OR_WORD.sub(rewrite, q)


def web_query(q: str) -> SearchQuery:
    """``websearch_to_tsquery('english', q)``: words, "quoted phrases", ``OR``, ``-excluded``;
    accents folded as the search vector folds them (:func:`papers.search_fold.search_fold`),
    hyphenated words as phrases (:func:`web_text`)."""
    return words_query(web_words(q))


def web_words(q: str) -> str:
    """The text :func:`web_query` hands ``websearch_to_tsquery`` for ``q``: accents folded,
    hyphenated words quoted as phrases."""
    return search_fold(web_text(q))


def words_query(words: str) -> SearchQuery:
    """``websearch_to_tsquery('english', words)`` for text already made by :func:`web_words`
    (the one parameter a compiled query substitutes, :class:`wove.compiled.CompiledQuery`)."""
    return SearchQuery(words, search_type="websearch", config=SEARCH_CONFIG)


def query_is_empty(q: str) -> bool:
    """Whether ``q`` holds nothing the full-text search can match: only stop words ("the"),
    only operators ("-", "OR OR"), punctuation. ``websearch_to_tsquery`` makes an empty query
    of it, which matches no paper (PostgreSQL's ``numnode`` of it is 0). One query."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT numnode(websearch_to_tsquery(%s::regconfig, %s))",
            [SEARCH_CONFIG, search_fold(web_text(q))],
        )
        return cursor.fetchone()[0] == 0


def filters_q(
    *,
    category: str = "",
    year_from: int | None = None,
    year_to: int | None = None,
    submitted_from: date | None = None,
    submitted_until: date | None = None,
    researcher_ids: Iterable[int] = (),
    institution_id: int | None = None,
    collaboration_id: int | None = None,
) -> Q:
    """The search filters as one ``Q`` over papers: an arXiv category (primary or cross-list;
    an archive divided into classes takes every class, :func:`papers.selectors.category_q`),
    inclusive submission years (UTC), inclusive submission days, an author attributed to one
    of ``researcher_ids`` (a record and those merged into it), an author slot linked to the
    institution, a paper of the collaboration (named among its authors, or written for).
    Empty values add nothing; ``Q()`` for no filter."""
    cond = Q()
    if category:
        cond &= category_q(category)
    if year_from:
        cond &= Q(submitted_at__gte=datetime(year_from, 1, 1, tzinfo=UTC))
    if year_to:
        cond &= Q(submitted_at__lt=datetime(year_to + 1, 1, 1, tzinfo=UTC))
    if submitted_from:
        cond &= Q(submitted_at__date__gte=submitted_from)
    if submitted_until:
        cond &= Q(submitted_at__date__lte=submitted_until)
    ids = list(researcher_ids)
    if ids:
        authorships = _related_model(Paper, "authorships").objects.filter(
            paper=OuterRef("pk"), researcher_id__in=ids
        )
        cond &= Q(Exists(authorships))
    if institution_id is not None:
        links = _related_model(PaperAuthor, "institution_links").objects.filter(
            slot__paper=OuterRef("pk"), institution_id=institution_id
        )
        cond &= Q(Exists(links))
    if collaboration_id is not None:
        entries = PaperCollaboration.objects.filter(paper=OuterRef("pk"), collaboration_id=collaboration_id)
        cond &= Q(Exists(entries))
    return cond


def terms_query_string(terms: Any, *, mode: str = "") -> str:
    """The query string naming ``terms``' words and filters, for the search page and the
    search feed: ``q=dark+matter&category=astro-ph.CO&from=2020``, in that order, empty
    values left out; ``mode`` (``keyword``, ``semantic``) is added after them when given
    and there are words."""
    params = {
        "q": terms.q,
        "category": terms.category,
        "from": terms.year_from or "",
        "to": terms.year_to or "",
        "researcher": terms.researcher.pk if terms.researcher else "",
        "institution": terms.institution.pk if terms.institution else "",
        "collaboration": terms.collaboration.pk if terms.collaboration else "",
        "mode": mode if terms.q else "",
    }
    return urlencode({key: value for key, value in params.items() if value})


def describe_terms(terms: Any) -> str:
    """``terms`` in words: ``“dark matter” in astro-ph.CO by Ada Lovelace, 2020–2024``
    (``of ATLAS Collaboration`` after a collaboration);
    ``all papers`` without words or filters."""
    text = f"“{terms.q}”" if terms.q else "all papers"
    if terms.category:
        text += f" in {terms.category}"
    if terms.researcher:
        text += f" by {terms.researcher.display_name}"
    if terms.institution:
        text += f" from {terms.institution.name}"
    if terms.collaboration:
        text += f" of {terms.collaboration.name}"
    if terms.year_from or terms.year_to:
        same = terms.year_from == terms.year_to
        text += f", {terms.year_from}" if same else f", {terms.year_from or '…'}–{terms.year_to or '…'}"
    return text
