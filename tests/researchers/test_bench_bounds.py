"""bench/disambiguation_bounds.py: the placement rule checked by hand, and the tables on the
Qian development half agreeing with bench/disambiguation.py."""

import sys

from researchers.clustering import Mention
from researchers.names import parse_name
from tests.conftest import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import disambiguation_bounds as bounds  # noqa: E402

QIAN = FIXTURES / "disambiguation" / "s2and_qian_dev"


def _wei_wang(i: str, affiliation: str = "") -> Mention:
    return Mention(id=i, name=parse_name("Wei Wang"), affiliations=(affiliation,) if affiliation else ())


def test_mentions_without_affiliation_join_their_names_largest_group():
    # Two Fudan mentions labelled "f", one Tsinghua labelled "t"; 4 has no affiliation,
    # 5 ("Li Na") has neither an affiliation nor a placed namesake, so it stays alone.
    mentions = [
        _wei_wang("1", "Fudan University"),
        _wei_wang("2", "Fudan University"),
        _wei_wang("3", "Tsinghua University"),
        _wei_wang("4"),
        Mention(id="5", name=parse_name("Li Na")),
    ]
    placed = bounds._place_without_affiliation(mentions, {"1": "f", "2": "f", "3": "t"})
    assert placed["4"] == "f"
    assert placed["5"] == ("alone", (("li",), "na"))


def test_groups_unmerged_are_the_pair_merges_with_the_placement_rule():
    mentions = [
        _wei_wang("1", "Fudan University"),
        _wei_wang("2", "Fudan University, Shanghai"),
        _wei_wang("3", "Tsinghua University"),
        _wei_wang("4"),
    ]
    groups = bounds.Groups(mentions)
    # Fudan's two strings share the naming word "fudan": one group; Tsinghua another.
    assert sorted(groups.groups) == [("1", "2"), ("3",)]
    assert len(groups.pairs) == 1
    labels = groups.labels([False])
    assert labels["1"] == labels["2"] == labels["4"] != labels["3"]
    merged = groups.labels([True])
    assert len(set(merged.values())) == 1


def test_qian_tables_agree_with_the_matcher_bench(capsys):
    assert bounds.main([str(QIAN)]) == 0
    out = capsys.readouterr().out
    # The matcher row is bench/disambiguation.py --halves's: h0 0.815, h1 0.853 (BENCHMARKS.md).
    h0, h1 = out.split("h1:")
    assert "+ few groups (matcher)                   B3 P 0.823  R 0.807  F1 0.815" in h0
    assert "+ few groups (matcher)                   B3 P 0.825  R 0.883  F1 0.853" in h1
    # Pair merges alone are precise; the oracles are upper bounds above the matcher.
    assert "pair merges only                         B3 P 0.977" in h0
    assert "oracle (a) groups merged as gold says    B3 P 0.864  R 0.911  F1 0.887" in h0
    assert "learned group merges, 5-fold CV over h0's name blocks:" in out
