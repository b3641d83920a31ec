"""pgvector detection and the vector column/HNSW index, created only where the extension exists."""

from __future__ import annotations

import logging

from django.db import connections, transaction

from .embedders import DIMENSIONS

logger = logging.getLogger(__name__)

TABLE = "semantic_paperembedding"
INDEX = "semantic_embedding_hnsw"


def vector_extension_available(*, using: str = "default") -> bool:
    """Whether the server can ``CREATE EXTENSION vector`` (pgvector's files are installed)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return cursor.fetchone() is not None


def vector_column_exists(*, using: str = "default") -> bool:
    """Whether ``semantic_paperembedding.embedding`` exists, i.e. vectors can be stored/searched."""
    with connections[using].cursor() as cursor:
        # pg_attribute, not information_schema.columns: asked on every search and paper page,
        # and the information_schema view costs 10-25 ms a call (issue #11).
        cursor.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = 'embedding' AND NOT attisdropped",
            [TABLE],
        )
        return cursor.fetchone() is not None


def ensure_vector_schema(*, using: str = "default") -> bool:
    """Create the extension, the ``embedding vector(384)`` column and its HNSW index if possible.

    Idempotent (``IF NOT EXISTS`` throughout). Returns True when the column exists afterwards;
    False, with a warning logged, when pgvector is not installed on the server or the role may
    not create the extension (then search stays in keyword mode). Runs in the 0001 migration
    and again before each embedding run, so a server that gains pgvector later is picked up.
    """
    if vector_column_exists(using=using):
        return True
    if not vector_extension_available(using=using):
        logger.warning(
            "pgvector is not installed on this PostgreSQL server: semantic search is off, "
            "search runs in keyword mode (see README, 'Semantic search')"
        )
        return False
    try:
        # A savepoint, so a refused CREATE EXTENSION does not abort the migration's transaction.
        with transaction.atomic(using=using), connections[using].cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS vector")
            cursor.execute(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS embedding vector({DIMENSIONS})")
            # Cosine distance: the models' vectors are L2-normalised, and `<=>` is what we query.
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {INDEX} ON {TABLE} USING hnsw (embedding vector_cosine_ops)"
            )
    except Exception as exc:  # e.g. InsufficientPrivilege: only a superuser may create it
        logger.warning("could not set up pgvector (%s): search runs in keyword mode", exc)
        return False
    return True
