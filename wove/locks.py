"""PostgreSQL advisory locks: the one helper every app takes them through (issue 17).

Three forms. Two keyed ``(LOCK_NAMESPACE, lock_key(name))``: :func:`advisory_lock`, a
session-level lock tried without waiting and released when its block ends (a harvest, a bulk
load, a pipeline stage: work that commits many times), and :func:`advisory_xact_lock`, a
transaction-level lock waited for and released by the COMMIT or ROLLBACK (work done in one
transaction that must not interleave with itself, such as attaching authorships).
See https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import DatabaseError, connection
from django.db.transaction import TransactionManagementError

# The first key of every lock taken here (PostgreSQL's two-int advisory lock form), so they
# never collide with the single-bigint locks other code takes.
LOCK_NAMESPACE = 730_304


def lock_key(name: str) -> int:
    """The second advisory-lock key for ``name``: its CRC-32 folded into a signed int4."""
    value = zlib.crc32(name.encode())
    return value - (1 << 32) if value >= 1 << 31 else value


@contextmanager
def advisory_lock(name: str) -> Iterator[bool]:
    """Try to take the session-level advisory lock ``(LOCK_NAMESPACE, lock_key(name))``.

    Yields True when this session holds it (released when the block ends, and by PostgreSQL
    if the process dies), False when another session does (nothing is waited for).
    See https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS.
    """
    key = lock_key(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_NAMESPACE, key])
        held = bool(cursor.fetchone()[0])
    try:
        yield held
    finally:
        if held:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, key])
            except DatabaseError:
                # Closing the session is what releases its locks (if PostgreSQL has not already).
                connection.close()


def advisory_xact_lock(name: str) -> None:
    """Wait for the transaction-level advisory lock ``(LOCK_NAMESPACE, lock_key(name))``.

    Held until the current transaction ends (COMMIT or ROLLBACK), so it must be called
    inside ``transaction.atomic()``; raises ``django.db.transaction.TransactionManagementError``
    outside one (an autocommit statement would release it at once).
    """
    if not connection.in_atomic_block:
        raise TransactionManagementError(f"advisory_xact_lock({name!r}) needs a transaction")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, lock_key(name)])


_ROWS_WAIT_SQL = (
    "SELECT pg_advisory_xact_lock(%s, (id %% 2147483647)::int) FROM unnest(%s::bigint[]) AS id ORDER BY id"
)
_ROWS_TRY_SQL = (
    "SELECT id FROM unnest(%s::bigint[]) AS id"
    " WHERE pg_try_advisory_xact_lock(%s, (id %% 2147483647)::int) ORDER BY id"
)


def advisory_xact_locks(name: str, ids: Sequence[int], *, wait: bool) -> list[int]:
    """Take the transaction-level advisory lock ``(lock_key(name), id mod 2**31-1)`` of each
    of ``ids`` in one statement, in id order (two lockers cannot deadlock). ``wait=False``
    skips the ids another transaction holds. Returns the ids locked (ascending when not
    waiting, else ``ids`` as given). Call inside ``transaction.atomic()``; raises
    ``TransactionManagementError`` outside one."""
    if not connection.in_atomic_block:
        raise TransactionManagementError(f"advisory_xact_locks({name!r}) needs a transaction")
    with connection.cursor() as cursor:
        if wait:
            cursor.execute(_ROWS_WAIT_SQL, [lock_key(name), list(ids)])
            return list(ids)
        cursor.execute(_ROWS_TRY_SQL, [list(ids), lock_key(name)])
        return [row[0] for row in cursor.fetchall()]


def lock_held_elsewhere(name: str) -> bool:
    """Whether some session (other than this one) holds ``advisory_lock(name)`` right now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = %s::int::oid AND objid = (%s::int::bigint & 4294967295)::oid"
            " AND objsubid = 2 AND pid <> pg_backend_pid())",
            [LOCK_NAMESPACE, lock_key(name)],
        )
        return bool(cursor.fetchone()[0])
