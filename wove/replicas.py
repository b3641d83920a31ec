"""Read replicas: page, feed and API reads go to PostgreSQL streaming replicas (issue 30).

Settings (environment, README "Read replicas"):

* ``DATABASE_REPLICA_URLS``: comma-separated ``postgres://`` URLs of hot standbys of the
  primary (``DATABASE_URL``), made by ``pg_basebackup -R`` or any streaming replication. Each
  becomes a Django database alias ``replica_1``, ``replica_2``, ... (:func:`replica_databases`).
* ``DATABASE_REPLICA_MAX_LAG``: seconds a replica may be behind the primary and still serve
  reads (default 10).
* ``DATABASE_REPLICA_CHECK_INTERVAL``: seconds between two checks of a replica's lag by one
  process (default 5).
* ``DATABASE_READ_YOUR_WRITES``: seconds a client's reads stay on the primary after it wrote
  (default: the largest lag plus one check interval, 15).
* ``DATABASE_REPLICA_QUERY_TIMEOUT``: seconds a replica query may run before a watchdog cuts
  it (default 5; :mod:`wove.replica_health`).

Who reads where:

* Only requests read from replicas: :class:`ReplicaReadsMiddleware` opens the door for one
  request at a time. Celery tasks and management commands read from the primary, unless a
  task says otherwise with :func:`reads_from_replicas`.
* Every write goes to the primary, and so does every read inside a transaction on it, every
  read of the session table (a sign-in must hold on the next request), every read of the
  editors' tools and account pages (``/admin/``, ``/cms/``, ``/accounts/``) and every read
  of a signed-in client that wrote in the last ``DATABASE_READ_YOUR_WRITES`` seconds (a
  cookie, ``wove_primary``, set on the answer to its POST, PUT, PATCH or DELETE).
* One request reads from one replica (chosen at random among the usable ones), so a page
  never mixes two replicas' moments.
* A replica is usable when it answers, is a standby of this primary, and is at most
  ``DATABASE_REPLICA_MAX_LAG`` seconds behind (measured by WAL positions:
  :mod:`wove.replica_health`). When none is, reads go to the primary.
* A replica that fails while a request reads from it (stopped, restarted, cut off): the
  request is answered again from the primary, so no request fails because a replica went
  away. A replica found not usable is left out and checked again off the request path, by a
  thread of the process, every check interval until it is usable: a replica whose host
  accepts TCP but does not answer costs one request the query timeout, not every request a
  connect timeout.

This is Django's own multi-database routing (``DATABASE_ROUTERS``; Django docs, "Multiple
databases", "Automatic database routing"), with nothing but a lag check added.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from . import replica_health
from .replica_health import ReplicaHealth, connect_checked, deadline_wrapper, first_line, unusable

logger = logging.getLogger(__name__)

REPLICA_PREFIX = "replica_"
# Models read from the primary always: the session a sign-in just wrote must be found on the
# very next request, whatever the replicas' lag.
PRIMARY_ONLY_APPS = frozenset({"sessions"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PRIMARY_COOKIE = "wove_primary"
# Editors' tools read from the primary: a curation queue or an admin form must show the
# decision just made by anyone, and mixing its own primary reads with replica reads (a
# cached queue keyed by the primary's version, records read from a replica) goes wrong.
# So do the account pages: an e-mailed confirmation or password link is opened in another
# browser, without the writer's cookie, seconds after the account was made.
PRIMARY_PATHS = ("/admin/", "/cms/", "/accounts/")


def seconds_setting(name: str, text: str, *, minimum: float = 0.0) -> float:
    """The environment variable ``name`` (its value ``text``) as a finite number of seconds
    at least ``minimum``; ``ImproperlyConfigured`` naming the variable otherwise."""
    import math

    from django.core.exceptions import ImproperlyConfigured

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum:
        raise ImproperlyConfigured(f"{name}={text!r}: expected a number of seconds of at least {minimum:g}")
    return value


def replica_databases(urls: list[str], *, connect_timeout: int = 2) -> dict[str, dict]:
    """``DATABASES`` entries for the replica URLs: ``{"replica_1": {...}, ...}`` in order.

    Each is a PostgreSQL alias with persistent, health-checked connections, a short
    ``connect_timeout`` (seconds; how long a check of a replica that does not answer waits,
    not the primary's 5 s) and ``TEST.MIRROR`` on the default
    database (tests run against one database). Raises ``ImproperlyConfigured`` for a URL
    that is not PostgreSQL.
    """
    import dj_database_url
    from django.core.exceptions import ImproperlyConfigured

    databases = {}
    for number, url in enumerate(urls, start=1):
        try:
            config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
        except (ValueError, KeyError) as exc:
            message = f"DATABASE_REPLICA_URLS: replica {number} is not a database URL ({exc})"
            raise ImproperlyConfigured(message) from exc
        if not config["ENGINE"].endswith("postgresql"):
            raise ImproperlyConfigured(f"DATABASE_REPLICA_URLS: replica {number} is not a postgres:// URL")
        options = config.setdefault("OPTIONS", {})
        if not config["HOST"] and options.get("host"):
            config["HOST"] = options.pop("host")  # a socket directory (?host=), as DATABASE_URL's
        options.setdefault("connect_timeout", connect_timeout)
        config["TEST"] = {"MIRROR": DEFAULT_DB_ALIAS}
        databases[f"{REPLICA_PREFIX}{number}"] = config
    return databases


def replica_aliases() -> list[str]:
    """The configured replicas' database aliases, ``["replica_1", ...]``; empty without any."""
    return [alias for alias in settings.DATABASES if alias.startswith(REPLICA_PREFIX)]


@receiver(connection_created)
def _watch_replica_queries(sender, connection, **kwargs) -> None:
    """Every query on a replica connection runs under the watchdog
    (:func:`wove.replica_health.watched`): a replica that stops answering fails the query
    after ``DATABASE_REPLICA_QUERY_TIMEOUT`` seconds instead of holding the thread."""
    if connection.alias.startswith(REPLICA_PREFIX) and deadline_wrapper not in connection.execute_wrappers:
        connection.execute_wrappers.append(deadline_wrapper)


# --- the replicas' health, per process (wove/replica_health.py measures it) -----------------

_health: dict[str, ReplicaHealth] = {}
_health_lock = threading.Lock()


def check_replica(alias: str) -> ReplicaHealth:
    """Measure ``alias`` now (:func:`wove.replica_health.check_replica`) and keep the result
    for this process's routing."""
    health = replica_health.check_replica(alias)
    with _health_lock:
        _health[alias] = health
    return health


def mark_failed(alias: str, error: str) -> None:
    """Leave ``alias`` out of reads until a check finds it usable again (it failed under a
    request); the checks go on off the request path (:func:`_recheck_in_background`)."""
    with _health_lock:
        _health[alias] = unusable(alias, error)
    _recheck_in_background()


def _checked(alias: str) -> ReplicaHealth:
    """``alias``'s health for routing: checked now when it is a usable replica's and older
    than the check interval (a cheap query on an open connection), or the first in this
    process. A replica not usable is never checked here: a request would wait for its
    connect timeout (2 s) once per check interval, whatever the visitor asked for."""
    health = _health.get(alias)
    interval = float(settings.DATABASE_REPLICA_CHECK_INTERVAL)
    if health is None or (health.usable and time.monotonic() - health.checked_at >= interval):
        health = check_replica(alias)
    if not health.usable:
        _recheck_in_background()
    return health


_recheck_thread: threading.Thread | None = None


def _recheck_in_background() -> None:
    """Start this process's re-checking thread unless it runs (one per process; a forked
    gunicorn worker starts its own, as threads do not survive ``fork``)."""
    global _recheck_thread
    with _health_lock:
        if _recheck_thread is not None and _recheck_thread.is_alive():
            return
        _recheck_thread = threading.Thread(target=_recheck_unusable, name="wove-replica-recheck", daemon=True)
        _recheck_thread.start()


def _recheck_unusable() -> None:
    """Check every replica not usable once per check interval until all are usable, then
    end; its own database connections (Django's are per thread) are closed as it ends."""
    global _recheck_thread
    try:
        while True:
            time.sleep(float(settings.DATABASE_REPLICA_CHECK_INTERVAL))
            with _health_lock:
                down = [alias for alias, health in _health.items() if not health.usable]
                if not down:
                    # Under the lock: a replica failing from now on starts a new thread.
                    _recheck_thread = None
                    return
            for alias in down:
                try:
                    check_replica(alias)
                except Exception:  # check_replica does not raise; a bug must not end the checks
                    logger.exception("checking replica %s failed", alias)
    finally:
        connections.close_all()


def describe_replica(health: ReplicaHealth) -> str:
    """One line for people: ``"lag 0.0 s, serving reads"`` or ``"not serving reads: 42.0 s behind (...)"``."""
    lag = "lag unknown" if health.lag is None else f"lag {health.lag:.1f} s"
    if health.usable:
        return f"{lag}, serving reads" + (f" ({health.error})" if health.error else "")
    return f"{lag}, not serving reads: {health.error}"


def replica_status(*, refresh: bool = True) -> list[ReplicaHealth]:
    """Every configured replica's :class:`ReplicaHealth`, checked now when ``refresh`` (for
    ``pipeline_status`` and the admin's pipeline page); empty without replicas."""
    return [check_replica(alias) if refresh else _checked(alias) for alias in replica_aliases()]


# --- routing -----------------------------------------------------------------------------


@dataclass
class _Reads:
    """Where the current request (or opted-in task) reads: ``alias`` once chosen."""

    alias: str | None = None


_reads: ContextVar[_Reads | None] = ContextVar("wove_replica_reads", default=None)


def _choose() -> str:
    usable = [alias for alias in replica_aliases() if _checked(alias).usable]
    random.shuffle(usable)
    for alias in usable:
        connection = connections[alias]
        try:
            connect_checked(connection)
        except DatabaseError as exc:
            connection.close()
            mark_failed(alias, f"unreachable: {first_line(exc)}")
            continue
        return alias
    return DEFAULT_DB_ALIAS


def read_alias(model=None) -> str:
    """The database alias a read should use now: a usable replica inside a request (or a
    :func:`reads_from_replicas` block), else ``"default"``. For raw SQL on a page's path:
    ``connections[read_alias()].cursor()``."""
    reads = _reads.get()
    if reads is None:
        return DEFAULT_DB_ALIAS
    if model is not None and model._meta.app_label in PRIMARY_ONLY_APPS:
        return DEFAULT_DB_ALIAS
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        # Inside a transaction on the primary the code may read what it just wrote.
        return DEFAULT_DB_ALIAS
    if reads.alias is None:
        reads.alias = _choose()
    return reads.alias


@contextmanager
def reads_from_replicas() -> Iterator[None]:
    """Let the reads inside the block go to a usable replica (a Celery task that only reads
    and can take ``DATABASE_REPLICA_MAX_LAG`` seconds of staleness opts in with this)."""
    token = _reads.set(_Reads())
    try:
        yield
    finally:
        _reads.reset(token)


class ReplicaRouter:
    """Django database router (``DATABASE_ROUTERS``): reads by :func:`read_alias`, every
    write and migration on the primary."""

    def db_for_read(self, model, **hints) -> str:
        return read_alias(model)

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # the replicas hold the primary's rows

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints) -> bool:
        return db == DEFAULT_DB_ALIAS


