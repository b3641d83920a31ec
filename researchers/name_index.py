"""The name-word index: every word of every listed researcher's folded names, with the
researcher's paper count beside it, so that a name search reads its matching ids and paper
counts from one index alone (issue 28).

``researchers_nameword`` holds one row per (researcher, word) for the researchers the site
lists (not merged away, at least one paper): the words are :attr:`Researcher.names_folded`
split at spaces (the `` | `` between names dropped), so a query word without a space is in
``names_folded`` exactly when it is in one of these words, and at a word's start there
exactly when it is at the start of one of them or after one of ``.'-`` inside it
(:func:`researchers.querysets.word_start_pattern`). ``researchers_nametoken`` holds each
distinct word once (never removed: a word no one holds any more finds no row), trigram-
indexed where pg_trgm exists, so that a substring is looked up among the distinct words and
then read by the word's range of ``(word, paper_count DESC) INCLUDE (researcher_id)``: index
only, where reading a family name's matches through the trigram index of the researchers'
own table took 20 ms at p95 and up to 150 ms of heap reads at 2.5 million papers.

Statement-level triggers on the researchers' table keep both, in the writing transaction,
for inserts (COPY included), updates of a name, a paper count or a merge, deletes and
TRUNCATE.
"""

from __future__ import annotations

import pgtrigger
from django.db import connections

from wove.replicas import read_alias

from .querysets import SUBSTRING_MIN, fold_text, word_start_pattern

# The listed researchers of a transition table's rows (``{rows}``) and their words.
_WORDS_OF = (
    "SELECT DISTINCT r.id, w.word, r.paper_count FROM {rows} r"
    " CROSS JOIN LATERAL regexp_split_to_table(r.names_folded, ' ') AS w(word)"
    " WHERE r.merged_into_id IS NULL AND r.paper_count > 0 AND w.word NOT IN ('', '|')"
)
# Distinct words in one order, so that two transactions adding the same new words wait for
# each other instead of deadlocking.
_FILL = (
    "WITH added AS (INSERT INTO researchers_nameword (researcher_id, word, paper_count) "  # noqa: S608
    + _WORDS_OF
    + " RETURNING word)"
    " INSERT INTO researchers_nametoken (word) SELECT DISTINCT word FROM added ORDER BY word"
    " ON CONFLICT DO NOTHING;"
)
_CHANGED = (
    "SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id"
    " WHERE (o.names_folded, o.paper_count, o.merged_into_id)"
    " IS DISTINCT FROM (n.names_folded, n.paper_count, n.merged_into_id)"
)
_DROP = "DELETE FROM researchers_nameword w USING ({rows}) x WHERE w.researcher_id = x.id;"


def name_index_triggers() -> list[pgtrigger.Trigger]:
    """The four statement-level triggers (``researcher_names_insert``, ``_update``,
    ``_delete``, ``_truncate``) that keep ``researchers_nameword`` and ``researchers_nametoken`` in step
    with ``researchers_researcher``: an update rewrites the words of the rows whose folded
    names, paper count or ``merged_into`` changed. For ``Researcher.Meta.triggers``."""
    changed = f"({_CHANGED})"
    return [
        pgtrigger.Trigger(
            name="researcher_names_insert",
            when=pgtrigger.After,
            operation=pgtrigger.Insert,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(new="new_rows"),
            func=_FILL.format(rows="new_rows") + " RETURN NULL;",
        ),
        pgtrigger.Trigger(
            name="researcher_names_update",
            when=pgtrigger.After,
            operation=pgtrigger.Update,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(old="old_rows", new="new_rows"),
            func=_DROP.format(rows=_CHANGED) + " " + _FILL.format(rows=changed) + " RETURN NULL;",
        ),
        pgtrigger.Trigger(
            name="researcher_names_delete",
            when=pgtrigger.After,
            operation=pgtrigger.Delete,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(old="old_rows"),
            func=_DROP.format(rows="SELECT id FROM old_rows") + " RETURN NULL;",  # noqa: S608
        ),
        # TRUNCATE fires no delete trigger (a test's wipe of the sample, a bench's reset).
        # DELETE, not TRUNCATE: a flush truncates both tables in one statement, and a table
        # that statement holds cannot be truncated again inside it.
        pgtrigger.Trigger(
            name="researcher_names_truncate",
            when=pgtrigger.After,
            operation=pgtrigger.Truncate,
            level=pgtrigger.Statement,
            func="DELETE FROM researchers_nameword; RETURN NULL;",
        ),
    ]


# Every listed researcher's words, for a migration or a repair (the insert trigger's work).
FILL_ALL = _FILL.format(rows="researchers_researcher")


def _token_test(word: str) -> tuple[str, str]:
    """The condition on a distinct word (``word``) for one query word, and its parameter:
    a substring (``LIKE``, wildcards escaped) from :data:`SUBSTRING_MIN` letters, else at a
    word's start (:func:`word_start_pattern`), as :meth:`ResearcherQuerySet.name_contains`."""
    key = fold_text(word)
    if len(key) < SUBSTRING_MIN:
        return "word ~ %s", word_start_pattern(key)
    escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "word LIKE %s", f"%{escaped}%"


