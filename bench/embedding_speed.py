"""Embedding throughput (papers/s) and query latency percentiles per search mode.

    .venv/bin/python bench/embedding_speed.py [--papers 256] [--queries 60] [--backends minilm,minilm-int8]

Throughput: each backend embeds the same ``--papers`` sample papers (title + abstract, batches
of 64, in memory, nothing written), after one warm-up batch; wall time, process CPU time and
the ratio to the first backend's rate, measured in the same run, are printed (CPU time shows
what the work costs when other processes share the cores).
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
    parser.add_argument(
        "--backends",
        default="minilm,minilm-int8",
        help="SEMANTIC_MODEL backends to time on the same papers, the first the baseline "
        "(minilm,minilm-int8; minilm-fp32 is the default on CPUs without VNNI or AMX)",
    )
    args = parser.parse_args()

    import django

    django.setup()
    from papers.models import Paper
    from semantic import services
    from semantic.embedders import get_embedder

    rows = Paper.objects.order_by("pk").values_list("title", "abstract")[: args.papers + 64]
    all_texts = [services.paper_text(title=t, abstract=a) for t, a in rows]
    print(f"cores: {os.cpu_count()}, load average before {os.getloadavg()[0]:.2f}")
    baseline = None
    for backend in args.backends.split(","):
        started = time.monotonic()
        embedder = get_embedder(backend)
        if embedder is None:
            print(f"{backend}: no embedding model ({services.semantic_status().reason})")
            continue
        loaded = time.monotonic() - started
        embedder.embed_passages(all_texts[:64])  # warm-up: first-call allocations
        texts = all_texts[64:] or all_texts
        wall, cpu = time.monotonic(), time.process_time()
        for start in range(0, len(texts), 64):
            embedder.embed_passages(texts[start : start + 64])
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        rate = len(texts) / wall
        baseline = baseline or rate
        print(
            f"{backend:<12} {embedder.name}: loaded in {loaded:.1f} s; {len(texts)} papers in "
            f"{wall:.1f} s = {rate:.1f} papers/s ({rate / baseline:.2f} x {args.backends.split(',')[0]}; "
            f"CPU {1000 * cpu / len(texts):.0f} CPU-ms per paper), load {os.getloadavg()[0]:.2f}"
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
