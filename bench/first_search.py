"""First search after a gunicorn worker starts against warm searches, with and without the warm-up hook.

Usage::

    .venv/bin/python bench/first_search.py [--warm 10] [--rounds 2] [--db wove_bench_first_search]

The bench database (``--db``, on the server settings point at: the embedded PostgreSQL
unless ``DATABASE_URL`` is set) is created, migrated and filled with the bundled sample on
first use (harvest of the two OAI-PMH pages and the Kaggle lines, ROR, affiliation and
author matching: what ``make sample`` does, less signing), static files are collected, and
every paper is embedded
(``semantic.services.embeddings_update``: about 3 minutes on two idle cores the first time,
a no-op afterwards). Each run then starts gunicorn as the Procfile does (2 workers x 4
threads, DEBUG off, ``pages_load``'s environment, each server with its own in-process cache
so no run reads another's counts) in one of three ways: ``no hook`` (the Procfile's line
today: the baseline), ``hook, off`` (``--config python:wove.gunicorn_conf`` with
``SEMANTIC_PRELOAD=0``: URL conf and templates only) and ``hook, on`` (the same with
``SEMANTIC_PRELOAD=1``: also the model). It waits until the server answers a static file
(no page rendered yet) and its processes are idle (every worker booted), then times one
``/search?q=...`` (hybrid, the default mode), the first search this server sees, and
``--warm`` more, each a different hand-judged query (bench/queries/). Prints per run the
boot time, each worker's preload time (from gunicorn's log), the first search, the median
and maximum of the warm ones, and first / warm median (target: <= 2). Rounds alternate
through the three, so each sees the same machine state. ``/proc/loadavg`` is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit
from urllib.request import urlopen

from _setup import ROOT, django_with_bench_db
from pages_load import VENV_BIN, _server_env, _wait_up

DATA = ROOT / "data"
OAI_PAGES = [str(DATA / "arxiv/oai/arxivsync_436115-5001.xml"), str(DATA / "arxiv/oai/arxivsync_47001.xml")]
KAGGLE = str(DATA / "arxiv/kaggle/weaviate_metadata_1000.lines0001-0800.json")
ROR = str(DATA / "ror/ror_records_v2.json")
QUERIES = ROOT / "bench" / "queries" / "sample_relevance.json"
TARGET = 2.0


def prepare_database(db: str) -> str:
    """Create, fill and embed the bench database ``db`` (each step skipped when done).
    Returns its ``DATABASE_URL`` for the servers."""
    django_with_bench_db(db)
    from django.conf import settings
    from django.core.management import call_command

    from papers.models import Paper
    from semantic.services import PaperEmbedding, embeddings_update

    if not Paper.objects.exists():
        print(f"loading the sample into {db} ...", flush=True)
        started = time.monotonic()
        # --no-pipeline: this bench runs each step here, on this database; a pipeline sent to
        # a worker on the broker would run it against that worker's database.
        call_command("harvest_arxiv", "--no-progress", "--no-pipeline", "--file", *OAI_PAGES)
        call_command("harvest_arxiv", "--no-progress", "--no-pipeline", "--kaggle", KAGGLE)
        call_command("load_ror", "--no-progress", "--file", ROR)
        call_command("match_affiliations", "--no-progress")
        call_command("match_authors", "--no-progress")
        print(f"sample loaded in {time.monotonic() - started:.0f} s", flush=True)
    # DEBUG off serves hashed static names from the manifest: collect once (idempotent).
    call_command("collectstatic", "--noinput", verbosity=0)
    result = embeddings_update()
    if not result.available:
        raise SystemExit(f"semantic search unavailable ({result.reason}): nothing to measure")
    if result.embedded:
        print(f"embedded {result.embedded} papers in {result.seconds:.0f} s", flush=True)
    print(f"corpus: {Paper.objects.count()} papers, {PaperEmbedding.objects.count()} embedded", flush=True)
    parts = urlsplit(settings.DATABASE_URL)
    return urlunsplit(parts._replace(path="/" + db))


def _group_cpu_seconds(pgid: int) -> float:
    """CPU seconds (user + system) used so far by the live processes of group ``pgid``."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command: state ppid pgrp ... utime is field 14, stime 15 (1-based, man 5 proc).
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _wait_idle(pgid: int, *, timeout: float = 300, window: float = 1.0, busy: float = 0.1) -> None:
    """Wait until the process group ``pgid`` uses less than ``busy`` CPU seconds in ``window``
    seconds (every worker has finished booting)."""
    deadline = time.monotonic() + timeout
    before = _group_cpu_seconds(pgid)
    while time.monotonic() < deadline:
        time.sleep(window)
        now = _group_cpu_seconds(pgid)
        if now - before < busy:
            return
        before = now
    raise RuntimeError("gunicorn did not settle")


