"""Where the clustering loses B-cubed F1 on an S2AND set, and what that set's evidence can buy.

Usage: ``python bench/disambiguation_bounds.py DIR [--folds 5]``

Issue 20 asks for B-cubed F1 >= 0.85 on each half of S2AND's Qian development set
(``bench/disambiguation.py --halves``). This bench measures why the development half h0
stays near 0.82. For each half it prints:

1. **Stages** of :func:`researchers.clustering.cluster_mentions`: pair merges only, then the
   mentions without evidence, the dominant-group rule and the few-groups rule (the matcher).
2. **Oracles**, which read the gold and are not methods: (a) the affiliation groups that the
   pair merges leave are merged as the gold says, and each mention without an affiliation
   joins its name's largest group (the matcher's rule); (b) the matcher's groups are kept,
   and each mention without an affiliation joins the group holding most of its gold person.
   They show what each of the two decisions left to step 4-5 is worth.
3. **Learned** decision (a): whether two affiliation groups of one name are one person, from
   every feature the set carries for a group pair (the two group sizes, the name's number of
   groups and mentions, its commonness (:class:`researchers.clustering.NamePriors`), its share
   of mentions without affiliation, the Jaccard overlap of all affiliation words, generic ones
   included). Logistic regression and gradient-boosted trees (scikit-learn, installed with
   sentence-transformers) are fitted by K-fold cross-validation over the name blocks of h0
   (:func:`disambiguation.fold_of`); groups merge in descending probability above a threshold
   chosen on h0's out-of-fold predictions (which flatters h0, never h1); the model fitted on
   all of h0 is then applied to h1.
4. **Author position**: the share of same-name signature pairs that are one person, by
   whether their author positions agree (the one field of ``signatures.json`` the matcher
   does not read).

Needs no database. About 10 s.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Hashable
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from disambiguation import _labels, fold_of, half_of, load_mentions, scores  # noqa: E402

from researchers.clustering import ClusterSettings, Mention, NamePriors, cluster_mentions  # noqa: E402

# Step 3 only: no mention without evidence placed, no dominant or few-groups rule.
PAIRS_ONLY = ClusterSettings(few_groups=1, dominant_share=math.inf, lone_share=math.inf)
STAGES = {
    "pair merges only": PAIRS_ONLY,
    "+ mentions without evidence": ClusterSettings(few_groups=1, dominant_share=math.inf),
    "+ dominant group": ClusterSettings(few_groups=1),
    "+ few groups (matcher)": ClusterSettings(),
}
THRESHOLDS = (0.3, 0.4, 0.5, 0.6)


def _name(m: Mention) -> tuple:
    return (m.name.given, m.name.key)


def _majority(ids: list[Hashable], gold: dict) -> str:
    return Counter(gold[i] for i in ids).most_common(1)[0][0]


def _place_without_affiliation(mentions: list[Mention], labels: dict) -> dict:
    """Each mention missing from ``labels`` (no affiliation) joins the label most mentions of
    its written name hold (the matcher's rule for mentions without evidence), else its own."""
    out = dict(labels)
    by_name: dict[tuple, Counter] = defaultdict(Counter)
    by_id = {m.id: m for m in mentions}
    for i, label in labels.items():
        by_name[_name(by_id[i])][label] += 1
    for m in mentions:
        if m.id not in out:
            held = by_name[_name(m)]
            out[m.id] = held.most_common(1)[0][0] if held else ("alone", _name(m))
    return out


class Groups:
    """The affiliation groups pair merges leave in one half, with a feature row per pair of
    groups of one written name: ``pairs`` lists ``(group_x, group_y, features)``."""

    def __init__(self, mentions: list[Mention]) -> None:
        self.mentions = mentions
        self.by_id = {m.id: m for m in mentions}
        with_affiliation = [m for m in mentions if m.aff_tokens]
        self.groups = [tuple(c) for c in cluster_mentions(with_affiliation, settings=PAIRS_ONLY)]
        priors = NamePriors.of(mentions)
        counts = Counter(_name(m) for m in mentions)
        by_name: dict[tuple, list[tuple]] = defaultdict(list)
        for group in self.groups:
            by_name[_name(self.by_id[group[0]])].append(group)
        self.pairs = []
        for name, groups in by_name.items():
            commonness = priors.commonness(self.by_id[groups[0][0]].name)
            placed = sum(len(g) for g in groups)
            common = [
                math.log(len(groups)),
                math.log1p(counts[name]),
                math.log(commonness) if commonness < math.inf else 0.0,
                float(commonness == math.inf),
                (counts[name] - placed) / counts[name],
            ]
            for x, y in itertools.combinations(groups, 2):
                small, large = sorted((len(x), len(y)))
                words_x, words_y = self._words(x), self._words(y)
                jaccard = len(words_x & words_y) / len(words_x | words_y)
                self.pairs.append((x, y, [math.log1p(small), math.log1p(large), jaccard, *common]))

    def _words(self, group: tuple) -> set[str]:
        return set().union(*(self.by_id[i].aff_tokens for i in group))

    def features(self) -> np.ndarray:
        return np.array([f for _x, _y, f in self.pairs])

    def same(self, gold: dict) -> np.ndarray:
        return np.array([_majority(list(x), gold) == _majority(list(y), gold) for x, y, _f in self.pairs])

    def folds(self, k: int) -> np.ndarray:
        return np.array([fold_of(self.by_id[x[0]].name.block, k) for x, _y, _f in self.pairs])

    def labels(self, merge: np.ndarray) -> dict:
        """Mention labels when the pairs flagged in ``merge`` are merged (transitively) and
        mentions without affiliation are placed by the matcher's rule."""
        parent = {g: g for g in self.groups}

        def find(g: tuple) -> tuple:
            while parent[g] != g:
                g = parent[g]
            return g

        for (x, y, _f), flag in zip(self.pairs, merge, strict=True):
            if flag:
                parent[find(y)] = find(x)
        labels = {i: find(g) for g in self.groups for i in g}
        return _place_without_affiliation(self.mentions, labels)


def oracles(groups: Groups, gold: dict) -> dict[str, dict[str, float]]:
    """Scores of the two oracles (module docstring, item 2) on one half."""
    merged = groups.labels(groups.same(gold))
    matcher = _labels(cluster_mentions(groups.mentions))
    by_person: dict[str, Counter] = defaultdict(Counter)
    for m in groups.mentions:
        if m.aff_tokens:
            by_person[gold[m.id]][matcher[m.id]] += 1
    placed = {
        m.id: matcher[m.id]
        if m.aff_tokens or not by_person[gold[m.id]]
        else by_person[gold[m.id]].most_common(1)[0][0]
        for m in groups.mentions
    }
    return {
        "(a) groups merged as gold says": scores(merged, gold),
        "(b) no-affiliation placed as gold says": scores(placed, gold),
    }


def _models() -> dict:
    return {
        "logistic regression": LogisticRegression(max_iter=2000),
        "gradient-boosted trees": GradientBoostingClassifier(n_estimators=100, max_depth=2, random_state=0),
    }


def learned(
    dev: Groups, dev_gold: dict, held: Groups, held_gold: dict, k: int
) -> list[tuple[str, float, float, float]]:
    """Rows ``(model, threshold, h0 out-of-fold B3 F1, h1 B3 F1)`` (module docstring, item 3)."""
    x, y, folds = dev.features(), dev.same(dev_gold), dev.folds(k)
    rows = []
    for name, model in _models().items():
        out_of_fold = np.zeros(len(y))
        for fold in range(k):
            train, test = folds != fold, folds == fold
            if test.any():
                out_of_fold[test] = model.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
        by_threshold = {t: scores(dev.labels(out_of_fold >= t), dev_gold)["bcubed_f1"] for t in THRESHOLDS}
        threshold = max(THRESHOLDS, key=by_threshold.__getitem__)
        model.fit(x, y)
        held_merge = model.predict_proba(held.features())[:, 1] >= threshold
        held_f1 = scores(held.labels(held_merge), held_gold)["bcubed_f1"]
        rows.append((name, threshold, by_threshold[threshold], held_f1))
    return rows


def position_agreement(directory: Path, mentions: list[Mention], gold: dict) -> dict[str, tuple[int, float]]:
    """``{"same position" | "different position": (pairs, share one person)}`` over pairs of
    signatures with one written name, positions read from ``signatures.json``."""
    signatures = json.loads((directory / "signatures.json").read_text())
    by_name: dict[tuple, list[Mention]] = defaultdict(list)
    for m in mentions:
        by_name[_name(m)].append(m)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for same_name in by_name.values():
        for a, b in itertools.combinations(same_name, 2):
            pa = signatures[a.id]["author_info"].get("position")
            pb = signatures[b.id]["author_info"].get("position")
            if pa is None or pb is None:
                continue
            row = counts["same position" if pa == pb else "different position"]
            row[0] += 1
            row[1] += gold[a.id] == gold[b.id]
    return {key: (n, same / n) for key, (n, same) in counts.items()}


def _line(label: str, s: dict[str, float]) -> str:
    p, r, f1 = s["bcubed_precision"], s["bcubed_recall"], s["bcubed_f1"]
    return f"  {label:40} B3 P {p:.3f}  R {r:.3f}  F1 {f1:.3f}"


def main(argv: list[str] | None = None) -> int:
    """Print the four tables of the module docstring; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args(argv)
    mentions, gold, _must, _cannot = load_mentions(args.directory)
    halves = {}
    for half in (0, 1):
        part = [m for m in mentions if half_of(m.name.block) == half]
        part_gold = {m.id: gold[m.id] for m in part}
        halves[half] = (Groups(part), part_gold)
        print(f"h{half}: {len(part)} signatures, {len(set(part_gold.values()))} people")
        for label, settings in STAGES.items():
            print(_line(label, scores(_labels(cluster_mentions(part, settings=settings)), part_gold)))
        for label, s in oracles(*halves[half]).items():
            print(_line(f"oracle {label}", s))
        for label, (n, share) in position_agreement(args.directory, part, part_gold).items():
            print(f"  same-name pairs, {label}: {n}, one person {share:.2f}")
    print(f"learned group merges, {args.folds}-fold CV over h0's name blocks:")
    for name, threshold, dev_f1, held_f1 in learned(*halves[0], *halves[1], args.folds):
        print(f"  {name:24} threshold {threshold}  h0 (out of fold) {dev_f1:.3f}  h1 {held_f1:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
