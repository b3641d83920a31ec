"""Bulk loads: dropping a load's secondary indexes, restoring them, and the bulk-load lock.

A bulk load drops the secondary indexes of papers, author slots and versions, writes its pages,
and rebuilds the indexes once at its end; the statements are saved on its run first, so what a
killed load left dropped is rebuilt by the next harvest (:func:`paper_indexes_restore`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.db import DatabaseError, connection, transaction

from wove.locks import advisory_lock

from .models import HarvestRun, Paper, PaperAuthor, PaperVersion

logger = logging.getLogger(__name__)

# The session advisory lock (wove.locks) one bulk load at a time holds.
BULK_LOCK = "papers.bulk_load"


class HarvestBusy(Exception):
    """Another OAI-PMH harvest of the same metadataPrefix and set, or another bulk load, is
    running right now."""


# Tables whose secondary indexes a bulk load drops and rebuilds. Unique indexes and primary
# keys stay: the upserts' ON CONFLICT needs them, and they keep the rows unique throughout.
BULK_TABLES = (Paper, PaperAuthor, PaperVersion)
_BULK_INDEXES_SQL = """
    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
    WHERE i.indrelid = %s::regclass AND NOT i.indisunique AND NOT i.indisprimary
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY i.indexrelid
"""
# Index builds sort in memory up to this much (PostgreSQL's default is 64MB).
BULK_MAINTENANCE_WORK_MEM = "256MB"


def _indexes_defer(run: HarvestRun) -> None:
    """Save the CREATE INDEX statements of the secondary indexes of :data:`BULK_TABLES` on
    ``run``, then drop those indexes, in one transaction: a kill before the commit drops
    nothing, one after leaves the statements for :func:`paper_indexes_restore`."""
    with transaction.atomic(), connection.cursor() as cursor:
        # Inside a caller's transaction (tests), deferred foreign-key checks still pending
        # would refuse DROP/CREATE INDEX; run them now. A harvest commits page by page, so
        # there are none there.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        statements = []
        for model in BULK_TABLES:
            cursor.execute(_BULK_INDEXES_SQL, [model._meta.db_table])
            statements += [row[0] for row in cursor.fetchall()]
        run.deferred_indexes = statements
        run.save(update_fields=["deferred_indexes"])
        for statement in statements:
            name = statement.split(" ON ", 1)[0].rsplit(" ", 1)[1]
            cursor.execute(f"DROP INDEX IF EXISTS {name}")


def _indexes_rebuild(runs: Iterable[HarvestRun]) -> int:
    """Create the indexes saved on ``runs`` that do not exist, clear the runs' lists, in one
    transaction (a kill keeps the lists for the next attempt). Returns how many statements
    were run."""
    done = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in _indexes_defer
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{BULK_MAINTENANCE_WORK_MEM}'")
        for run in runs:
            for statement in run.deferred_indexes:
                if not statement.startswith("CREATE INDEX "):
                    raise ValueError(f"not a CREATE INDEX statement: {statement[:80]!r}")
                cursor.execute("CREATE INDEX IF NOT EXISTS " + statement.removeprefix("CREATE INDEX "))
                done += 1
            run.deferred_indexes = []
            run.save(update_fields=["deferred_indexes"])
    return done


def paper_indexes_restore() -> int:
    """Rebuild the indexes a killed or failed bulk load left dropped (their statements are
    kept on its :class:`HarvestRun`). Does nothing while a bulk load is running (it holds
    a session advisory lock that the server frees when its process dies). Called at the
    start of every harvest. Returns the number of CREATE INDEX statements run."""
    pending = HarvestRun.objects.exclude(deferred_indexes=[])
    if not pending.exists():
        return 0
    with advisory_lock(BULK_LOCK) as held:
        if not held:
            return 0
        done = _indexes_rebuild(pending)
    if done:
        logger.warning("rebuilt %s indexes an interrupted bulk load had dropped", done)
    return done


@contextmanager
def bulk_load(run: HarvestRun) -> Iterator[None]:
    """The set-up of a bulk load around its pages: hold the bulk-load lock, drop the
    secondary indexes (:func:`_indexes_defer`), commit without waiting for the WAL flush,
    and at the end (also after an error) rebuild the indexes in one pass each. The lock is
    :data:`BULK_LOCK` through :func:`wove.locks.advisory_lock`: released when the block ends,
    and by the server with the session if the connection is lost.

    ``synchronous_commit = off`` loses nothing a harvest relies on: a killed harvester's
    commits are on the server already; a crash of PostgreSQL itself can lose the last
    fraction of a second of commits, each page's rows together with its run counters, and
    re-running the load writes them again (upserts). Raises :class:`HarvestBusy` when
    another bulk load holds the lock."""
    with advisory_lock(BULK_LOCK) as held:
        if not held:
            raise HarvestBusy("another bulk load is running")
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET synchronous_commit = off")
            _indexes_defer(run)
            try:
                yield
            finally:
                try:
                    _indexes_rebuild([run])
                except DatabaseError:
                    logger.exception("bulk load: index rebuild failed; the next harvest retries it")
        finally:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("RESET synchronous_commit")
            except DatabaseError:
                pass
