"""Choose the semantic similarity floor on the hand-judged sample queries (issue 28).

A semantic or hybrid search lists the papers whose cosine similarity to the query is at least
``SEMANTIC_MIN_SIMILARITY``: the floor decides how many papers a search says it found. This
benchmark sweeps candidate floors and, for each, compares the set of papers at or above it
with the papers judged relevant (bench/queries/sample_relevance.json):

    precision = relevant papers in the set / papers in the set (0 for an empty set)
    recall    = relevant papers in the set / papers judged relevant
    F1        = 2 P R / (P + R), per query, then the mean over queries

Similarities are exact (every stored vector against the query's, in numpy), not the HNSW
walk, so the floor does not depend on the index's recall. The chosen floor is the one with
the highest mean F1 (ties: the lower floor, which loses fewer relevant papers). Also prints,
for each floor, the mean set size and the set size of a few unjudged everyday queries, so
the padding a floor lets in can be seen.

Run after ``make demo`` and ``manage.py embed_papers`` (the sample loaded and embedded):

    .venv/bin/python bench/similarity_floor.py [--queries ...] [--from 0.20 --to 0.70 --step 0.01]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wove.settings")
os.environ.setdefault("WOVE_LOCAL", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Unjudged queries a reader types: their set sizes show what a floor lets through.
EVERYDAY = ["dark matter", "graphene", "black hole", "asdfgh qwerty"]


def prf(selected: set[str], relevant: set[str]) -> tuple[float, float, float]:
    """``(precision, recall, F1)`` of ``selected`` against ``relevant`` (0.0 where undefined)."""
    hits = len(selected & relevant)
    precision = hits / len(selected) if selected else 0.0
    recall = hits / len(relevant) if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def main() -> int:
    """Print the floor sweep and the chosen floor; exit 1 when nothing is embedded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", default=str(ROOT / "bench" / "queries" / "sample_relevance.json"))
    parser.add_argument("--from", dest="start", type=float, default=0.20)
    parser.add_argument("--to", dest="stop", type=float, default=0.70)
    parser.add_argument("--step", type=float, default=0.01)
    parser.add_argument("--backend", default=None, help="SEMANTIC_MODEL backend (default: the configured)")
    args = parser.parse_args()

    import django

    django.setup()
    import numpy as np
    from django.db import connection

    from semantic.embedders import get_embedder, min_similarity
    from semantic.schema import TABLE

    embedder = get_embedder(args.backend)
    if embedder is None:
        print("no embedding model installed")
        return 1
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.arxiv_id, e.embedding::text FROM {TABLE} e "  # noqa: S608 - constant table
            "JOIN papers_paper p ON p.id = e.paper_id WHERE NOT p.deleted AND NOT p.hidden "
            "AND e.model = %s ORDER BY p.id",
            [embedder.name],
        )
        rows = cursor.fetchall()
    if not rows:
        print("no paper vectors: run manage.py embed_papers first")
        return 1
    ids = np.array([arxiv_id for arxiv_id, _ in rows])
    matrix = np.array([json.loads(text) for _, text in rows], dtype=np.float32)
    floor_now = min_similarity(embedder.name)
    print(f"corpus: {len(ids)} papers embedded with {embedder.name}; current floor {floor_now}")

    queries = json.loads(Path(args.queries).read_text())["queries"]
    judged = [(q["query"], set(q["relevant"]), matrix @ embedder.embed_query(q["query"])) for q in queries]
    everyday = [(text, matrix @ embedder.embed_query(text)) for text in EVERYDAY]

    steps = int(round((args.stop - args.start) / args.step)) + 1
    floors = [round(args.start + i * args.step, 4) for i in range(steps)]
    print(f"{len(queries)} judged queries; means over queries")
    print(
        f"{'floor':>6} {'P':>6} {'R':>6} {'F1':>6} {'set':>7}  "
        + "  ".join(f"{text[:12]:>12}" for text in EVERYDAY)
    )
    best = None
    for floor in floors:
        scores = [prf(set(ids[sims >= floor]), relevant) for _, relevant, sims in judged]
        p, r, f1 = (sum(s[i] for s in scores) / len(scores) for i in range(3))
        size = sum(int((sims >= floor).sum()) for _, _, sims in judged) / len(judged)
        sizes = "  ".join(f"{int((sims >= floor).sum()):>12}" for _, sims in everyday)
        print(f"{floor:>6.2f} {p:>6.3f} {r:>6.3f} {f1:>6.3f} {size:>7.1f}  {sizes}")
        if best is None or f1 > best[1] + 1e-12:
            best = (floor, f1, p, r)
    floor, f1, p, r = best
    print(f"chosen floor (highest mean F1): {floor:.2f}  F1 {f1:.3f}  P {p:.3f}  R {r:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
