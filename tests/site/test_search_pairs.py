"""Word pairs in the search index (issue 28): a phrase of common words is found through the
pairs of its neighbouring words, with the same matches and scores as the phrase alone."""

from __future__ import annotations

import pytest

from papers import search_index
from papers.search_index import FIELD_BOOSTS
from papers.search_terms import (
    PAIR_FIELDS,
    TEXT_FIELDS,
    query_parts,
    query_text,
    required_phrases,
    word_pairs,
)
from papers.tasks import search_index_stage

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("title", "pairs"),
    [
        # Real sample titles (arXiv 0704.0003 and 0704.0013): stems of neighbouring words; a
        # stop word ("of", "the", "on") parts its neighbours, as it parts them in a phrase.
        (
            "The evolution of the Earth-Moon system based on the dark matter field fluid model",
            [
                "earth_moon",
                "moon_system",
                "system_base",
                "dark_matter",
                "matter_field",
                "field_fluid",
                "fluid_model",
            ],
        ),
        (
            "$p$-adic Limit of Weakly Holomorphic Modular Forms of Half Integral Weight",
            [
                "p_adic",
                "adic_limit",
                "weak_holomorph",
                "holomorph_modular",
                "modular_form",
                "half_integr",
                "integr_weight",
            ],
        ),
        ("state of the art", []),
        ("$T_c$", []),  # "t" is a stop word
        ("", []),
    ],
)
def test_word_pairs_are_the_stems_of_neighbouring_words(title, pairs):
    assert word_pairs(title) == pairs


@pytest.mark.parametrize(
    ("q", "phrases"),
    [
        ('"black hole" accretion', [(0, ["black_hole"])]),
        ("gamma-ray -burst", [(0, ["gamma_ray"])]),
        ('"theory of gravity"', []),  # no two neighbouring words
        ('"black hole" OR galaxy', []),  # OR: Tantivy groups the query
        ('-"dark matter" halo', []),  # excluded
    ],
)
def test_required_phrases_are_the_quoted_and_hyphenated_parts_with_pairs(q, phrases):
    assert required_phrases(query_parts(q)) == phrases


@pytest.fixture
def copy(sample_papers, settings, tmp_path):
    settings.SEARCH_INDEX_DIR = str(tmp_path / "search-index")
    settings.SEARCH_INDEX_MAX_LAG = 0
    assert search_index_stage(trigger="inline")["rebuilt"] is True
    return search_index.usable()


@pytest.mark.parametrize(
    "q",
    [
        '"black hole"',
        "black-hole accretion",
        '"dark matter" halo',
        '"gamma ray" -burst',
        '"neural network"',
        '"star formation" "galaxy cluster"',
        "X-ray binaries",
        '"magnetic field" -"neutron star"',
    ],
)
def test_a_phrase_found_through_its_pairs_ranks_and_scores_as_the_phrase_alone(copy, q):
    assert required_phrases(query_parts(q)), "the query takes the pairs' path"
    index = search_index._open(copy)
    searcher = index.searcher()
    # The reference: Tantivy's own parse of the whole query text, every phrase read by positions.
    alone = index.parse_query(
        query_text(q), list(TEXT_FIELDS), field_boosts=FIELD_BOOSTS, conjunction_by_default=True
    )
    expected = searcher.search(alone, 200)
    hits = search_index.search(q, copy=copy, limit=200)
    assert hits.count == expected.count > 0
    assert hits.ids == searcher.fast_field_values("id", [address for _score, address in expected.hits])
    assert hits.scores == pytest.approx([score for score, _address in expected.hits], rel=1e-6)


def test_each_fields_pairs_hold_every_paper_with_the_phrase_in_that_field(copy):
    # A phrase's matches in a field are a subset of the papers holding its pairs there (the
    # filter never drops a match); on the sample they are the same papers.
    index = search_index._open(copy)
    searcher = index.searcher()
    for field in TEXT_FIELDS:
        for phrase, pair in (("black hole", "black_hole"), ("dark matter", "dark_matter")):
            matched = searcher.search(index.parse_query(f'"{phrase}"', [field]), 1).count
            assert searcher.doc_freq(PAIR_FIELDS[field], pair) == matched
    assert searcher.doc_freq(PAIR_FIELDS["title"], "black_hole") > 0


def test_a_search_makes_its_phrases_pairs_once(copy, monkeypatch):
    # The query's terms are made once in search() and handed to the bound, the query and the
    # sample's estimate (twice or three times before, on every search's hot path).
    from papers import search_terms

    calls = []
    real = search_terms.word_pairs
    monkeypatch.setattr(search_terms, "word_pairs", lambda text: calls.append(text) or real(text))
    monkeypatch.setattr(search_index, "SAMPLE_FROM", 0)  # the sample's estimate is asked too
    hits = search_index.search('"black hole" accretion', copy=copy, limit=5)
    assert hits.count > 0
    assert calls == ["black hole"]
