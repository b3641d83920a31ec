"""Tables after a large write: fresh planner statistics and emptied GIN pending lists.

A GIN index with ``fastupdate`` (PostgreSQL's default) queues new entries in a pending list
that every search of the index reads in full until VACUUM, autovacuum or the list's size
limit merges it into the index. After a bulk load the list can hold most of the index: at
10 k generated papers, 110 of the name-variants index's 112 pages were pending, and the
researcher page's "same name" lookup read them all (2.3 ms of the page's 20; issue 28).
See https://www.postgresql.org/docs/15/gin-implementation.html#GIN-FAST-UPDATE.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

# The GIN indexes on a page's path keep their pending lists this small (kB; PostgreSQL's
# default is 4 MB, 512 pages read by every search): set on each index by its migration.
GIN_PENDING_LIST_KB = 256

# A write this large (rows) is followed by ANALYZE: until autovacuum analyses them, tables
# filled in one go look empty to the planner, and joins get nested loops over every row.
ANALYZE_AFTER_WRITES = 500
# One this large by VACUUM (ANALYZE) too, before the next stage reads the rows: at 100 k
# papers the signing and researcher-summaries stages ran 0.67 and 0.75 of their 10 k rates
# right after the bulk load and 0.83 and 0.86 with the tables vacuumed between stages (hint
# bits set once, the visibility map for index-only reads; BENCHMARKS.md, issue 29).
VACUUM_AFTER_WRITES = 20_000


def tables_refresh(tables: Sequence[str], *, vacuum: bool = False) -> None:
    """ANALYZE ``tables`` (table names) and merge their GIN indexes' pending lists
    (``gin_clean_pending_list``), so that the planner sees the rows just written and index
    searches do not read a long queue.

    With ``vacuum`` (only outside a transaction: PostgreSQL refuses VACUUM inside one) the
    tables are VACUUMed too, which also sets the visibility map that index-only scans need:
    for the end of a bulk load or a generated corpus.
    See https://www.postgresql.org/docs/15/populate.html#POPULATE-ANALYZE.

    Raises ``django.db.DatabaseError`` for an unknown table.
    """
    if not tables:
        return
    names = ", ".join(connection.ops.quote_name(t) for t in tables)
    with connection.cursor() as cursor:
        if vacuum and not connection.in_atomic_block:
            cursor.execute(f"VACUUM (ANALYZE) {names}")
            return
        cursor.execute(f"ANALYZE {names}")
        cursor.execute(
            "SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
            "WHERE a.amname = 'gin' AND i.indrelid = ANY(%s::regclass[])",
            [list(tables)],
        )


def tables_settle(tables: Sequence[str], written: int) -> str:
    """After a stage wrote ``written`` rows into ``tables`` (table names): VACUUM (ANALYZE)
    them from :data:`VACUUM_AFTER_WRITES` rows, ANALYZE them (and merge their GIN pending
    lists) from :data:`ANALYZE_AFTER_WRITES`, nothing below. Inside a transaction VACUUM is
    not allowed, so a large write there is only analysed. Returns what was done: ``"vacuum"``,
    ``"analyze"`` or ``""``. What autovacuum would do later, done at the stage's end because
    the next stage reads these rows at once
    (https://www.postgresql.org/docs/15/routine-vacuuming.html).

    Raises ``django.db.DatabaseError`` for an unknown table.
    """
    if written < ANALYZE_AFTER_WRITES:
        return ""
    vacuum = written >= VACUUM_AFTER_WRITES and not connection.in_atomic_block
    tables_refresh(tables, vacuum=vacuum)
    return "vacuum" if vacuum else "analyze"
