"""Bulk upserts through PostgreSQL ``COPY``: the fast path for harvesting and matching.

``bulk_create(update_conflicts=True)`` builds one INSERT with a parameter per value; for
thousands of rows psycopg spends more time splitting that query than PostgreSQL spends
running it. Streaming the rows with ``COPY`` into a staging table and upserting from it
with one ``INSERT ... SELECT ... ON CONFLICT`` is several times faster (see
``bench/harvest_ingest.py``).
"""

from __future__ import annotations

import functools
import gc
import itertools
import operator
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from django.db import IntegrityError, connection, connections, models, transaction
from django.db.models.expressions import RawSQL
from psycopg.errors import UniqueViolation

_counter = itertools.count()
T = TypeVar("T")

# The secondary indexes of a table: neither unique nor a primary key nor a constraint's, so
# that a load may drop them and build each once at its end (upserts' ON CONFLICT keeps
# needing the unique ones, which also keep the rows unique throughout).
_SECONDARY_INDEXES_SQL = """
    SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
    WHERE i.indrelid = %s::regclass AND NOT i.indisunique AND NOT i.indisprimary
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY i.indexrelid
"""
# Index builds sort in memory up to this much (PostgreSQL's default is 64MB).
INDEX_BUILD_WORK_MEM = "256MB"


def secondary_indexes_drop(cursor, tables: Iterable[str]) -> list[str]:
    """Drop the secondary indexes of ``tables`` (table names) on ``cursor``'s connection;
    returns their ``CREATE INDEX`` statements (``pg_get_indexdef``), for
    :func:`secondary_indexes_create`. PostgreSQL's advice for a first load: "Remove Indexes",
    https://www.postgresql.org/docs/15/populate.html#POPULATE-RM-INDEXES."""
    # Inside a caller's transaction (tests), deferred foreign-key checks still pending would
    # refuse DROP/CREATE INDEX: run them now. A load that commits batch by batch has none.
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    statements: list[str] = []
    for table in tables:
        cursor.execute(_SECONDARY_INDEXES_SQL, [table])
        statements += [row[0] for row in cursor.fetchall()]
    for statement in statements:
        name = statement.split(" ON ", 1)[0].rsplit(" ", 1)[1]
        cursor.execute(f"DROP INDEX IF EXISTS {name}")
    return statements


