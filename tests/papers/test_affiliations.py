"""The one affiliation normaliser: the words institutions' matching and researchers' clustering read."""

from __future__ import annotations

from papers.affiliations import affiliation_tokens, normalize, tokens


def test_normalize():
    assert normalize("The Univ. of Tokyo") == "university of tokyo"
    assert normalize("ETH Zürich") == "eth zurich"
    assert normalize("Brigham &amp; Women’s Hospital") == "brigham women s hospital"
    assert normalize("Université d'Ottawa") == normalize("Université d’Ottawa") == "universite d ottawa"
    assert tokens("University of California, Berkeley", breaks=True) == [
        "university", "of", "california", "|", "berkeley",
    ]  # fmt: skip
    assert tokens("University of Michigan-Flint", breaks=True)[-2:] == ["~", "flint"]


def test_affiliation_tokens_expand_abbreviations():
    assert affiliation_tokens(["Nat. Univ. of Singapore, Singapore 117576"]) == {
        "national",
        "university",
        "singapore",
    }