def _further_words(tests: list[tuple[str, str]]) -> str:
    """The semi-joins that keep, of the first query word's rows (``w``), the researchers
    whose names hold every further word too."""
    return "".join(
        " AND w.researcher_id IN (SELECT researcher_id FROM researchers_nameword"  # noqa: S608
        f" WHERE word = {_held_words(test)})"
        for test, _param in tests
    )


def _held_words(test: str) -> str:
    """The distinct words meeting ``test`` (:func:`_token_test`) as an array read once per
    query (an InitPlan), to compare a word column with. Written ``= ANY(ARRAY(...))``, not
    ``IN (SELECT ...)``, which the planner may join as an inner loop run again for every
    outer row, testing the pattern against every distinct word each time: a fresh CI run on
    the sample spent over eight minutes in "wang li" so (its plan not captured)."""
    return f"ANY(ARRAY(SELECT word FROM researchers_nametoken WHERE {test}))"  # noqa: S608 (fixed SQL)


def listed_named_sql(words: list[str], limit: int | None) -> tuple[str, list]:
    """The query of :func:`listed_named` and its parameters, for ``words`` (at least one);
    every match when ``limit`` is None."""
    tests = [_token_test(word) for word in words]
    # Built from the fixed conditions above; every value is a parameter.
    sql = (
        "SELECT DISTINCT w.researcher_id, w.paper_count FROM researchers_nameword w"  # noqa: S608
        f" WHERE w.word = {_held_words(tests[0][0])}" + _further_words(tests[1:])
    )
    params = [param for _test, param in tests]
    return (sql, params) if limit is None else (sql + " LIMIT %s", [*params, limit])


def listed_named(words: list[str], limit: int) -> list[tuple[int, int]]:
    """``(researcher id, paper count)`` of at most ``limit`` listed researchers whose names
    hold every one of ``words`` (query words, :func:`researchers.querysets.name_words`) by
    the rule of :meth:`ResearcherQuerySet.name_contains`, in no order; ``[]`` for no words.
    One query, reading the name-word index only (the first word's matches, each further
    word's as a semi-join)."""
    if not words:
        return []
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(*listed_named_sql(words, limit))
        return cursor.fetchall()


def listed_named_count(words: list[str]) -> int:
    """How many listed researchers :func:`listed_named` finds for ``words``, all counted
    (0 for no words): the index's rows of the matches, read index-only ("wang" at a million
    papers: 15,650 researchers, 0.4 s to count through the researchers' table cold)."""
    if not words:
        return 0
    sql, params = listed_named_sql(words, None)
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({sql}) m", params)  # noqa: S608 (fixed SQL)
        return cursor.fetchone()[0]


# A query word held by more distinct words than this is ranked by the researchers' own
# paper-count index (its matches are dense there: "a" starts thousands of words).
TOP_WORDS_MAX = 64


def listed_named_top(words: list[str], n: int) -> list[int] | None:
    """Ids of the listed researchers :func:`listed_named` finds for ``words`` that can be
    among the ``n`` with most papers: every match with at least as many papers as the
    ``n``-th most (ties kept whole), as :meth:`researchers.selectors.NameMatches.most_papers`
    narrows a list under its cap. For a name with more matches than a list counts ("Zhang":
    thousands), read from the name-word index in paper-count order: at most ``n`` rows of
    each distinct word holding the first query word, then that word's rows down to the
    ``n``-th paper count. ``None`` when the first query word is in more than
    :data:`TOP_WORDS_MAX` distinct words or the matches are fewer than ``n`` (the caller
    reads them another way); ``[]`` for no words."""
    if not words:
        return []
    tests = [_token_test(word) for word in words]
    further = _further_words(tests[1:])
    further_params = [param for _test, param in tests[1:]]
    # Each distinct word's rows by paper count, from a least count, filtered by the further
    # words before the limit (if any).
    ranked = (
        "SELECT x.researcher_id, x.paper_count FROM unnest(%s::text[]) AS t(word) CROSS JOIN LATERAL"  # noqa: S608
        " (SELECT w.researcher_id, w.paper_count FROM researchers_nameword w WHERE w.word = t.word"
        f" AND w.paper_count >= %s{further} ORDER BY w.paper_count DESC {{}}) x"
    )
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            f"SELECT word FROM researchers_nametoken WHERE {tests[0][0]} LIMIT %s",  # noqa: S608
            [tests[0][1], TOP_WORDS_MAX + 1],
        )
        held = [word for (word,) in cursor.fetchall()]
        if len(held) > TOP_WORDS_MAX:
            return None
        cursor.execute(ranked.format("LIMIT %s"), [held, 0, *further_params, n])
        papers = dict(cursor.fetchall())
        if len(papers) < n:
            return None
        least = sorted(papers.values(), reverse=True)[n - 1]
        # Down to the n-th paper count in every word, so that its ties are all there.
        cursor.execute(ranked.format(""), [held, least, *further_params])
        return sorted({pk for pk, _papers in cursor.fetchall()})
