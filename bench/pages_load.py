"""Pages and API under load: locust against gunicorn on 127.0.0.1, per page kind, per corpus.

Usage (the first database is the baseline; each needs a corpus, e.g. from
``manage.py generate_corpus``)::

    .venv/bin/python bench/pages_load.py --db wove_scale10k --db wove_scale1m --users 4 --seconds 60

For each database: starts gunicorn (DEBUG off, the Procfile's 2 workers x 4 threads, API rate
limit lifted) on 127.0.0.1 and samples paper, researcher and institution ids and search words
from that database. Then two modes, both measured against the trivial view served by the
same gunicorn in the same run: ``/robots.txt`` (a template with the site's URL, no database
query; :func:`pages.views.robots_txt`):

* **first view** (``--first-view N``, default 100; 0 skips it): one client opens each of up
  to N sampled URLs per kind once, all kinds shuffled together in a random order, as
  visitors opening pages nobody opened recently, with ``/robots.txt`` opened after each.
  Before it only the workers are woken, on URLs left out of the measured set. Prints
  p50/p95 (ms) per kind and their ratio to the trivial view's p50/p95 (issue 28's targets).
* **closed loop** (``--seconds``, 0 skips it): warms each page kind, runs locust headless for
  ``--warmup`` seconds (discarded), then for ``--seconds`` with ``--users`` closed-loop users
  (no think time), the trivial view one of the weighted kinds. Prints p50/p95/p99 (ms) and
  requests/s per kind with each p50 and p99 as a ratio to the trivial view's.

The load average (1 minute) is printed before and after each mode. With several databases,
the ratio of each one's p99 (and first-view p95) to the first database's follows. Targets
(issue #11): paper and researcher pages p99 < 100 ms, search p95 < 100 ms at 1M papers, p99
at 1M <= 1.5 x p99 at 10k; issue 28's ratios to the trivial view are in BENCHMARKS.md.

Locust imports this file as its locustfile (``PAGES_LOAD_SAMPLE`` names the sampled ids);
only ``main()`` drives runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote, urlsplit
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
TRIVIAL = "/robots.txt"
KINDS = (
    "trivial",
    "paper",
    "researcher",
    "institution",
    "search",
    "api papers",
    "api papers q",
    "api researchers",
    "api institutions",
)
# Share of requests per kind: pages people open most (papers, researchers), then search.
WEIGHTS = {
    "trivial": 2,
    "paper": 6,
    "researcher": 5,
    "institution": 2,
    "search": 4,
    "api papers": 2,
    "api papers q": 2,
    "api researchers": 2,
    "api institutions": 1,
}
TARGETS = {"paper": ("p99", 100), "researcher": ("p99", 100), "search": ("p95", 100)}

# --------------------------------------------------------------------------- locustfile

if os.environ.get("PAGES_LOAD_SAMPLE"):
    from locust import FastHttpUser, constant, task

    _SAMPLE = json.loads(Path(os.environ["PAGES_LOAD_SAMPLE"]).read_text())
    _RNG = random.Random(int(os.environ.get("PAGES_LOAD_SEED", "1")))

    def _pick(kind: str) -> str:
        return _RNG.choice(_SAMPLE[kind])

    def _path(kind: str) -> str:
        if kind == "trivial":
            return TRIVIAL
        if kind in ("paper", "researcher", "institution"):
            return _pick(kind)
        if kind == "search":
            return "/search?q=" + quote(_pick("queries"))
        if kind == "api papers":
            return _RNG.choice(
                [
                    "/api/v1/papers",
                    "/api/v1/papers?sort=cited",
                    "/api/v1/papers?category=" + quote(_pick("categories")),
                    f"/api/v1/papers?page={_RNG.randint(2, 50)}",
                ]
            )
        if kind == "api papers q":
            return "/api/v1/papers?mode=keyword&q=" + quote(_pick("queries"))
        if kind == "api researchers":
            return _RNG.choice(["/api/v1/researchers", "/api/v1/researchers?q=" + quote(_pick("names"))])
        return "/api/v1/institutions"

    class Visitor(FastHttpUser):
        """A closed-loop visitor: one request after another, page kinds by :data:`WEIGHTS`."""

        wait_time = constant(0)

        @task
        def visit(self) -> None:
            kind = _RNG.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
            with self.client.get(_path(kind), name=kind, catch_response=True) as response:
                if response.status_code != 200:
                    response.failure(f"HTTP {response.status_code}")


# --------------------------------------------------------------------------- driver


def sample_ids(db: str, *, count: int = 400, seed: int = 1) -> dict[str, list[str]]:
    """Paths and query words sampled from database ``db`` (psycopg, no Django): papers
    uniformly, researchers through a random authorship (weighted by their papers, as a
    visitor following author links is), institutions with links, search words from titles
    and family names."""
    import psycopg

    dsn = f"postgresql://postgres@127.0.0.1:5432/{db}"
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT setseed(%s)", [1 / (seed + 1)])

        def rows(sql: str, *params) -> list[tuple]:
            return conn.execute(sql, params).fetchall()

        papers = rows(
            "SELECT arxiv_id, slug FROM papers_paper WHERE NOT deleted AND NOT hidden "
            "ORDER BY random() LIMIT %s",
            count,
        )
        researchers = rows(
            "SELECT r.id, r.slug FROM (SELECT researcher_id FROM researchers_authorship "
            "ORDER BY random() LIMIT %s) a JOIN researchers_researcher r ON r.id = a.researcher_id",
            count,
        )
        institutions = rows(
            "SELECT i.id, i.slug FROM institutions_institution i "
            "WHERE EXISTS (SELECT 1 FROM institutions_authoraffiliation l WHERE l.institution_id = i.id)"
        )
        titles = [t for (t,) in rows("SELECT title FROM papers_paper ORDER BY random() LIMIT %s", count)]
        names = [
            n
            for (n,) in rows("SELECT keyname FROM papers_paperauthor ORDER BY random() LIMIT %s", count)
            if n
        ]
        categories = [
            c for (c,) in rows("SELECT primary_category_id FROM papers_paper ORDER BY random() LIMIT 50")
        ]
    rng = random.Random(seed)
    words = [w.strip(".,:;()\"'") for t in titles for w in t.split() if len(w.strip(".,:;()\"'")) > 3]
    queries = [rng.choice(words) for _ in range(count // 2)]
    queries += [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(count // 4)]
    queries += [rng.choice(names) for _ in range(count // 4)]
    return {
        "api paper": [f"/api/v1/papers/{a}" for a, _ in papers],
        "paper": [f"/papers/{a}-{s}" for a, s in papers],
        "researcher": [f"/researchers/{i}-{s}" for i, s in researchers],
        "institution": [f"/institutions/{i}-{s}" for i, s in institutions],
        "queries": queries,
        "names": names,
        "categories": categories,
    }


def _server_env(db: str, replica: str = "") -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgresql://postgres@127.0.0.1:5432/{db}",
        # --replica: the standby's URL for this database (wove/replicas.py), else none.
        DATABASE_REPLICA_URLS=replica.format(db=db),
        WOVE_LOCAL="1",
        DEBUG="0",
        SECURE_COOKIES="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        RATELIMIT_ENABLED="0",
        CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/13"),
        # Django's cache in Redis, shared by the workers, as in production (CACHE_REDIS_URL;
        # WOVE_LOCAL alone would give each worker its own LocMemCache).
        CACHE_REDIS_URL=os.environ.get("CACHE_REDIS_URL", "redis://127.0.0.1:6379/14"),
        LOG_LEVEL="WARNING",
        # Each corpus its own copy of the search index (bench/search_index.py builds them);
        # off unless BENCH_SEARCH_INDEX_ROOT names where they are.
        SEARCH_INDEX_DIR=str(Path(os.environ["BENCH_SEARCH_INDEX_ROOT"]) / db)
        if os.environ.get("BENCH_SEARCH_INDEX_ROOT")
        else "",
    )
    env.pop("WOVE_TESTING", None)
    return env


def _wait_up(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urlopen(url, timeout=5):  # noqa: S310 (127.0.0.1 only)
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"gunicorn did not answer at {url}")


def _start_server(db: str, port: int, replica: str = "") -> subprocess.Popen:
    """gunicorn serving ``db`` on ``port`` (2 workers, 4 threads), static files collected;
    with ``replica`` (a URL template, ``{db}`` for the database) its reads go there."""
    # DEBUG off serves hashed static names from the manifest: collect once (idempotent).
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=_server_env(db),
        check=True,
    )
    return subprocess.Popen(
        [
            str(VENV_BIN / "gunicorn"),
            "wove.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "4",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=_server_env(db, replica),
        start_new_session=True,
    )


def _warm_up(base: str, sample: dict) -> None:
    """A few pages of each kind, and every institution four times so that both workers hold
    its cached aggregates (a large institution's page computes them once per 5 minutes per
    worker; the cold cost is in BENCHMARKS.md)."""
    for path in [*sample["paper"][:4], *sample["researcher"][:4], *sample["institution"] * 4]:
        with urlopen(base + path, timeout=60):  # noqa: S310
            pass
    for q in sample["queries"][:4]:
        with urlopen(f"{base}/search?q={quote(q)}", timeout=60):  # noqa: S310
            pass


# First-view kinds: the sample's lists they draw from (search and ?q= build their URLs).
FIRST_VIEW_KINDS = ("paper", "researcher", "institution", "search", "api paper", "api papers q")
FIRST_VIEW_WAKE = 4  # URLs per kind kept out of the measured set to wake both workers


def _first_view_urls(sample: dict, per_kind: int, seed: int) -> list[tuple[str, str]]:
    """``[(kind, path)]``: up to ``per_kind`` distinct URLs of each kind (past the first
    :data:`FIRST_VIEW_WAKE`, which wake the workers), shuffled together."""
    lists = {
        "paper": sample["paper"],
        "researcher": sample["researcher"],
        "institution": sample["institution"],
        "search": ["/search?q=" + quote(q) for q in sample["queries"]],
        "api paper": sample["api paper"],
        "api papers q": ["/api/v1/papers?mode=keyword&q=" + quote(q) for q in sample["queries"]],
    }
    urls = []
    for kind in FIRST_VIEW_KINDS:
        distinct = list(dict.fromkeys(lists[kind]))[FIRST_VIEW_WAKE:]
        urls += [(kind, path) for path in distinct[:per_kind]]
    random.Random(seed).shuffle(urls)
    return urls


def _timed_get(url: str) -> float:
    """Milliseconds to open ``url`` and read its whole body (a new connection, as a visitor's
    first request is); raises on a status other than 200."""
    start = time.perf_counter()
    with urlopen(url, timeout=120) as response:  # noqa: S310 (127.0.0.1 only)
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{url}: HTTP {response.status}")
    return (time.perf_counter() - start) * 1000


def _percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank; nan when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def first_view(base: str, sample: dict, *, per_kind: int, seed: int = 1) -> dict[str, dict[str, float]]:
    """One visitor opens each URL of :func:`_first_view_urls` once, ``/robots.txt`` after
    each, and the first :data:`FIRST_VIEW_WAKE` of each kind (not measured) before.
    Returns ``{kind: {"p50", "p95", "n"}}`` in ms, the trivial view as ``"trivial"``."""
    lists = {kind: sample[kind] for kind in ("paper", "researcher", "institution", "api paper")}
    wake = [p for kind in lists.values() for p in list(dict.fromkeys(kind))[:FIRST_VIEW_WAKE]]
    wake += ["/search?q=" + quote(q) for q in sample["queries"][:FIRST_VIEW_WAKE]]
    for path in wake + [TRIVIAL] * 10:
        _timed_get(base + path)
    times: dict[str, list[float]] = {"trivial": []}
    for kind, path in _first_view_urls(sample, per_kind, seed):
        times.setdefault(kind, []).append(_timed_get(base + path))
        times["trivial"].append(_timed_get(base + TRIVIAL))
    return {
        kind: {"p50": _percentile(ms, 0.5), "p95": _percentile(ms, 0.95), "n": len(ms)}
        for kind, ms in times.items()
    }


def _tree_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of ``pid`` and each of its descendants, by pid."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return {}
    out = {}
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        out[process.pid] = times.user + times.system
    return out


def tree_peak_mb(pid: int) -> float:
    """The largest peak resident set (``VmHWM`` of ``/proc/<pid>/status``, MB) among ``pid``
    and its descendants: a gunicorn worker's high-water mark, to show memory held flat."""
    import psutil

    try:
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    peak = 0.0
    for process in processes:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]) / 1024)
    return peak


