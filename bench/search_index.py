"""Keyword search: PostgreSQL full-text search against the Tantivy search index, per corpus.

Usage (each database needs a corpus, e.g. from ``manage.py generate_corpus``)::

    .venv/bin/python bench/search_index.py --db wove_s10k --db wove_s1m [--queries 60]

For each database, in its own process: builds that corpus's copy of the search index under
``--root`` (``var/bench-search-index/<db>``) when it has none, timing the build; samples
search words and two-word queries from the corpus's titles and authors' family names
(``pages_load.sample_ids``: what the load benchmark searches), then serves, in process
through Django's test client with the cache cleared before each request, for each query:

* ``/robots.txt``: the trivial view, the baseline every ratio is taken against;
* the search page (``/search?q=...&mode=keyword``) and ``/api/v1/papers?q=...&sort=relevance``
  read by PostgreSQL (the index off: ``ts_rank`` over at most 5,000 matches, the shipped
  fallback) and by the index;
* ``pg exact``: PostgreSQL at its best for the same answer the index gives, the exact count
  and the top 20 by ``ts_rank`` over every match (two queries on the GIN index).

Prints p50/p95 (ms) per path with their ratio to the trivial view, and each index path's
ratio to PostgreSQL's. The load average (1 minute) is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def _pg_exact(q: str) -> float:
    """Milliseconds for PostgreSQL's exact answer: every match counted, the top 20 by
    ``ts_rank`` over all of them."""
    from django.contrib.postgres.search import SearchRank
    from django.db.models import F

    from pages.search import web_query
    from papers.models import Paper

    started = time.perf_counter()
    query = web_query(q)
    matches = Paper.objects.public().filter(search_vector=query)
    matches.count()
    list(
        matches.annotate(rank=SearchRank(F("search_vector"), query))
        .order_by("-rank", "-submitted_at")
        .values_list("id", flat=True)[:20]
    )
    return (time.perf_counter() - started) * 1000


def run_one(db: str, root: Path, count: int) -> dict:
    """Measure database ``db`` in this process (Django set up here); returns the figures."""
    from pages_load import sample_ids

    sample = sample_ids(db, count=max(count * 4, 40))
    queries = sample["queries"][: count // 2] + sample["queries"][-(count - count // 2) :]
    os.environ.update(
        DATABASE_URL=f"postgresql://postgres@127.0.0.1:5432/{db}",
        WOVE_LOCAL="1",
        DEBUG="0",
        RATELIMIT_ENABLED="0",
        SEARCH_INDEX_DIR=str(root / db),
        SEARCH_INDEX_MAX_LAG="1000000000",
        LOG_LEVEL="WARNING",
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wove.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.test import Client

    from papers import search_index, search_index_sync
    from papers.models import Paper

    settings.ALLOWED_HOSTS = ["*"]
    out: dict = {"db": db, "papers": Paper.objects.public().count()}
    if search_index.usable() is None:
        started = time.monotonic()
        built = search_index_sync.rebuild()
        out["build_seconds"] = round(time.monotonic() - started, 1)
        out["build_papers"] = built["papers"]
    out["index_bytes"] = sum(f.stat().st_size for f in (root / db).rglob("*") if f.is_file())
    client = Client()

    def timed(url: str) -> float:
        cache.clear()
        started = time.perf_counter()
        response = client.get(url)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, (url, response.status_code)
        return elapsed

    times: dict[str, list[float]] = {}
    counts = []
    from urllib.parse import quote

    for url in ("/robots.txt", "/search?q=warm&mode=keyword", "/api/v1/papers?q=warm&sort=relevance"):
        client.get(url)  # URL conf, templates, the index opened: a worker's first request
    for q in queries:
        encoded = quote(q)
        times.setdefault("trivial", []).append(timed("/robots.txt"))
        settings.SEARCH_INDEX_DIR = ""
        times.setdefault("page, postgres", []).append(timed(f"/search?q={encoded}&mode=keyword"))
        times.setdefault("api ?q=, postgres", []).append(timed(f"/api/v1/papers?q={encoded}&sort=relevance"))
        times.setdefault("pg exact", []).append(_pg_exact(q))
        settings.SEARCH_INDEX_DIR = str(root / db)
        times.setdefault("page, index", []).append(timed(f"/search?q={encoded}&mode=keyword"))
        times.setdefault("api ?q=, index", []).append(timed(f"/api/v1/papers?q={encoded}&sort=relevance"))
        counts.append(search_index.search(q, limit=1).count)
    out["matches_p50"] = _percentile(counts, 0.5)
    out["matches_max"] = max(counts)
    out["queries"] = len(queries)
    out["figures"] = {k: {"p50": _percentile(v, 0.5), "p95": _percentile(v, 0.95)} for k, v in times.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", default=[])
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--root", default=str(ROOT / "var" / "bench-search-index"))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process's database
    args = parser.parse_args()
    root = Path(args.root)
    if args.one:
        print(json.dumps(run_one(args.one, root, args.queries)))
        return
    if not args.db:
        parser.error("name at least one --db")
    results = []
    for db in args.db:
        before = load_average()
        # One process per corpus: Django's connection and the opened index belong to it.
        child = subprocess.run(  # noqa: S603 (this script, our arguments)
            [sys.executable, __file__, "--one", db, "--queries", str(args.queries), "--root", str(root)],
            capture_output=True,
            text=True,
            check=True,
        )
        result = json.loads(child.stdout.strip().splitlines()[-1])
        result["load"] = (before, load_average())
        results.append(result)
        figures = result["figures"]
        trivial = figures["trivial"]
        print(
            f"\n{db}: {result['papers']:,} public papers, {result['queries']} queries "
            f"(matches p50 {result['matches_p50']:,}, max {result['matches_max']:,}); "
            f"load {result['load'][0]:.2f} -> {result['load'][1]:.2f}"
        )
        if "build_seconds" in result:
            print(f"  index built in {result['build_seconds']} s ({result['build_papers']:,} papers)")
        print(f"  index on disk: {result['index_bytes'] / 1e6:.0f} MB")
        print(f"  {'path':<20} {'p50 ms':>8} {'÷ trivial':>10} {'p95 ms':>8} {'÷ trivial':>10}")
        for name, row in figures.items():
            print(
                f"  {name:<20} {row['p50']:>8.1f} {row['p50'] / trivial['p50']:>9.1f}x"
                f" {row['p95']:>8.1f} {row['p95'] / trivial['p95']:>9.1f}x"
            )
        for kind in ("page", "api ?q="):
            pg, ix = figures[f"{kind}, postgres"], figures[f"{kind}, index"]
            print(
                f"  {kind}: index / postgres p50 {ix['p50'] / pg['p50']:.2f}, p95 {ix['p95'] / pg['p95']:.2f}"
            )
    if len(results) > 1:
        base = results[0]["figures"]
        for result in results[1:]:
            print(f"\np95 growth {result['db']} / {results[0]['db']}:")
            for name, row in result["figures"].items():
                print(f"  {name:<20} {row['p95'] / base[name]['p95']:.2f}")


if __name__ == "__main__":
    main()
