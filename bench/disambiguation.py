"""Author-disambiguation quality of the matcher's clustering on S2AND-layout data.

Usage: ``python bench/disambiguation.py DIR [--threshold 0.5] [--baseline] [--halves]``

``DIR`` holds ``signatures.json`` and ``clusters.json`` (gold persons), and optionally
``papers.json`` (co-authors, venue, year) and ``cluster_seeds.json`` (``require`` /
``disallow`` constraints) in allenai/S2AND's layout. Runs
:func:`researchers.clustering.cluster_mentions` (the code the local matcher runs) and prints
pairwise precision/recall/F1 and B-cubed precision/recall/F1 against the gold clusters.
``--halves`` also scores the two halves of the name blocks (split by a hash of the block
key, :func:`half_of`) separately: settings chosen on one half are checked on the other.
Needs no database.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from collections.abc import Hashable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papers.text import fold  # noqa: E402
from researchers.clustering import THRESHOLD, Mention, cluster_mentions  # noqa: E402
from researchers.names import parse_name  # noqa: E402


def load_mentions(directory: Path) -> tuple[list[Mention], dict[str, str], list, list]:
    """Read an S2AND folder into mentions, gold labels and seed constraints.

    Returns ``(mentions, gold, must_link, cannot_link)`` where ``gold`` maps signature id to
    gold cluster id. Co-authors come from ``papers.json`` authors (other positions), the
    venue stands in for arXiv categories.
    """
    signatures = json.loads((directory / "signatures.json").read_text())
    clusters = json.loads((directory / "clusters.json").read_text())
    papers_path = directory / "papers.json"
    papers = json.loads(papers_path.read_text()) if papers_path.exists() else {}
    gold = {sid: cid for cid, c in clusters.items() for sid in c["signature_ids"]}

    mentions = []
    for sid, sig in signatures.items():
        if sid not in gold:
            continue
        info = sig["author_info"]
        given = " ".join(p for p in (info.get("first"), info.get("middle")) if p)
        last = info.get("last") or ""
        # A few signatures carry the whole name in "last" ("Ming Jiang", first empty).
        whole = not given and " " in last.strip()
        name = parse_name(last) if whole else parse_name(f"{given} {last}".strip(), family=last, given=given)
        paper = papers.get(str(sig["paper_id"])) or {}
        coauthors = frozenset(
            parse_name(a["author_name"]).block
            for a in paper.get("authors", [])
            if a.get("position") != info.get("position") and a.get("author_name")
        ) - {name.block}
        venue = fold(paper.get("venue") or paper.get("journal_name") or "")
        mentions.append(
            Mention(
                id=sid,
                name=name,
                affiliations=tuple(a for a in info.get("affiliations") or [] if a),
                coauthors=coauthors,
                categories=frozenset([venue]) if venue else frozenset(),
                year=paper.get("year"),
                paper=sig.get("paper_id"),
            )
        )

    must, cannot = [], []
    seeds_path = directory / "cluster_seeds.json"
    if seeds_path.exists():
        for a, others in json.loads(seeds_path.read_text()).items():
            for b, kind in others.items():
                (must if kind == "require" else cannot).append((a, b))
    return mentions, gold, must, cannot


def half_of(block: str) -> int:
    """0 or 1: the half a name block falls in (parity of the MD5 of its key), stable across runs."""
    return int(hashlib.md5(block.encode()).hexdigest(), 16) % 2


def _labels(clusters: Iterable[Iterable[Hashable]]) -> dict[Hashable, int]:
    return {m: i for i, c in enumerate(clusters) for m in c}


def scores(predicted: dict[Hashable, int], gold: dict[Hashable, str]) -> dict[str, float]:
    """Pairwise and B-cubed precision, recall and F1 of ``predicted`` against ``gold``.

    Both map mention id to a cluster label. Pairwise counts unordered pairs put together;
    B-cubed averages, per mention, the share of its predicted cluster that is correct
    (precision) and of its gold cluster that is found (recall).
    """
    pred_members: dict[int, set] = defaultdict(set)
    gold_members: dict[str, set] = defaultdict(set)
    for m, label in predicted.items():
        pred_members[label].add(m)
    for m, label in gold.items():
        gold_members[label].add(m)

    tp = fp = fn = 0
    for members in pred_members.values():
        counts: dict[str, int] = defaultdict(int)
        for m in members:
            counts[gold[m]] += 1
        n = len(members)
        same = sum(c * (c - 1) // 2 for c in counts.values())
        tp += same
        fp += n * (n - 1) // 2 - same
    for members in gold_members.values():
        counts2: dict[int, int] = defaultdict(int)
        for m in members:
            counts2[predicted[m]] += 1
        n = len(members)
        fn += n * (n - 1) // 2 - sum(c * (c - 1) // 2 for c in counts2.values())

    bp = br = 0.0
    for m in gold:
        p_set, g_set = pred_members[predicted[m]], gold_members[gold[m]]
        inter = len(p_set & g_set)
        bp += inter / len(p_set)
        br += inter / len(g_set)
    bp /= len(gold)
    br /= len(gold)

    def f1(p: float, r: float) -> float:
        return 2 * p * r / (p + r) if p + r else 0.0

    pp = tp / (tp + fp) if tp + fp else 1.0
    pr = tp / (tp + fn) if tp + fn else 1.0
    return {
        "pairwise_precision": pp,
        "pairwise_recall": pr,
        "pairwise_f1": f1(pp, pr),
        "bcubed_precision": bp,
        "bcubed_recall": br,
        "bcubed_f1": f1(bp, br),
    }


def ceiling(mentions: list[Mention], gold: dict[Hashable, str]) -> dict[Hashable, str]:
    """The best labelling a method can give that treats mentions with identical evidence alike.

    Mentions with the same name, affiliations, co-authors, categories and year are one
    "atom"; every atom is given the gold person holding most of its mentions. Returns
    mention id to label (a gold cluster id). An upper bound, not a method: it reads the gold.
    """
    atoms: dict[tuple, list[Hashable]] = defaultdict(list)
    for m in mentions:
        atoms[(m.name.given, m.name.key, m.aff_keys, m.coauthors, m.categories, m.year)].append(m.id)
    out = {}
    for ids in atoms.values():
        counts: dict[str, int] = defaultdict(int)
        for i in ids:
            counts[gold[i]] += 1
        best = max(sorted(counts), key=counts.__getitem__)
        out.update(dict.fromkeys(ids, best))
    return out


def _rows(mentions: list[Mention], gold: dict, clusters: list, suffix: str, baseline: bool) -> list:
    """Table rows ``(label, scores)``: the matcher's clusters, then the naive baselines and
    the :func:`ceiling`."""
    rows = [(f"matcher{suffix}", scores(_labels(clusters), gold))]
    if baseline:
        by_name: dict[str, list] = defaultdict(list)
        for m in mentions:
            by_name[f"{m.name.given[:1]} {m.name.family}"].append(m.id)
        rows.append((f"first+last name{suffix}", scores(_labels(by_name.values()), gold)))
        by_aff: dict[tuple, list] = defaultdict(list)
        for m in mentions:
            by_aff[(m.name.given[:1], m.name.family, tuple(sorted(m.affiliations)))].append(m.id)
        rows.append((f"name+exact affil.{suffix}", scores(_labels(by_aff.values()), gold)))
        rows.append((f"ceiling{suffix}", scores(ceiling(mentions, gold), gold)))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the bench; prints one table and returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also print the naive baselines (first+last name; name + exact affiliations) and the "
        "ceiling (identical evidence, identical person: each atom given its majority gold person)",
    )
    parser.add_argument(
        "--halves", action="store_true", help="also score each half of the name blocks (h0, h1)"
    )
    parser.add_argument("--no-seeds", action="store_true", help="ignore cluster_seeds.json constraints")
    args = parser.parse_args(argv)

    mentions, gold, must, cannot = load_mentions(args.directory)
    if args.no_seeds:
        must, cannot = [], []
    started = time.perf_counter()
    clusters = cluster_mentions(mentions, must_link=must, cannot_link=cannot, threshold=args.threshold)
    elapsed = time.perf_counter() - started
    rows = _rows(mentions, gold, clusters, "", args.baseline)
    if args.halves:
        for half in (0, 1):
            part = [m for m in mentions if half_of(m.name.block) == half]
            ids = {m.id for m in part}
            part_gold = {k: v for k, v in gold.items() if k in ids}
            part_clusters = cluster_mentions(
                part,
                must_link=[p for p in must if ids.issuperset(p)],
                cannot_link=[p for p in cannot if ids.issuperset(p)],
                threshold=args.threshold,
            )
            rows += _rows(part, part_gold, part_clusters, f" h{half}", args.baseline)

    print(
        f"{args.directory.name}: {len(mentions)} signatures, {len(set(gold.values()))} gold "
        f"clusters, {len(clusters)} predicted ({elapsed:.2f} s)"
    )
    print(f"{'':21} {'pair P':>7} {'pair R':>7} {'pair F1':>7} {'B3 P':>7} {'B3 R':>7} {'B3 F1':>7}")
    for label, s in rows:
        print(
            f"{label:21} {s['pairwise_precision']:7.3f} {s['pairwise_recall']:7.3f} "
            f"{s['pairwise_f1']:7.3f} {s['bcubed_precision']:7.3f} {s['bcubed_recall']:7.3f} "
            f"{s['bcubed_f1']:7.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
