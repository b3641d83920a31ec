"""Each read replica's health, per process: is it a standby of this primary, how far behind,
and a watchdog that ends a replica query which hangs (issue 30; routing: wove/replicas.py).

Lag is measured by the primary's WAL position, not by commit times: at every check this
process records ``(time, pg_current_wal_lsn())`` on the primary, and a replica's lag is how
long ago the primary stood where the replica's replay stands now
(``pg_last_wal_replay_lsn()``), found between two recorded positions. A replica that has
replayed the primary's current position is 0 s behind, an idle primary makes no lag, and a
long transaction that writes WAL without committing does not either (its WAL is replayed as
it comes). All the times are this process's own clock. PostgreSQL manual, "System
Administration Functions" (``pg_current_wal_lsn``, ``pg_last_wal_replay_lsn``) and "Hot
Standby".
"""

from __future__ import annotations

import os
import socket
import threading
import time
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

# The primary's positions this process has seen: (time.monotonic(), LSN as an integer).
_positions: deque[tuple[float, int]] = deque(maxlen=512)
_positions_lock = threading.Lock()

_PRIMARY_SQL = (
    "SELECT pg_current_wal_lsn()::text, (SELECT system_identifier FROM pg_control_system()), "
    "current_database(), pg_postmaster_start_time()"
)
_REPLICA_SQL = (
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
    "EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8, "
    "(SELECT system_identifier FROM pg_control_system()), current_database(), pg_postmaster_start_time()"
)


def lsn(text: str) -> int:
    """A PostgreSQL LSN (``"16/B374D848"``) as an integer byte position."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


@dataclass
class ReplicaHealth:
    """One replica as its latest check saw it.

    ``lag`` is in seconds behind the primary (0.0 when it has replayed the primary's WAL
    position), ``None`` when unknown (the replica or the primary did not answer). ``usable``
    means reads may go there. ``checked_at`` is ``time.monotonic()`` at the check; ``error``
    says why it is not usable, or what is odd about it.
    """

    alias: str
    usable: bool
    lag: float | None
    error: str = ""
    checked_at: float = 0.0
    host: str = ""


def host_of(alias: str) -> str:
    """``host:port`` of a database alias, for people (a socket directory as it is given)."""
    config = settings.DATABASES[alias]
    return f"{config.get('HOST') or 'localhost'}:{config.get('PORT') or 5432}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def unusable(alias: str, error: str) -> ReplicaHealth:
    now = time.monotonic()
    return ReplicaHealth(alias, usable=False, lag=None, error=error, checked_at=now, host=host_of(alias))


def lag_behind(replayed: int, now: float) -> float | None:
    """Seconds since the primary stood at WAL position ``replayed``, from the positions this
    process recorded (interpolated between the two around it); 0.0 when ``replayed`` is the
    newest; ``None`` when it is older than every position recorded."""
    with _positions_lock:
        positions = list(_positions)
    if not positions or replayed >= positions[-1][1]:
        return 0.0
    index = bisect_right([position for _, position in positions], replayed)
    if index == 0:
        return None
    (t0, p0), (t1, p1) = positions[index - 1], positions[index]
    reached = t0 + (t1 - t0) * (replayed - p0) / (p1 - p0) if p1 > p0 else t0
    return max(now - reached, 0.0)


def _primary_facts() -> tuple | None:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute(_PRIMARY_SQL)
            position, *identity = cursor.fetchone()
    except DatabaseError:
        return None
    now = time.monotonic()
    with _positions_lock:
        if not _positions or lsn(position) >= _positions[-1][1]:
            _positions.append((now, lsn(position)))
    return now, tuple(identity)


def check_replica(alias: str) -> ReplicaHealth:
    """Measure ``alias`` now and return its :class:`ReplicaHealth`.

    Not usable: it does not answer (within ``DATABASE_REPLICA_QUERY_TIMEOUT`` once
    connected), it is not a standby of this primary (another cluster, another database, or a
    promoted standby: same system identifier but out of recovery on another server), or it
    is more than ``DATABASE_REPLICA_MAX_LAG`` seconds behind. While the primary does not
    answer, a standby of it stays usable with its lag unknown (stale reads beat a 503).
    Never raises.
    """
    max_lag = float(settings.DATABASE_REPLICA_MAX_LAG)
    primary = _primary_facts()
    health = unusable(alias, "")
    try:
        connection = connections[alias]
        connect_checked(connection)
        with connection.cursor() as cursor:
            cursor.execute(_REPLICA_SQL)
            in_recovery, replayed, since_commit, *identity = cursor.fetchone()
    except DatabaseError as exc:
        connections[alias].close()
        health.error = f"unreachable: {first_line(exc)}"
        return health
    if primary is None:
        health.usable, health.error = bool(in_recovery), "primary unreachable: lag unknown"
        return health
    now, primary_identity = primary
    system, database, started = identity
    if (system, database) != primary_identity[:2]:
        health.error = "not a standby of this primary (another cluster or database)"
    elif not in_recovery:
        if started == primary_identity[2]:
            health.lag, health.usable = 0.0, True  # the primary itself
        else:
            health.error = "out of recovery on another server: a promoted standby"
    else:
        health.lag = lag_behind(lsn(replayed), now) if replayed else None
        if health.lag is None and since_commit is not None:
            # Behind every position this process has seen (its first check): the age of the
            # last transaction the replica replayed, an over-estimate while the primary idles.
            health.lag = max(since_commit, 0.0)
        if health.lag is None:
            health.error = "no transaction replayed yet"
        elif health.lag > max_lag:
            health.error = f"{health.lag:.1f} s behind (DATABASE_REPLICA_MAX_LAG {max_lag:g} s)"
        else:
            health.usable = True
    return health


# --- the watchdog -------------------------------------------------------------------------


class _Watchdog:
    """Shuts down the socket of a replica connection whose query runs past its deadline.

    A replica whose host still accepts TCP but whose server does not answer (stopped,
    swapping, a kernel stall) would hold the query, and the gunicorn thread, for ever: the
    kernel acknowledges the bytes, so neither ``connect_timeout`` (new connections only) nor
    TCP keepalives notice. Shutting the socket down makes the waiting libpq call fail at
    once; Django then flags the connection and the request is answered from the primary.
    One thread per process, woken every 0.1 s.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deadlines: dict[int, tuple[float, Any]] = {}
        self._next = 0
        self._thread: threading.Thread | None = None

    def watch(self, raw: Any, seconds: float) -> int:
        with self._lock:
            self._next += 1
            self._deadlines[self._next] = (time.monotonic() + seconds, raw)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="wove-replica-watchdog", daemon=True)
                self._thread.start()
            return self._next

    def unwatch(self, token: int) -> None:
        with self._lock:
            self._deadlines.pop(token, None)

    def _run(self) -> None:
        while True:
            time.sleep(0.1)
            now = time.monotonic()
            with self._lock:
                items = self._deadlines.items()
                expired = [(token, raw) for token, (deadline, raw) in items if deadline <= now]
                for token, _raw in expired:
                    del self._deadlines[token]
            for _token, raw in expired:
                cut(raw)


