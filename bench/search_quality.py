"""Search quality on the hand-judged sample queries: nDCG@10 and recall@10 per mode.

Run after ``make demo`` and ``manage.py embed_papers`` (the sample must be loaded and embedded):

    .venv/bin/python bench/search_quality.py [--queries bench/queries/sample_relevance.json] [-v]

Relevance is binary (bench/queries/: papers a person judged relevant for each query).
nDCG@10 = DCG@10 / ideal DCG@10 with gain 1 and discount 1/log2(rank + 1);
recall@10 = relevant papers in the top 10 / min(10, number judged relevant), so a query with
more than ten relevant papers can still reach 1.0. Prints one row per query and the means.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wove.settings")
os.environ.setdefault("WOVE_LOCAL", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

K = 10


def ndcg_at_k(ranked: list[str], relevant: set[str], k: int = K) -> float:
    """Binary-gain nDCG@k of ``ranked`` ids against the ``relevant`` set (0.0 when none)."""
    dcg = sum(1 / math.log2(i + 2) for i, a in enumerate(ranked[:k]) if a in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


def recall_at_k(ranked: list[str], relevant: set[str], k: int = K) -> float:
    """Relevant ids in the top ``k`` divided by min(k, len(relevant))."""
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & relevant) / min(k, len(relevant))


def _index_quality(queries: list[dict], arxiv_of: dict[int, str], *, verbose: bool) -> list[float]:
    """Summed nDCG@10 and recall@10 of the search index's top 10 (BM25) over ``queries``:
    the same words the keyword mode searches (PostgreSQL's ``ts_rank_cd``), read as the
    search page reads them."""
    import tempfile

    from django.conf import settings

    from papers import search_index, search_index_sync

    if search_index.usable() is None:
        settings.SEARCH_INDEX_DIR = tempfile.mkdtemp(prefix="wove-quality-index-")
        search_index_sync.rebuild()
    totals = [0.0, 0.0]
    for q in queries:
        relevant = set(q["relevant"])
        ranked = [arxiv_of[pk] for pk in search_index.search(q["query"], limit=K).ids]
        n, r = ndcg_at_k(ranked, relevant), recall_at_k(ranked, relevant)
        totals[0] += n
        totals[1] += r
        if verbose:
            print(f"{q['id']:<5} index {n:.3f} / {r:.3f}  {q['query']}")
    return totals


def main() -> int:
    """Print per-query and mean nDCG@10 / recall@10 for keyword, semantic and hybrid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", default=str(ROOT / "bench" / "queries" / "sample_relevance.json"))
    parser.add_argument("-v", "--verbose", action="store_true", help="print each query's scores")
    parser.add_argument(
        "--index",
        action="store_true",
        help="also the keyword search index (papers.search_index), built for this database in a "
        "temporary directory when SEARCH_INDEX_DIR holds no current copy",
    )
    args = parser.parse_args()

    import django

    django.setup()
    from papers.models import Paper
    from semantic import services

    status = services.semantic_status()
    modes = ["keyword", "semantic", "hybrid"] if status.available else ["keyword"]
    if not status.available:
        print(f"semantic search unavailable ({status.reason}): keyword mode only")
    embedded = services.PaperEmbedding.objects.count()
    papers = Paper.objects.public().count()
    print(f"corpus: {papers} papers, {embedded} embedded with {status.model or '-'}")
    queries = json.loads(Path(args.queries).read_text())["queries"]
    arxiv_of = dict(Paper.objects.values_list("pk", "arxiv_id"))
    totals = {m: [0.0, 0.0] for m in modes}
    from django.conf import settings

    # The modes above rank with PostgreSQL (the search index off); the index has its own row.
    index_dir, settings.SEARCH_INDEX_DIR = settings.SEARCH_INDEX_DIR, ""
    header = f"{'query':<5} {'rel':>3}  " + "  ".join(f"{m + ' nDCG/R':>19}" for m in modes)
    if args.verbose:
        print(header)
    for q in queries:
        relevant = set(q["relevant"])
        cells = []
        for mode in modes:
            hits = services.search_papers(query=q["query"], mode=mode, limit=K)
            ranked = [arxiv_of[pk] for pk, _ in hits]
            n, r = ndcg_at_k(ranked, relevant), recall_at_k(ranked, relevant)
            totals[mode][0] += n
            totals[mode][1] += r
            cells.append(f"{n:>9.3f} / {r:>6.3f}")
        if args.verbose:
            print(
                f"{q['id']:<5} {len(relevant):>3}  "
                + "  ".join(f"{c:>19}" for c in cells)
                + f"  {q['query']}"
            )
    index_totals = None
    if args.index:
        settings.SEARCH_INDEX_DIR = index_dir
        index_totals = _index_quality(queries, arxiv_of, verbose=args.verbose)
    if index_totals is not None:
        modes.append("index")
        totals["index"] = index_totals
    print(f"{len(queries)} queries, mean over queries (k={K}):")
    print(f"{'mode':<9} {'nDCG@10':>8} {'recall@10':>10}")
    for mode in modes:
        n, r = (t / len(queries) for t in totals[mode])
        print(f"{mode:<9} {n:>8.3f} {r:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
