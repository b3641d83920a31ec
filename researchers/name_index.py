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
only, where the ids and paper counts of 5,000 matches took 60-150 ms of heap reads through
the trigram index of the researchers' own table at 2.5 million papers.

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


def listed_named_sql(words: list[str], limit: int | None) -> tuple[str, list]:
    """The query of :func:`listed_named` and its parameters, for ``words`` (at least one);
    every match when ``limit`` is None."""
    tests = [_token_test(word) for word in words]
    lookup = "SELECT word FROM researchers_nametoken WHERE {}"
    # Built from the fixed conditions above; every value is a parameter.
    sql = "SELECT DISTINCT w.researcher_id, w.paper_count FROM researchers_nameword w WHERE w.word IN ("  # noqa: S608
    sql += lookup.format(tests[0][0]) + ")"
    for test, _param in tests[1:]:
        sql += (
            " AND w.researcher_id IN (SELECT researcher_id FROM researchers_nameword"  # noqa: S608
            f" WHERE word IN ({lookup.format(test)}))"
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
