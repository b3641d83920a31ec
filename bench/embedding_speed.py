"""Embedding throughput (papers/s) and query latency percentiles per search mode.

    .venv/bin/python bench/embedding_speed.py [--papers 256] [--queries 60]

Throughput: the configured model embeds ``--papers`` sample papers (title + abstract, batches
of 64, in memory, nothing written), after one warm-up batch; wall time and process CPU time
are printed (CPU time shows what the work costs when other processes share the cores).
Latency: each hand-judged query (bench/queries/) is run repeatedly through
``semantic.services.search_papers`` in every mode against the database as it is (so the
sample should be loaded and embedded), and p50/p90/p99 are printed in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wove.settings")
os.environ.setdefault("WOVE_LOCAL", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * p / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def main() -> int:
    """Print papers/s for embedding and p50/p90/p99 query latency (ms) per mode."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=256, help="papers to embed (256)")
    parser.add_argument("--queries", type=int, default=60, help="query runs per mode (60)")
    args = parser.parse_args()

    import django

    django.setup()
    from papers.models import Paper
    from semantic import services
    from semantic.embedders import get_embedder

    started = time.monotonic()
    embedder = get_embedder()
    if embedder is None:
        print(f"no embedding model: {services.semantic_status().reason}")
        return 1
    print(
        f"model {embedder.name} loaded in {time.monotonic() - started:.1f} s; cores: {os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    rows = Paper.objects.order_by("pk").values_list("title", "abstract")[: args.papers + 64]
    texts = [services.paper_text(title=t, abstract=a) for t, a in rows]
    embedder.embed_passages(texts[:64])  # warm-up: first-call allocations
    texts = texts[64:] or texts
    wall, cpu = time.monotonic(), time.process_time()
    for start in range(0, len(texts), 64):
        embedder.embed_passages(texts[start : start + 64])
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    print(
        f"embedding: {len(texts)} papers in {wall:.1f} s = {len(texts) / wall:.1f} papers/s "
        f"(CPU {cpu:.1f} s = {1000 * cpu / len(texts):.0f} CPU-ms per paper)"
    )

    queries = [
        q["query"] for q in json.loads((ROOT / "bench/queries/sample_relevance.json").read_text())["queries"]
    ]
    modes = ["keyword", "semantic", "hybrid"] if services.semantic_available() else ["keyword"]
    services.search_papers(query=queries[0], mode=modes[-1])  # warm-up
    print(f"query latency over {args.queries} runs per mode (ms):")
    print(f"{'mode':<9} {'p50':>7} {'p90':>7} {'p99':>7} {'mean':>7}")
    for mode in modes:
        times = []
        for i in range(args.queries):
            t0 = time.perf_counter()
            services.search_papers(query=queries[i % len(queries)], mode=mode, limit=20)
            times.append(1000 * (time.perf_counter() - t0))
        print(
            f"{mode:<9} {percentile(times, 50):>7.1f} {percentile(times, 90):>7.1f} "
            f"{percentile(times, 99):>7.1f} {statistics.mean(times):>7.1f}"
        )
    embedded = list(services.PaperEmbedding.objects.values_list("paper_id", flat=True)[:50])
    if embedded:
        times = []
        for pk in embedded:
            t0 = time.perf_counter()
            services.similar_papers(paper_id=pk, limit=5)
            times.append(1000 * (time.perf_counter() - t0))
        print(
            f"{'similar':<9} {percentile(times, 50):>7.1f} {percentile(times, 90):>7.1f} "
            f"{percentile(times, 99):>7.1f} {statistics.mean(times):>7.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
