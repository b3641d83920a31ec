"""A streaming read replica of the machine's PostgreSQL for ``bench/pages_load.py --replica``.

Usage::

    .venv/bin/python bench/replica_standby.py start [--port 5433] [--dir /var/tmp/wove-standby]
    .venv/bin/python bench/pages_load.py --db wove_s100k --replica 'postgresql://postgres@127.0.0.1:5433/{db}'
    .venv/bin/python bench/replica_standby.py stop [--dir /var/tmp/wove-standby]

``start`` clones the server on 127.0.0.1:5432 with ``pg_basebackup -R -X stream`` (PostgreSQL
manual, "pg_basebackup"; the same major version's binaries from /usr/lib/postgresql) into
``--dir`` and starts it as a hot standby on ``--port``, run as the ``postgres`` user. Debian
keeps the configuration outside the data directory, so the standby gets a small
``postgresql.conf`` and ``pg_hba.conf`` of its own (trust on 127.0.0.1, the primary's
``shared_buffers``). The primary must allow replication connections from 127.0.0.1: a line
``host replication all 127.0.0.1/32 trust`` in its ``pg_hba.conf`` and a reload; ``start``
says so when it is missing. Both clusters share the machine's cores: a figure measured so is
what one host does, not what a second host would add (BENCHMARKS.md, "Read replicas").
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

import psycopg

PRIMARY = "postgresql://postgres@127.0.0.1:5432/postgres"


def _as_postgres(argv: list[str]) -> subprocess.CompletedProcess:
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=3600)  # noqa: S603


def start(port: int, directory: Path) -> None:
    with psycopg.connect(PRIMARY) as conn:
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
        shared_buffers = conn.execute("SHOW shared_buffers").fetchone()[0]
    bindir = Path(f"/usr/lib/postgresql/{major}/bin")
    if directory.exists():
        raise SystemExit(f"{directory} exists: stop the old standby first")
    directory.parent.mkdir(parents=True, exist_ok=True)
    backup = _as_postgres(
        [str(bindir / "pg_basebackup"), "-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
        + ["-D", str(directory), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"]
    )
    if backup.returncode:
        raise SystemExit(
            f"pg_basebackup failed: {backup.stderr.strip()}\nIf it is refused, add "
            "'host replication all 127.0.0.1/32 trust' to the primary's pg_hba.conf and reload it."
        )
    (directory / "postgresql.conf").write_text(
        f"port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n"
        f"hot_standby = on\nshared_buffers = '{shared_buffers}'\nfsync = off\n"
    )
    (directory / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
    shutil.chown(directory / "postgresql.conf", "postgres")
    shutil.chown(directory / "pg_hba.conf", "postgres")
    started = _as_postgres(
        [str(bindir / "pg_ctl"), "-D", str(directory), "-w", "-l", str(directory / "log"), "start"]
    )
    if started.returncode:
        raise SystemExit(f"the standby did not start: {started.stderr.strip()}")
    print(f"standby of 127.0.0.1:5432 on 127.0.0.1:{port} in {directory}")


def stop(directory: Path) -> None:
    with psycopg.connect(PRIMARY) as conn:
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
    pg_ctl = f"/usr/lib/postgresql/{major}/bin/pg_ctl"
    _as_postgres([pg_ctl, "-D", str(directory), "-m", "fast", "-w", "stop"])
    shutil.rmtree(directory, ignore_errors=True)
    print(f"standby in {directory} stopped and removed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=5433)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp/wove-standby"))
    args = parser.parse_args()
    if args.action == "start":
        start(args.port, args.dir)
    else:
        stop(args.dir)


if __name__ == "__main__":
    main()