def secondary_indexes_create(cursor, statements: Iterable[str]) -> int:
    """Run the ``CREATE INDEX`` ``statements`` of :func:`secondary_indexes_drop` as ``IF NOT
    EXISTS`` (idempotent), each sorting in :data:`INDEX_BUILD_WORK_MEM` (``SET LOCAL``: the
    caller's transaction). Returns how many ran; raises ``ValueError`` for another statement."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in secondary_indexes_drop
    cursor.execute(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_WORK_MEM}'")
    done = 0
    for statement in statements:
        if not statement.startswith("CREATE INDEX "):
            raise ValueError(f"not a CREATE INDEX statement: {statement[:80]!r}")
        cursor.execute("CREATE INDEX IF NOT EXISTS " + statement.removeprefix("CREATE INDEX "))
        done += 1
    return done


def copy_insert(*, model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence]) -> None:
    """``COPY`` ``rows`` straight into ``model``'s table, for rows whose keys cannot exist yet
    (a new paper's author slots, papers whose ids the caller took from the table's sequence
    under a lock on their natural keys).

    ``fields`` and ``rows`` as for :func:`copy_upsert`. PostgreSQL parses each row once, with
    no staging table, no ``ON CONFLICT`` and no ``RETURNING``: in PostgreSQL's statement log
    of ``bench/harvest_ingest.py``, 10,000 new papers took 1.75 s straight in against 2.0 s
    staged (the search vectors 1.2 s of either). Runs in the caller's transaction; raises
    ``django.db.IntegrityError`` when a key exists after all, and ``django.db.DatabaseError``
    on any other constraint violation.
    """
    meta = model._meta
    quoted = ", ".join(connection.ops.quote_name(meta.get_field(name).column) for name in fields)
    statement = f"COPY {connection.ops.quote_name(meta.db_table)} ({quoted}) FROM STDIN"
    # Django's errors, as its own statements raise (the COPY is the driver's).
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
        for row in rows:
            copy.write_row(row)


def copy_upsert(
    *,
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence],
    conflict_fields: Sequence[str],
    update_fields: Sequence[str],
    returning: Sequence[str] = (),
    new: bool = False,
) -> list[tuple]:
    """Insert ``rows`` into ``model``'s table, updating rows that conflict.

    ``fields`` names model fields (``primary_category`` means its ``_id`` column); each row
    gives their database values in that order (lists for array columns, aware datetimes,
    ``None`` for NULL). Rows must be unique on ``conflict_fields`` (PostgreSQL refuses to
    update one row twice in a statement). Returns the ``returning`` columns of every row
    inserted or updated, in no particular order. Runs in the caller's transaction; raises
    ``django.db.DatabaseError`` on any constraint violation.

    ``new`` (with ``rows`` a sequence and no ``returning``): the caller expects none of the
    keys to exist, so the rows are copied straight into the table, in a savepoint, and go
    through the staging table only when a key does exist after all. Straight in, PostgreSQL
    parses each row once and no temporary table is made and dropped: a first load's
    authorship signing rows, 100,000 papers on one connection, took 4.2 s staged and 2.4 s
    straight.
    """
    meta = model._meta
    table = connection.ops.quote_name(meta.db_table)
    columns = [meta.get_field(name).column for name in fields]
    quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
    if new and not returning:
        rows = rows if isinstance(rows, Sequence) else list(rows)  # read twice on a conflict
        try:
            with transaction.atomic():
                copy_insert(model=model, fields=fields, rows=rows)
            return []
        except IntegrityError as exc:  # a key exists: the savepoint is gone, the upsert runs
            if not isinstance(exc.__cause__, UniqueViolation):
                raise
    stage = connection.ops.quote_name(f"_stage_{meta.db_table}_{next(_counter)}")
    conflict = ", ".join(connection.ops.quote_name(meta.get_field(f).column) for f in conflict_fields)
    updates = ", ".join(
        f"{connection.ops.quote_name(c)} = EXCLUDED.{connection.ops.quote_name(c)}"
        for c in (meta.get_field(f).column for f in update_fields)
    )
    action = f"DO UPDATE SET {updates}" if updates else "DO NOTHING"
    returning_sql = ""
    if returning:
        returning_sql = " RETURNING " + ", ".join(
            connection.ops.quote_name(meta.get_field(f).column) for f in returning
        )
    with connection.cursor() as cursor:
        # A staging table with the target's column types and no constraints.
        cursor.execute(f"CREATE TEMP TABLE {stage} AS SELECT {quoted} FROM {table} WITH NO DATA")  # noqa: S608
        try:
            with cursor.cursor.copy(f"COPY {stage} ({quoted}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            cursor.execute(
                f"INSERT INTO {table} ({quoted}) SELECT {quoted} FROM {stage} "  # noqa: S608
                f"ON CONFLICT ({conflict}) {action}{returning_sql}"
            )
            result = cursor.fetchall() if returning else []
        finally:
            cursor.execute(f"DROP TABLE IF EXISTS {stage}")
    return result


def db_values(instance: models.Model, fields: Sequence[str]) -> tuple:
    """The values of ``fields`` on a model instance, ready for :func:`copy_upsert`.

    Reads attributes as they are (``primary_category`` gives ``primary_category_id``):
    right for text, numbers, booleans, dates, datetimes and arrays of those, which psycopg
    adapts itself. Not for fields whose Python value needs converting (JSONField).
    """
    return _attributes(type(instance), tuple(fields))(instance)


@functools.lru_cache(maxsize=256)
def _attributes(model: type[models.Model], fields: tuple[str, ...]) -> Callable[[models.Model], tuple]:
    """A getter of ``fields``' attributes as a tuple, made once per model and field list: a
    harvest page looked each field up in the model's options for every row (a paper's 36
    fields: 10.6 microseconds a row before, 4.5-4.9 now, with CPU-bound tests beside it)."""
    get = operator.attrgetter(*(model._meta.get_field(name).attname for name in fields))
    return get if len(fields) > 1 else lambda instance: (get(instance),)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Suspend Python's cyclic garbage collector for one bulk step, then restore it.

    A bulk step (a harvest page, a matching chunk, a signing batch) allocates hundreds of
    thousands of tuples, sets and model instances that all stay alive until it ends, so
    every generation-0 collection walks a growing heap for nothing: measured, the matcher
    spent a third of its time in collections (``bench/matching_speed.py``). Reference
    counting still frees everything that is not a cycle; the next collection after the step
    finds any cycles. Nests; re-enables only when it was the one that disabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def int_array(values: Iterable[int]) -> str:
    """A PostgreSQL array literal (``"{1,2,3}"``) for ``%s::bigint[]``.

    psycopg's client-side binding quotes a Python list element by element, which for tens
    of thousands of ids costs more than the query; one string is adapted at once.
    """
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def text_array(values: Iterable[str]) -> str:
    """A PostgreSQL array literal for text (``'{"a b","c\\"d"}'``): every element quoted,
    backslashes and double quotes escaped (PostgreSQL docs, "Array Value Input"). Usable
    as a ``%s::text[]`` parameter or as a ``COPY`` value for an array column."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