def postmaster_pid(port: int) -> int | None:
    """The PostgreSQL postmaster listening on 127.0.0.1:``port`` (its ``postmaster.pid``)."""
    import psycopg

    try:
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres") as conn:
            data = conn.execute("SHOW data_directory").fetchone()[0]
        return int(Path(data, "postmaster.pid").read_text().split()[0])
    except (OSError, psycopg.Error, ValueError):
        return None


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two :func:`_tree_cpu` samples (a process that started in
    between counts from zero; one that ended in between is lost, so keep connections open)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def load_average() -> float:
    """The 1-minute load average (``os.getloadavg``)."""
    return os.getloadavg()[0]


def wait_quiet(below: float, *, timeout: float = 240.0) -> float:
    """Wait until the 1-minute load average is under ``below`` (issue 28: "quiet" is under
    0.5 before a figure), at most ``timeout`` seconds; returns the seconds waited. The
    previous database's closed loop leaves the average at 3 or more, and it takes a few
    minutes to fall."""
    start = time.monotonic()
    while load_average() >= below and time.monotonic() - start < timeout:
        time.sleep(5)
    return time.monotonic() - start


def _locust(base: str, *, users: int, seconds: int, csv_prefix: str, seed: str, env: dict, log: Path) -> None:
    with open(log, "w") as stream:
        subprocess.run(
            [
                str(VENV_BIN / "locust"),
                "-f",
                str(Path(__file__).resolve()),
                "--headless",
                "--host",
                base,
                "--users",
                str(users),
                "--spawn-rate",
                str(users),
                "--run-time",
                f"{seconds}s",
                "--stop-timeout",
                "10",
                "--csv",
                csv_prefix,
                "--only-summary",
                "--loglevel",
                "WARNING",
            ],
            check=False,
            env={**env, "PAGES_LOAD_SEED": seed},
            cwd=ROOT,
            stdout=stream,
            stderr=subprocess.STDOUT,
        )


