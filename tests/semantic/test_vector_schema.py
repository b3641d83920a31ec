"""The vector column is set up from the catalog, not from a remembered answer: a database
dropped and migrated again by the same process (a bench's fresh database) gets its column."""

from __future__ import annotations

import pytest
from django.db import connection

from semantic.schema import TABLE, ensure_vector_schema, vector_column_exists
from tests.semantic.conftest import pgvector_available


def _column_in_catalog() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'"
            " AND NOT attisdropped",
            [TABLE],
        )
        return cursor.fetchone()[0] == 1


@pytest.mark.django_db
def test_ensure_vector_schema_adds_a_column_the_cache_still_remembers():
    if not pgvector_available():
        pytest.skip("pgvector not installed on this PostgreSQL server")
    assert vector_column_exists()  # remembered for a minute in this process
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {TABLE} DROP COLUMN embedding")  # rolled back after the test
    assert not _column_in_catalog()

    assert ensure_vector_schema() is True
    assert _column_in_catalog()