_ARRAY_TYPES = frozenset({"bigint", "text"})


def unnested(array: str, element_type: str = "bigint") -> RawSQL:
    """``SELECT unnest(<array>::<element_type>[])``: the right side of an ``__in`` lookup on
    many values, sent as one array literal (:func:`int_array`, :func:`text_array`) rather
    than one bound parameter each (a mega-paper's 3,000 ids as placeholders cost Django and
    psycopg a second to bind, one literal a millisecond). ``array`` is the query's only
    parameter, so a :class:`wove.compiled.CompiledQuery` can take the literal as its value.
    ``element_type`` is ``bigint`` or ``text``; anything else raises ``ValueError``."""
    if element_type not in _ARRAY_TYPES:
        raise ValueError(f"no array of {element_type!r} here")
    return RawSQL(f"SELECT unnest(%s::{element_type}[])", [array])  # noqa: S611 (a type from _ARRAY_TYPES)


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter), read lazily: Python 3.12's
    ``itertools.batched`` on 3.11."""
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def batches_in_threads(function: Callable[[T], int], batches: Iterable[T], *, workers: int) -> int:
    """``sum(function(batch) for batch in batches)``, with up to ``workers`` batches in hand at
    once, each thread on its own database connection (closed when it is done).

    For work that waits on PostgreSQL, one statement at a time per connection: psycopg lets go
    of the GIL while a query runs, so a second connection keeps the second core busy (a first
    load's page summaries, issue 29). ``batches`` is read on the caller's thread, at most
    ``2 * workers`` ahead. Each batch must stand alone (its own statements, committed by
    itself). The first exception a batch raises is raised here, after the other threads stop
    taking batches. ``workers`` 1, or a caller inside a transaction (its uncommitted rows,
    and the locks it holds, would be out of the threads' reach: they would wait on it
    forever), runs every batch on the caller's thread."""
    if workers <= 1 or connection.in_atomic_block:
        return sum(function(batch) for batch in batches)
    todo: queue.Queue = queue.Queue(maxsize=2 * workers)
    done: list[int] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            while (batch := todo.get()) is not _DONE:
                if not failed:
                    done.append(function(batch))
        except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
            failed.append(exc)
            while todo.get() is not _DONE:  # the caller may still be putting batches
                pass
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, name=f"batches-{i}", daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    try:
        for batch in batches:
            if failed:
                break
            todo.put(batch)
    finally:
        for _ in threads:
            todo.put(_DONE)
        for thread in threads:
            thread.join()
    if failed:
        raise failed[0]
    return sum(done)


_DONE = object()