def _read_stats(prefix: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with open(f"{prefix}_stats.csv", newline="") as stream:
        for row in csv.DictReader(stream):
            name = "all" if row["Name"] == "Aggregated" else row["Name"]
            out[name] = {
                "p50": float(row["50%"]),
                "p95": float(row["95%"]),
                "p99": float(row["99%"]),
                "rps": float(row["Requests/s"]),
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
            }
    return out


def _empty_cache() -> None:
    """Empty the Django cache the servers share (CACHE_REDIS_URL), so that every run starts
    from the same state: a run after another would find its counts and facets cached."""
    import redis

    redis.Redis.from_url(_server_env("postgres")["CACHE_REDIS_URL"]).flushdb()


def run_one(
    db: str,
    *,
    port: int,
    users: int,
    seconds: int,
    warmup: int,
    first_view_urls: int,
    workdir: Path,
    replica: str = "",
    quiet: float = 0.0,
) -> dict[str, dict]:
    """Serve ``db`` with gunicorn, measure its first views, then load it with locust.

    Returns ``{"first_view": {kind: {p50, p95, n}}, "load": {kind: {p50, p95, p99, rps,
    requests, failures}}, "loadavg": {"first_view": (before, after), "load": (before,
    after)}, "peak_mb": the largest peak resident set of a gunicorn process (MB, to the end
    of both modes), "cpu": {"app" | "primary" | "replica": CPU seconds during the measured closed
    loop}}`` (milliseconds, requests per second); a skipped mode's entries are empty. With
    ``replica`` (a URL template, ``{db}`` for the database) gunicorn reads from it. With
    ``quiet``, the first views wait (:func:`wait_quiet`) for the load average to fall under it."""
    _empty_cache()
    sample = sample_ids(db)
    sample_file = workdir / f"{db}-sample.json"
    sample_file.write_text(json.dumps(sample))
    server = _start_server(db, port, replica)
    base = f"http://127.0.0.1:{port}"
    label = f"{db}-replica" if replica else db
    prefix = workdir / label
    out: dict[str, dict] = {"first_view": {}, "load": {}, "loadavg": {}, "cpu": {}}
    trees = {"app": server.pid, "primary": postmaster_pid(5432)}
    if replica:
        trees["replica"] = postmaster_pid(urlsplit(replica.format(db=db)).port or 5432)
    try:
        _wait_up(base + TRIVIAL)
        if first_view_urls > 0:
            if quiet:
                wait_quiet(quiet)
            before = load_average()
            out["first_view"] = first_view(base, sample, per_kind=first_view_urls)
            out["loadavg"]["first_view"] = (before, load_average())
        if seconds <= 0:
            return out
        _warm_up(base, sample)
        out["loadavg"]["load"] = (load_average(), None)
        env = dict(os.environ, PAGES_LOAD_SAMPLE=str(sample_file))
        # A discarded warm-up run first (same load, another seed), then the measured run:
        # both databases are measured in steady state (buffers, per-worker count caches).
        for name, run_seconds, seed in (("warmup", warmup, "2"), ("run", seconds, "1")):
            if run_seconds <= 0:
                continue
            csv_prefix = str(prefix) + ("-warmup" if name == "warmup" else "")
            log = workdir / f"{label}-{name}.log"
            cpu_before = {kind: _tree_cpu(pid) for kind, pid in trees.items() if pid}
            _locust(
                base, users=users, seconds=run_seconds, csv_prefix=csv_prefix, seed=seed, env=env, log=log
            )
            if name == "run":
                out["cpu"] = {
                    kind: cpu_used(cpu_before[kind], _tree_cpu(pid)) for kind, pid in trees.items() if pid
                }
        out["loadavg"]["load"] = (out["loadavg"]["load"][0], load_average())
    finally:
        out["peak_mb"] = tree_peak_mb(server.pid)
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    out["load"] = _read_stats(prefix)
    return out


def papers_in(db: str) -> int:
    import psycopg

    with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{db}") as conn:
        return conn.execute("SELECT count(*) FROM papers_paper").fetchone()[0]


def _ratio(value: float, trivial: float) -> str:
    return f"{value / trivial:.1f} x" if trivial else "-"


def _print_first_view(db: str, result: dict) -> None:
    views, (before, after) = result["first_view"], result["loadavg"]["first_view"]
    trivial = views["trivial"]
    print(f"\n{db} first view: one client, each URL once, random order", end=" ")
    print(f"(load average {before:.2f} -> {after:.2f}; a gunicorn worker's peak: {result['peak_mb']:.0f} MB)")
    print(f"{'kind':<16}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'p50 / trivial':>15}{'p95 / trivial':>15}")
    for kind in ("trivial", *FIRST_VIEW_KINDS):
        if r := views.get(kind):
            print(
                f"{kind:<16}{r['n']:>5}{r['p50']:>9.1f}{r['p95']:>9.1f}"
                f"{_ratio(r['p50'], trivial['p50']):>15}{_ratio(r['p95'], trivial['p95']):>15}"
            )


def _print_load(db: str, result: dict, args: argparse.Namespace) -> None:
    stats, (before, after) = result["load"], result["loadavg"]["load"]
    trivial = stats.get("trivial", {})
    print(
        f"\n{db} closed loop: {args.users} users, {args.seconds} s after {args.warmup} s of warm-up "
        f"(load average {before:.2f} -> {after:.2f})"
    )
    print(
        f"{'kind':<18}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'req/s':>8}{'n':>7}{'fail':>6}"
        f"{'p50 / triv':>12}{'p99 / triv':>12}"
    )
    for kind in [*KINDS, "all"]:
        if r := stats.get(kind):
            print(
                f"{kind:<18}{r['p50']:>8.0f}{r['p95']:>8.0f}{r['p99']:>8.0f}"
                f"{r['rps']:>8.1f}{r['requests']:>7}{r['failures']:>6}"
                f"{_ratio(r['p50'], trivial.get('p50', 0)):>12}{_ratio(r['p99'], trivial.get('p99', 0)):>12}"
            )
    requests = stats.get("all", {}).get("requests", 0)
    if result.get("cpu") and requests:
        cpu = result["cpu"].items()
        shares = ", ".join(f"{kind} {seconds * 1000 / requests:.1f}" for kind, seconds in cpu)
        print(f"CPU ms per request ({requests} requests): {shares}")


def _print_replica(db: str, results: dict) -> None:
    """Throughput with the replica against the primary alone, and where the CPU went."""
    alone, with_replica = results[db]["load"].get("all"), results[f"{db}-replica"]["load"].get("all")
    if alone and with_replica:
        print(
            f"\n{db}: closed-loop throughput with the replica {with_replica['rps']:.1f} req/s against "
            f"{alone['rps']:.1f} alone ({with_replica['rps'] / alone['rps']:.2f} x); "
            f"failures {with_replica['failures']} and {alone['failures']}"
        )


def _print_growth(base: str, db: str, results: dict) -> None:
    now, then = results[db], results[base]
    if now["first_view"] and then["first_view"]:
        print(f"\nfirst-view p95 ratio {db} / {base} (issue 28 target <= 1.3)")
        for kind in FIRST_VIEW_KINDS:
            a, b = now["first_view"].get(kind), then["first_view"].get(kind)
            if a and b:
                print(f"{kind:<18}{a['p95'] / b['p95']:>6.2f}")
    if not (now["load"] and then["load"]):
        return
    print(f"\np99 ratio {db} / {base} (target <= 1.5), and targets at {db}")
    for kind in [*KINDS, "all"]:
        a, b = now["load"].get(kind), then["load"].get(kind)
        if not a or not b:
            continue
        ratio = a["p99"] / b["p99"] if b["p99"] else float("inf")
        note = ""
        if kind in TARGETS:
            stat, limit = TARGETS[kind]
            note = f"  {stat} {a[stat]:.0f} ms {'<' if a[stat] < limit else '>='} {limit} ms"
        print(f"{kind:<18}{ratio:>6.2f}{'' if ratio <= 1.5 else '  (over 1.5)'}{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", required=True, help="database (first: the baseline)")
    parser.add_argument("--users", type=int, default=4, help="concurrent closed-loop users")
    parser.add_argument("--seconds", type=int, default=60, help="load time per database (0: no closed loop)")
    parser.add_argument("--warmup", type=int, default=20, help="discarded warm-up seconds per database")
    parser.add_argument(
        "--first-view", type=int, default=100, help="URLs per kind opened once by one client (0: skip)"
    )
    parser.add_argument("--port", type=int, default=8041)
    parser.add_argument(
        "--quiet",
        type=float,
        default=0.0,
        help="before each first-view run, wait (at most 4 min) for the 1-minute load average "
        "to fall under this (0.5: the issue's quiet)",
    )
    parser.add_argument(
        "--replica",
        default="",
        help="also measure each database served with this read replica "
        "(e.g. postgresql://postgres@127.0.0.1:5433/{db}; bench/replica_standby.py makes one)",
    )
    args = parser.parse_args()
    results = {}
    runs = [(db, "") for db in args.db] + ([(db, args.replica) for db in args.db] if args.replica else [])
    with tempfile.TemporaryDirectory(prefix="pages-load-") as tmp:
        for db, replica in runs:
            results[f"{db}-replica" if replica else db] = run_one(
                db,
                port=args.port,
                users=args.users,
                seconds=args.seconds,
                warmup=args.warmup,
                first_view_urls=args.first_view,
                workdir=Path(tmp),
                replica=replica,
                quiet=args.quiet,
            )
    print(f"pages_load: gunicorn 2 workers x 4 threads; trivial view {TRIVIAL} served by the same gunicorn")
    for label in results:
        db = label.removesuffix("-replica")
        print(f"\n== {label} ({papers_in(db):,} papers)")
        if results[label]["first_view"]:
            _print_first_view(label, results[label])
        if results[label]["load"]:
            _print_load(label, results[label], args)
    if args.replica:
        for db in args.db:
            _print_replica(db, results)
    for db in args.db[1:]:
        _print_growth(args.db[0], db, results)


if __name__ == "__main__":
    main()
