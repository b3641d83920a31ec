"""Servers for tests that need real HTTP: gunicorn serving the app in a subprocess."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests import celery_helpers


def free_port() -> int:
    """A TCP port on 127.0.0.1 free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM ``proc``, and SIGKILL it if it has not ended within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class Served(str):
    """The base URL of a server under test; ``log_path`` is the file its output goes to."""

    log_path: str


@contextmanager
def gunicorn(
    database_url: str,
    *,
    workers: int = 1,
    threads: int = 4,
    extra_env: dict[str, str] | None = None,
    config: bool = False,
) -> Iterator[str]:
    """gunicorn (DEBUG off, a real SECRET_KEY, rate limiting off, plain static storage)
    against ``database_url`` on a free 127.0.0.1 port; yields its base URL (a :class:`Served`). Its log is
    printed when it stops (pytest shows it for a failing test). ``config`` adds the Procfile's
    ``--config python:wove.gunicorn_conf`` (its limits and per-worker warm-up)."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SECRET_KEY": "gunicorn-under-test-" + "x" * 40,
        "DEBUG": "0",
        "SECURE_COOKIES": "0",
        "RATELIMIT_ENABLED": "0",
        "WOVE_TESTING": "1",  # plain static storage: no collectstatic manifest needed
        "DJANGO_SETTINGS_MODULE": "wove.settings",
        **(extra_env or {}),
    }
    env.pop("WOVE_LOCAL", None)
    log = tempfile.NamedTemporaryFile(prefix="gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(  # noqa: S603 - fixed argv
        [
            sys.executable,
            "-m",
            "gunicorn",
            "wove.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            *(["--config", "python:wove.gunicorn_conf"] if config else []),
        ],
        cwd=celery_helpers.ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/robots.txt", timeout=5)
                break
            except httpx.TransportError:
                assert proc.poll() is None, Path(log.name).read_text()[-3000:]
                time.sleep(0.2)
        served = Served(base)
        served.log_path = log.name
        yield served
    finally:
        stop_process(proc)
        print(Path(log.name).read_text()[-4000:])
        os.unlink(log.name)


class ThrowawayCluster:
    """A PostgreSQL cluster in a temporary directory on 127.0.0.1:``port`` (trust auth,
    fsync off), run as the ``postgres`` system user when the tests run as root."""

    def __init__(self, bindir: Path, root: Path):
        self.bindir, self.data, self.port = bindir, root / "data", free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(root, "postgres")

    def _run(self, *argv: str) -> None:
        subprocess.run([*self.as_user, *argv], check=True, capture_output=True, timeout=60)  # noqa: S603

    def init(self) -> None:
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-l",
            str(self.data.parent / "log"),
            "start",
        )

    def clone_standby_of(self, primary: ThrowawayCluster) -> None:
        """Make this cluster's data directory a hot standby streaming from ``primary``:
        ``pg_basebackup -R`` writes ``standby.signal`` and ``primary_conninfo`` (PostgreSQL
        manual, "pg_basebackup"); :meth:`start` then starts it replaying."""
        self._run(
            str(self.bindir / "pg_basebackup"),
            *("-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"),
            *("-D", str(self.data), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"),
        )

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def createdb(self, name: str) -> None:
        """An empty database ``name`` in this (started) cluster."""
        argv = [str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        argv.append(name)
        subprocess.run(argv, check=True, timeout=60)  # noqa: S603

    def kill(self) -> None:
        """Stop at once (``-m immediate``), whether or not it runs: for a test's cleanup."""
        argv = [*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
        subprocess.run(argv, capture_output=True, timeout=60)  # noqa: S603

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"


# A caching proxy that trusts the origin as a CDN does: every GET and HEAD is looked up, with
# or without cookies, so users are kept apart only by the answers' Cache-Control ("private")
# and Vary: Cookie. Varnish's built-in rules still apply to the answers (Set-Cookie, private,
# no-store: not cached).
VARNISH_VCL = """vcl 4.1;
backend default {{ .host = "127.0.0.1"; .port = "{port}"; }}
sub vcl_recv {{
    if (req.method != "GET" && req.method != "HEAD") {{ return (pass); }}
    return (hash);
}}
"""


@contextmanager
def varnish(backend: str) -> Iterator[str]:
    """Debian's Varnish (``varnishd``) on a free 127.0.0.1 port in front of ``backend`` (a
    base URL), with :data:`VARNISH_VCL` and no grace beyond an answer's own
    ``stale-while-revalidate``; yields its base URL. Skips the test without ``varnishd``."""
    import pytest

    binary = shutil.which("varnishd") or (
        "/usr/sbin/varnishd" if Path("/usr/sbin/varnishd").exists() else None
    )
    if binary is None:
        pytest.skip("no varnishd (Debian package varnish); .ci/run installs it")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="wove-varnish-") as tmp:
        vcl = Path(tmp) / "wove.vcl"
        vcl.write_text(VARNISH_VCL.format(port=backend.rsplit(":", 1)[1]))
        Path(tmp).chmod(0o755)  # varnishd's child runs as its own user and reads the VCL
        log = Path(tmp) / "varnishd.log"
        argv = [binary, "-F", "-f", str(vcl), "-a", f"127.0.0.1:{port}", "-n", str(Path(tmp) / "work")]
        argv += ["-s", "malloc,32m", "-p", "default_grace=0", "-p", "default_ttl=0"]
        with log.open("wb") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603 - fixed argv
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(base + "/robots.txt", timeout=5)
                    break
                except httpx.TransportError:
                    assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                    time.sleep(0.2)
            yield base
        finally:
            stop_process(proc)