def _get_ms(url: str) -> float:
    """Milliseconds for one GET of ``url``; raises unless semantic ranking ran (no keyword note)."""
    started = time.perf_counter()
    with urlopen(url, timeout=120) as response:  # noqa: S310 (127.0.0.1 only)
        body = response.read().decode()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status != 200 or "semantic-note" in body:
        note = re.search(r'semantic-note"[^>]*>([^<]*)', body)
        raise RuntimeError(f"{url}: HTTP {response.status}, {note.group(1) if note else 'no results'}")
    return elapsed


def run_one(
    database_url: str, *, variant: str, queries: list[str], port: int, workers: int, workdir: Path
) -> dict:
    """Serve with gunicorn as ``variant`` (a key of :data:`VARIANTS`), time the first search
    and the warm ones. Returns ``{boot_s, preload_s: [per worker], first_ms, warm_ms: [...]}``
    (seconds, milliseconds)."""
    config, preload = VARIANTS[variant]
    env = _server_env("unused")
    env.update(DATABASE_URL=database_url, SEMANTIC_PRELOAD="1" if preload else "0")
    env.pop("CACHE_REDIS_URL")  # WOVE_LOCAL: a fresh in-process cache per server
    log_path = workdir / f"gunicorn-{time.monotonic_ns()}.log"
    started = time.monotonic()
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [
                str(VENV_BIN / "gunicorn"),
                "wove.wsgi",
                *(["--config", "python:wove.gunicorn_conf"] if config else []),
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--threads",
                "4",
                "--log-level",
                "info",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        # A static file: WhiteNoise answers it before Django resolves a URL or renders a
        # template, so the probe leaves the worker as cold as a visitor would find it.
        _wait_up(base + "/static/css/site.css", timeout=300)
        _wait_idle(server.pid)
        boot = time.monotonic() - started
        first = _get_ms(f"{base}/search?q={quote(queries[0])}")
        warm = [_get_ms(f"{base}/search?q={quote(q)}") for q in queries[1:]]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
    text = log_path.read_text()
    if "WORKER TIMEOUT" in text:
        raise RuntimeError(f"a worker timed out while booting; see {log_path}")
    preloads = [float(s) for s in re.findall(r"semantic preload: \S+ ready in ([\d.]+) s", text)]
    return {"boot_s": boot, "preload_s": preloads, "first_ms": first, "warm_ms": warm}


# name: (run gunicorn with wove/gunicorn_conf.py, SEMANTIC_PRELOAD)
VARIANTS = {"no hook": (False, False), "hook, off": (True, False), "hook, on": (True, True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="wove_bench_first_search", help="bench database (kept)")
    parser.add_argument("--warm", type=int, default=10, help="warm searches after the first (10)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds through the three servers (2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (the Procfile's 2)")
    parser.add_argument("--port", type=int, default=8043)
    args = parser.parse_args()
    queries = [q["query"] for q in json.loads(QUERIES.read_text())["queries"]]
    if args.warm + 1 > len(queries):
        parser.error(f"--warm at most {len(queries) - 1} (one query each)")
    queries = queries[: args.warm + 1]
    database_url = prepare_database(args.db)
    load_before = Path("/proc/loadavg").read_text().strip()
    runs = []
    with tempfile.TemporaryDirectory(prefix="first-search-") as tmp:
        for _ in range(args.rounds):
            for variant in VARIANTS:
                result = run_one(
                    database_url,
                    variant=variant,
                    queries=queries,
                    port=args.port,
                    workers=args.workers,
                    workdir=Path(tmp),
                )
                runs.append((variant, result))
    load_after = Path("/proc/loadavg").read_text().strip()
    print(
        f"first_search: gunicorn {args.workers} workers x 4 threads, hybrid /search, "
        f"1 first + {args.warm} warm queries per run, {os.cpu_count()} cores"
    )
    print(f"load average before: {load_before}")
    print(
        f"{'server':<11}{'boot s':>8}{'preload s/worker':>18}{'first ms':>10}"
        f"{'warm p50':>10}{'warm max':>10}{'first/p50':>11}"
    )
    for variant, r in runs:
        median = statistics.median(r["warm_ms"])
        ratio = r["first_ms"] / median
        per_worker = ",".join(f"{s:.1f}" for s in r["preload_s"]) or "-"
        verdict = "ok" if ratio <= TARGET else f"over {TARGET:g}"
        print(
            f"{variant:<11}{r['boot_s']:>8.1f}{per_worker:>18}{r['first_ms']:>10.0f}"
            f"{median:>10.0f}{max(r['warm_ms']):>10.0f}{ratio:>11.1f}  {verdict}"
        )
    print(f"load average after: {load_after}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
