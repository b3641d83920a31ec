"""pgvector detection, the vector column, and one HNSW index per model, only where the extension
exists.

Each model's vectors have their own partial HNSW index (``WHERE model = '<name>'``, issue 29):
a re-embedding under a new model never inserts into the graph searches walk, and a large
backlog of one model is written with no index and indexed once after, in one build, which
on two cores is about six times as fast as inserting the same vectors into a growing graph
(BENCHMARKS.md, "Pipeline throughput").
"""

from __future__ import annotations

import hashlib
import logging

from django.core.cache import caches
from django.db import DatabaseError, connections, transaction

from .embedders import DIMENSIONS

logger = logging.getLogger(__name__)

TABLE = "semantic_paperembedding"
# The single index of every model's vectors before issue 29 (dropped by migration 0003).
LEGACY_INDEX = "semantic_embedding_hnsw"
INDEX_PREFIX = "semantic_hnsw_"
# What an index build may sort in memory: an HNSW graph built within it is built several times
# as fast as one that spills (pgvector warns "hnsw graph no longer fits into
# maintenance_work_mem"); 2.5 million 384-dimension vectors need about 4 GB.
INDEX_BUILD_MEMORY = "1GB"
# How long a process trusts its last answer of vector_column_exists (seconds).
COLUMN_KNOWN_SECONDS = 60


def vector_extension_available(*, using: str = "default") -> bool:
    """Whether the server can ``CREATE EXTENSION vector`` (pgvector's files are installed)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return cursor.fetchone() is not None


def vector_column_exists(*, using: str = "default") -> bool:
    """Whether ``semantic_paperembedding.embedding`` exists, i.e. vectors can be stored/searched.

    Asked on every search and paper page: the answer is kept in this process for
    :data:`COLUMN_KNOWN_SECONDS` (the ``process`` cache), so another process's
    :func:`ensure_vector_schema` is seen within a minute and this one's at once."""
    key = f"vector-column:{using}"
    known = caches["process"].get(key)
    if known is not None:
        return known
    found = _vector_column_in_catalog(using)
    caches["process"].set(key, found, COLUMN_KNOWN_SECONDS)
    return found


def _vector_column_in_catalog(using: str) -> bool:
    with connections[using].cursor() as cursor:
        # pg_attribute, not information_schema.columns: the view costs 10-25 ms a call (issue #11).
        cursor.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = 'embedding' AND NOT attisdropped",
            [TABLE],
        )
        return cursor.fetchone() is not None


def ensure_vector_schema(*, using: str = "default") -> bool:
    """Create the extension and the ``embedding vector(384)`` column if possible (each model's
    index is :func:`model_index_create`'s).

    Idempotent (``IF NOT EXISTS`` throughout). Returns True when the column exists afterwards;
    False, with a warning logged, when pgvector is not installed on the server or the role may
    not create the extension (then search stays in keyword mode). Runs in the 0001 migration
    and again before each embedding run, so a server that gains pgvector later is picked up.
    """
    # The catalog itself, not the process's cached answer: a database dropped and migrated
    # again within the cache's minute (a bench's fresh database) has no column yet.
    if _vector_column_in_catalog(using):
        caches["process"].set(f"vector-column:{using}", True, COLUMN_KNOWN_SECONDS)
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
    except Exception as exc:  # e.g. InsufficientPrivilege: only a superuser may create it
        logger.warning("could not set up pgvector (%s): search runs in keyword mode", exc)
        return False
    caches["process"].delete(f"vector-column:{using}")  # this process's "no" is out of date
    return True


def model_index_name(model: str) -> str:
    """The name of ``model``'s HNSW index: :data:`INDEX_PREFIX` and 16 hex digits of the
    SHA-256 of the model's name (names hold spaces and may be longer than an identifier)."""
    return INDEX_PREFIX + hashlib.sha256(model.encode()).hexdigest()[:16]


def model_index_exists(model: str, *, using: str = "default") -> bool:
    """Whether ``model``'s vectors have their HNSW index (one catalog lookup)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [model_index_name(model)])
        return bool(cursor.fetchone()[0])


# Above this table size (bytes; about 37,000 vectors of 1.7 kB) a search never scans every
# vector: while a model's index is being built, its searches answer in keyword mode instead.
EXACT_SCAN_BYTES = 64 * 1024 * 1024


def model_index_missing(model: str, *, using: str = "default") -> bool:
    """Whether ``model`` has no HNSW index while the table is too large to scan exactly
    (:data:`EXACT_SCAN_BYTES`, the table's live size on disk): a large backlog being embedded
    before its one index build. One catalog query."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT to_regclass(%s) IS NULL AND pg_relation_size(to_regclass(%s)) > %s",
            [model_index_name(model), TABLE, EXACT_SCAN_BYTES],
        )
        return bool(cursor.fetchone()[0])


def model_index_drop(model: str, *, using: str = "default") -> None:
    """Drop ``model``'s HNSW index (before a large backlog is written; rebuilt after)."""
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in model_index_create
        cursor.execute(f"DROP INDEX IF EXISTS {model_index_name(model)}")


def model_index_create(model: str, *, using: str = "default") -> bool:
    """Build ``model``'s partial HNSW index (cosine distance) over its stored vectors, if it
    does not exist. Returns True when this call built it.

    A build takes a SHARE lock on the table: vector writes wait for it, searches do not. Its
    memory is :data:`INDEX_BUILD_MEMORY`; PostgreSQL's parallel maintenance workers help
    (pgvector 0.6 and later). Two processes that build at once: one builds, the other finds
    the index there (a concurrent creation's error is caught and the catalog asked again).
    """
    name = model_index_name(model)
    connection = connections[using]
    try:
        with transaction.atomic(using=using), connection.cursor() as cursor:
            if model_index_exists(model, using=using):
                return False
            # Inside a caller's transaction (tests), deferred foreign-key checks still pending
            # would refuse CREATE INDEX; run them now (the stage commits batch by batch).
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
            # Cosine distance: the models' vectors are L2-normalised, and `<=>` is what we query.
            # The model is a literal (DDL takes no parameters), quoted by the server's rules.
            cursor.execute("SELECT quote_literal(%s)", [model])
            quoted = cursor.fetchone()[0]
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON {TABLE} "
                f"USING hnsw (embedding vector_cosine_ops) WHERE model = {quoted}"
            )
    except DatabaseError:
        if model_index_exists(model, using=using):
            return False  # another process built it meanwhile
        raise
    logger.info("built the HNSW index of %s vectors (%s)", model, name)
    return True


def model_indexes_drop_except(model: str, *, using: str = "default") -> list[str]:
    """Drop the HNSW indexes of every model but ``model`` (after their rows are deleted), and
    the pre-issue-29 index of all models. Returns the names dropped."""
    keep = model_index_name(model)
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname <> %s "
            "AND (indexname LIKE %s OR indexname = %s)",
            [TABLE, keep, INDEX_PREFIX + "%", LEGACY_INDEX],
        )
        names = [row[0] for row in cursor.fetchall()]
        if names:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in model_index_create
        for name in names:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")
    return names
