"""Mega-paper page: the 3,000-author paper's public page and API detail against ordinary ones.

Loads the bundled real sample (as ``make demo`` does, once per bench database) and the
edited 3,000-author paper of the tests (arXiv 2201.11990, ``tests/fixtures/arxiv/oai/
edited_arXiv_2201.11990_3000_authors.xml``), matches its authors locally, then renders in
the same run, through Django's test client (the whole view, template and middleware):

- the mega paper's page ``/papers/2201.11990-<slug>`` and its API detail
  ``/api/v1/papers/2201.11990``;
- ``--ordinary`` sample papers' pages and API details (the same papers each run: the ones
  with the most authors below 20, then by arXiv identifier).

Each figure is the median over ``--repeat`` renders (after one warm-up each); the ratio is
the mega paper's median over the ordinary pages' median. Target (issue 21): page ratio at
most 2. It prints the page sizes too, and the page ratio with Django's cache emptied
before every render (a long author list's JSON-LD and citation tags are cached).

Usage::

    .venv/bin/python bench/mega_paper_page.py [--repeat 15] [--ordinary 20] [--db wove_bench_page]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _setup import ROOT, django_with_bench_db

MEGA_RECORD = ROOT / "tests" / "fixtures" / "arxiv" / "oai" / "edited_arXiv_2201.11990_3000_authors.xml"
SAMPLE_OAI = [
    ROOT / "data" / "arxiv" / "oai" / n for n in ("arxivsync_436115-5001.xml", "arxivsync_47001.xml")
]
SAMPLE_KAGGLE = ROOT / "data" / "arxiv" / "kaggle" / "weaviate_metadata_1000.lines0001-0800.json"
TARGET = 2.0


def load() -> None:
    """Harvest the sample and the mega paper (each once per database), then match authors."""
    from papers import harvest
    from papers.models import Paper
    from researchers.services import researchers_match_authors

    if Paper.objects.count() < 2800:
        harvest.harvest_files(paths=SAMPLE_OAI)
        harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
    if not Paper.objects.filter(arxiv_id="2201.11990").exists():
        harvest.harvest_files(paths=[MEGA_RECORD])
    researchers_match_authors()


def timed(client, url: str, repeat: int, *, cold: bool = False) -> tuple[float, int]:
    """Median seconds of ``repeat`` GETs of ``url`` (one warm-up first) and the body's bytes;
    ``cold`` empties Django's cache before each GET (the page's complete author list is
    cached for long lists)."""
    from django.core.cache import cache

    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    times = []
    for _ in range(repeat):
        if cold:
            cache.clear()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(response.content)


def ordinary_papers(count: int) -> list:
    """``count`` sample papers with fewer than 20 authors, the most authors first."""
    from django.db.models import Count

    from papers.models import Paper

    return list(
        Paper.objects.public()
        .exclude(arxiv_id="2201.11990")
        .annotate(n=Count("authors"))
        .filter(n__lt=20)
        .order_by("-n", "arxiv_id")[:count]
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--ordinary", type=int, default=20)
    parser.add_argument("--db", default="wove_bench_page")
    args = parser.parse_args()
    os.environ.setdefault("PIPELINE_AFTER_HARVEST", "0")
    os.environ.setdefault("WOVE_TESTING", "1")  # plain static storage: no collectstatic manifest needed
    django_with_bench_db(args.db)
    from django.conf import settings
    from django.test import Client

    from papers.models import Paper

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]

    load()
    client = Client()
    mega = Paper.objects.get(arxiv_id="2201.11990")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = {}
    for kind, url_of in (
        ("page", lambda p: p.get_absolute_url()),
        ("api", lambda p: f"/api/v1/papers/{p.arxiv_id}"),
    ):
        mega_time, mega_size = timed(client, url_of(mega), args.repeat)
        ordinary = [timed(client, url_of(p), args.repeat) for p in ordinary_papers(args.ordinary)]
        base_time = statistics.median(t for t, _ in ordinary)
        base_size = statistics.median(s for _, s in ordinary)
        rows[kind] = mega_time / base_time
        print(
            f"{kind}: 3,000 authors {mega_time * 1000:.1f} ms, {mega_size / 1024:.0f} KiB; "
            f"ordinary median {base_time * 1000:.1f} ms, {base_size / 1024:.0f} KiB; ratio {rows[kind]:.2f}"
        )
    cold_time, _ = timed(client, mega.get_absolute_url(), args.repeat, cold=True)
    base_time = statistics.median(
        timed(client, p.get_absolute_url(), args.repeat, cold=True)[0] for p in ordinary_papers(args.ordinary)
    )
    print(
        f"page, cache emptied before each render: 3,000 authors {cold_time * 1000:.1f} ms; "
        f"ordinary median {base_time * 1000:.1f} ms; ratio {cold_time / base_time:.2f}"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    verdict = "met" if rows["page"] <= TARGET else "missed"
    print(f"page ratio {rows['page']:.2f} (target <= {TARGET:.0f}): {verdict}")


if __name__ == "__main__":
    main()
