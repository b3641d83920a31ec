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

from wove.bulk import secondary_indexes_create, secondary_indexes_drop
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


def _indexes_defer(run: HarvestRun) -> None:
    """Save the CREATE INDEX statements of the secondary indexes of :data:`BULK_TABLES` on
    ``run``, then drop those indexes, in one transaction: a kill before the commit drops
    nothing, one after leaves the statements for :func:`paper_indexes_restore`."""
    with transaction.atomic(), connection.cursor() as cursor:
        # The statements saved with the drops: both in this one transaction.
        run.deferred_indexes = secondary_indexes_drop(cursor, [model._meta.db_table for model in BULK_TABLES])
        run.save(update_fields=["deferred_indexes"])


def _indexes_rebuild(runs: Iterable[HarvestRun]) -> int:
    """Create the indexes saved on ``runs`` that do not exist, clear the runs' lists, in one
    transaction (a kill keeps the lists for the next attempt). Returns how many statements
    were run."""
    done = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for run in runs:
            done += secondary_indexes_create(cursor, run.deferred_indexes)
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
