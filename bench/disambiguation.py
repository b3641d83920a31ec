"""Author-disambiguation quality of the matcher's clustering on S2AND-layout data.

Usage: ``python bench/disambiguation.py DIR [--threshold 0.5] [--baseline] [--halves] [--cv K]``

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
import itertools
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papers.text import fold  # noqa: E402
from researchers.clustering import THRESHOLD, ClusterSettings, Mention, cluster_mentions  # noqa: E402
from researchers.names import parse_name  # noqa: E402


def load_mentions(directory: Path) -> tuple[list[Mention], dict[str, str], list, list]:
    """Read an S2AND folder into mentions, gold labels and seed constraints.

    Returns ``(mentions, gold, must_link, cannot_link)`` where ``gold`` maps signature id to
    gold cluster id. Co-authors come from ``papers.json`` authors (other positions), with
    the given names written in each of their blocks; the venue stands in for arXiv
    categories.
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
        others = [
            parse_name(a["author_name"])
            for a in paper.get("authors", [])
            if a.get("position") != info.get("position") and a.get("author_name")
        ]
        coauthors = frozenset(o.block for o in others) - {name.block}
        givens: dict[str, list] = defaultdict(list)
        for other in others:
            givens[other.block].append(other.given)
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
                coauthor_givens={b: tuple(g) for b, g in givens.items()} if paper else None,
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


def fold_of(block: str, k: int) -> int:
    """0..k-1: the cross-validation fold of a name block inside a half (the MD5 bits above
    the one :func:`half_of` reads), stable across runs."""
    return (int(hashlib.md5(block.encode()).hexdigest(), 16) >> 1) % k


# The settings --cv searches (ClusterSettings fields); the rest keep their defaults.
GRID = {
    "threshold": (0.4, 0.5, 0.6),
    "few_groups": (2, 3, 4, 6, 8),
    "few_groups_common": (1, 2),
    "common_name": (math.inf, 0.02, 0.05),
    "dominant_share": (0.3, 0.5),
    "small_group": (2, 3),
    "lone_share": (0.0, 0.3),
}


def _grid() -> list[ClusterSettings]:
    keys = list(GRID)
    out = []
    for values in itertools.product(*(GRID[k] for k in keys)):
        chosen = dict(zip(keys, values, strict=True))
        if chosen.get("common_name") == math.inf and chosen.get("few_groups_common", 1) != 1:
            continue  # no name is common: few_groups_common is never read
        out.append(ClusterSettings(**chosen))
    return out


def _subset_scores(labels: dict, gold: dict, ids: set) -> dict[str, float]:
    return scores({k: v for k, v in labels.items() if k in ids}, {k: v for k, v in gold.items() if k in ids})


def _changed(setting: ClusterSettings) -> int:
    """How many fields of ``setting`` differ from the defaults (the simpler, the fewer)."""
    default = ClusterSettings()
    return sum(getattr(setting, key) != getattr(default, key) for key in GRID)


def choose(rows: list[tuple[ClusterSettings, list[float]]]) -> ClusterSettings:
    """The one-standard-error rule: of the settings whose mean F1 over the folds is within one
    standard error (sd / sqrt(folds)) of the best mean, the one changing fewest defaults
    (then the best mean). A grid this flat otherwise picks fold noise."""
    means = [statistics.fmean(f) for _s, f in rows]
    best = max(range(len(rows)), key=means.__getitem__)
    folds = rows[best][1]
    bar = means[best] - statistics.stdev(folds) / math.sqrt(len(folds))
    near = [i for i in range(len(rows)) if means[i] >= bar]
    return rows[min(near, key=lambda i: (_changed(rows[i][0]), -means[i]))][0]


def cross_validate(mentions: list[Mention], gold: dict, k: int) -> dict:
    """Choose :class:`ClusterSettings` by ``k``-fold cross-validation over name blocks.

    Every setting of :data:`GRID` clusters ``mentions`` once (the name priors, IDF and
    institution names are learned from these unlabelled mentions); its B-cubed F1 is then
    computed on each fold's mentions (a fold is a set of name blocks, :func:`fold_of`).
    Returns ``{"rows": [(settings, [F1 per fold])], "chosen": :func:`choose` over all folds,
    "nested": [F1 of fold i under the setting chosen on the other folds]}``: the nested list
    estimates what the choosing itself is worth on blocks it did not see.
    """
    folds = [{m.id for m in mentions if fold_of(m.name.block, k) == i} for i in range(k)]
    rows = []
    for setting in _grid():
        labels = _labels(cluster_mentions(mentions, settings=setting))
        rows.append((setting, [_subset_scores(labels, gold, ids)["bcubed_f1"] for ids in folds]))
    nested = []
    for i in range(k):
        chosen = choose([(s, [f for j, f in enumerate(folds) if j != i]) for s, folds in rows])
        nested.append(next(folds[i] for s, folds in rows if s == chosen))
    return {"rows": rows, "chosen": choose(rows), "nested": nested}


def _print_cv(result: dict, k: int, top: int = 15) -> None:
    rows = sorted(result["rows"], key=lambda r: -statistics.fmean(r[1]))
    print(f"--cv {k} over the name blocks of h0: {len(rows)} settings, best {top} by mean B3 F1")
    for setting, folds in rows[:top]:
        shown = {key: value for key, value in asdict(setting).items() if key in GRID}
        print(
            f"  {statistics.fmean(folds):.3f} (sd {statistics.stdev(folds):.3f}) "
            f"{' '.join(f'{f:.3f}' for f in folds)}  {shown}"
        )
    chosen = result["chosen"]
    folds = next(f for s, f in result["rows"] if s == chosen)
    print(f"chosen (one-standard-error rule): {statistics.fmean(folds):.3f} {asdict(chosen)}")
    print(
        f"nested estimate (each fold under the setting chosen on the others): "
        f"{statistics.fmean(result['nested']):.3f} ({' '.join(f'{f:.3f}' for f in result['nested'])})"
    )


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
    parser.add_argument(
        "--cv",
        type=int,
        metavar="K",
        help="choose the settings by K-fold cross-validation over the name blocks of h0 only",
    )
    args = parser.parse_args(argv)

    mentions, gold, must, cannot = load_mentions(args.directory)
    if args.cv:
        h0 = [m for m in mentions if half_of(m.name.block) == 0]
        _print_cv(cross_validate(h0, {m.id: gold[m.id] for m in h0}, args.cv), args.cv)
        return 0
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