_watchdog = _Watchdog()


def cut(raw: Any) -> None:
    """Shut down the socket under a psycopg connection (both ways); the fd stays its own."""
    try:
        fd = os.dup(raw.pgconn.socket)
    except Exception:  # noqa: BLE001 - closed or never connected: nothing to cut
        return
    with socket.socket(fileno=fd) as sock, suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


@contextmanager
def watched(raw: Any) -> Iterator[None]:
    """Run the block with ``raw`` (a psycopg connection, or ``None``: nothing to watch) cut
    if the block outlasts ``DATABASE_REPLICA_QUERY_TIMEOUT`` seconds."""
    if raw is None:
        yield
        return
    token = _watchdog.watch(raw, float(settings.DATABASE_REPLICA_QUERY_TIMEOUT))
    try:
        yield
    finally:
        _watchdog.unwatch(token)


def connect_checked(connection) -> None:
    """Django's health check of ``connection`` (a replica's ``DatabaseWrapper``) under the
    watchdog, then a connection if it has none: raises ``DatabaseError`` when the replica
    does not answer. Done before a request's first replica query, so that a replica gone
    since its last check is left out rather than failing the request."""
    with watched(connection.connection):
        connection.close_if_health_check_failed()
    connection.ensure_connection()


def deadline_wrapper(execute, sql, params, many, context):
    """A Django execute wrapper for replica connections: every query under :func:`watched`."""
    with watched(context["connection"].connection):
        return execute(sql, params, many, context)
