"""Reciprocal-rank fusion on hand-built rankings (arithmetic checkable by hand)."""

from __future__ import annotations

import pytest

from semantic.services import rrf_fuse


def test_rrf_scores_and_order_by_hand():
    # keyword: 1, 2, 3; semantic: 3, 1, 4. With k = 60:
    # 1 -> 1/61 + 1/62 = 0.032522; 3 -> 1/63 + 1/61 = 0.032266; 2 -> 1/62; 4 -> 1/63.
    fused = rrf_fuse([[1, 2, 3], [3, 1, 4]])
    assert [pk for pk, _ in fused] == [1, 3, 2, 4]
    scores = dict(fused)
    assert scores[1] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[3] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[2] == pytest.approx(1 / 62)
    assert scores[4] == pytest.approx(1 / 63)


def test_rrf_agreement_beats_a_single_first_place():
    # 7 is first in one list only; 8 is second in both: 2/62 > 1/61, so 8 leads.
    fused = rrf_fuse([[7, 8], [9, 8]])
    assert [pk for pk, _ in fused] == [8, 7, 9]


def test_rrf_ties_break_on_best_rank_then_id():
    # 5 and 2 swap places: equal scores and equal best rank (1) -> lower id first.
    assert [pk for pk, _ in rrf_fuse([[5, 2], [2, 5]])] == [2, 5]
    # One list only: scores follow the ranks.
    assert [pk for pk, _ in rrf_fuse([[4, 3, 9]])] == [4, 3, 9]


def test_rrf_empty_inputs():
    assert rrf_fuse([]) == []
    assert rrf_fuse([[], []]) == []