def _pinned_to_primary(request: HttpRequest) -> bool:
    try:
        return float(request.COOKIES.get(PRIMARY_COOKIE, "0")) > time.time()
    except ValueError:
        return False


class ReplicaReadsMiddleware:
    """Send a request's reads to a replica (see the module docstring for who reads where).

    * A GET, HEAD or OPTIONS without a recent write reads from a replica, when one is usable.
    * Requests for the editors' tools (:data:`PRIMARY_PATHS`) read from the primary.
    * After any other method by a signed-in user the answer sets ``wove_primary`` (the time
      until which this client reads from the primary) for ``DATABASE_READ_YOUR_WRITES`` s.
    * When the replica failed under the request (Django flags a connection on which an
      error occurred), the request is answered again from the primary and the replica is
      left out until a check off the request path finds it usable.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            response = self.get_response(request)
            seconds = int(settings.DATABASE_READ_YOUR_WRITES)
            # A signed-in client's writes (a sign-in included); an anonymous POST (a batch
            # lookup in the API, a contact message) changes nothing it reads back.
            user = getattr(request, "user", None)
            if replica_aliases() and seconds > 0 and user is not None and user.is_authenticated:
                response.set_cookie(
                    PRIMARY_COOKIE,
                    f"{time.time() + seconds:.0f}",
                    max_age=seconds,
                    secure=settings.SESSION_COOKIE_SECURE,
                    httponly=True,
                    samesite="Lax",
                )
            return response
        if not replica_aliases() or _pinned_to_primary(request) or request.path.startswith(PRIMARY_PATHS):
            return self.get_response(request)
        reads = _Reads()
        token = _reads.set(reads)
        try:
            response = self.get_response(request)
        finally:
            _reads.reset(token)
        alias = reads.alias
        if alias and alias != DEFAULT_DB_ALIAS and connections[alias].errors_occurred:
            connection = connections[alias]
            raw = connection.connection
            # No health query here: the replica may be the one that stopped answering.
            if raw is None or raw.closed or getattr(raw, "broken", False):
                mark_failed(alias, "failed under a request")
            connection.close()
            logger.warning("replica %s failed under %s; answered from the primary", alias, request.path)
            # The first answer is dropped unsent: closing it would fire request_finished mid-request.
            response = self.get_response(request)
        return response
