"""Triggers that log papers in ``papers_searchchange`` when rows the search index holds
about them change (:mod:`papers.search_index`), for the apps that own those rows.

The papers table logs itself (``Paper.Meta.triggers``); the researchers and institutions apps
log a paper when its authorships or institution links are added, moved or removed, through
:func:`search_log_triggers` in their models' ``Meta.triggers``.
"""

from __future__ import annotations

import pgtrigger


def search_log_triggers(prefix: str, *, paper_ids: str, watched: tuple[str, ...]) -> list[pgtrigger.Trigger]:
    """Three statement-level triggers (insert, update, delete) named ``<prefix>_insert`` ...
    that add the affected papers to ``papers_searchchange`` in the changing transaction.

    ``paper_ids`` is a SELECT of one column, the paper ids of the rows in a transition table
    written ``{rows}`` (e.g. ``"SELECT paper_id FROM {rows}"``); an update logs the papers of
    the rows, before and after, whose ``watched`` columns changed (so a merge that moves
    authorships to another researcher logs their papers, and a change of a confidence does
    not). Each paper is logged once per statement. The table needs an ``id`` primary key."""
    old_cols = ", ".join(f"o.{c}" for c in watched)
    new_cols = ", ".join(f"n.{c}" for c in watched)
    log = (
        "INSERT INTO papers_searchchange (paper_id, changed_at)"
        " SELECT DISTINCT x.paper_id, now() FROM ({}) x(paper_id);"
    )
    # Built from the models' own constants, never from input.
    changed = f"JOIN old_rows o ON o.id = n.id WHERE ({old_cols}) IS DISTINCT FROM ({new_cols})"
    update = (
        f"WITH after AS (SELECT n.* FROM new_rows n {changed}),"  # noqa: S608
        f" before AS (SELECT o.* FROM new_rows n {changed}) "  # noqa: S608
        + log.format(f"{paper_ids.format(rows='after')} UNION {paper_ids.format(rows='before')}")
    )
    return [
        pgtrigger.Trigger(
            name=f"{prefix}_insert",
            when=pgtrigger.After,
            operation=pgtrigger.Insert,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(new="new_rows"),
            func=log.format(paper_ids.format(rows="new_rows")) + " RETURN NULL;",
        ),
        pgtrigger.Trigger(
            name=f"{prefix}_update",
            when=pgtrigger.After,
            operation=pgtrigger.Update,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(old="old_rows", new="new_rows"),
            func=update + " RETURN NULL;",
        ),
        pgtrigger.Trigger(
            name=f"{prefix}_delete",
            when=pgtrigger.After,
            operation=pgtrigger.Delete,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(old="old_rows"),
            func=log.format(paper_ids.format(rows="old_rows")) + " RETURN NULL;",
        ),
    ]
