"""Trigram indexes made only where PostgreSQL has pg_trgm (not the embedded server), for
migrations: ``migrations.RunPython(*trigram_index("idx", "table", "column"))``."""

from __future__ import annotations

from collections.abc import Callable


def trigram_index(
    name: str, table: str, column: str, *, pending_kb: int | None = None
) -> tuple[Callable, Callable]:
    """The forward and backward functions of a ``RunPython`` that creates GIN index ``name``
    on ``table (column gin_trgm_ops)`` where the pg_trgm extension can be installed (it is
    created then), with a GIN pending list of ``pending_kb`` kB when given
    (:data:`wove.statistics.GIN_PENDING_LIST_KB`), and drops it if it exists.
    See https://www.postgresql.org/docs/15/pgtrgm.html#PGTRGM-INDEX."""
    storage = f" WITH (gin_pending_list_limit = {int(pending_kb)})" if pending_kb else ""

    def create(apps, schema_editor) -> None:
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")
            if cursor.fetchone() is None:
                return
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            # Names from the calling migration's constants, never from input.
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ({column} gin_trgm_ops){storage}"
            )

    def drop(apps, schema_editor) -> None:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")

    return create, drop
