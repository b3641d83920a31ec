"""Hybrid "dark matter" on the real sample (issue 28): the list is the keyword matches and the
papers above the similarity floor, its count is that set, and the facets count it too.

With the old floor (0.35) and a fixed 200-paper list, the page said "200 papers" where 67
match the words, padded with debris disks and Seyfert galaxies (astro-ph 161). The papers
embedded here: every keyword match of "dark matter" (67, read through the search vector),
the eight dark-energy papers that are above the floor without the words, and six of the old
padding (similarities 0.356-0.377, read with bench/similarity_floor.py's exact cosine).

Run with the PyTorch model ("minilm", 256 word pieces), whose floor this story is about. The
int8 model of issue 29 reads 64 word pieces and separates these papers less well: two of the
dark-energy papers fall to 0.423 and 0.429, below its floor 0.43, and the nearest Seyfert paper
rises to 0.423, below it too (BENCHMARKS.md, "Embedding models").
"""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.postgres.search import SearchQuery

from pages.search import PaperSearch, rank, tab_counts
from pages.search_facets import paper_facets
from papers.models import Paper
from semantic import services
from semantic.embedders import min_similarity, reset_embedders
from semantic.search_model import forget_search_model

ABOVE_FLOOR = [
    *("0801.4529", "0801.4526", "0705.0319", "0705.0020"),
    *("0704.0680", "0704.0312", "0704.0186", "0704.0077"),
]
# Seyfert galaxies and a debris disk: close to "dark matter" in MiniLM, not about it.
PADDING = ["0704.0721", "0801.4340", "0704.0645", "0704.0768", "0801.4560", "0801.4338"]


@pytest.fixture(autouse=True)
def _pytorch_model(settings):
    # Autouse: set before semantic_ready loads the configured model.
    settings.SEMANTIC_MODEL = "minilm"
    reset_embedders()
    forget_search_model()
    yield
    reset_embedders()
    forget_search_model()


def _embed_the_candidates() -> set[int]:
    query = SearchQuery("dark matter", search_type="websearch", config="english")
    keyword = set(Paper.objects.public().filter(search_vector=query).values_list("pk", flat=True))
    others = set(Paper.objects.filter(arxiv_id__in=ABOVE_FLOOR + PADDING).values_list("pk", flat=True))
    assert (len(keyword), len(others)) == (67, 14)
    services.embeddings_update(paper_ids=keyword | others)
    return keyword


def test_hybrid_dark_matter_lists_matches_and_papers_above_the_floor(semantic_ready, sample_papers, client):
    keyword = _embed_the_candidates()
    assert min_similarity(semantic_ready.name) == 0.46
    body = client.get("/api/v1/papers", {"q": "dark matter", "sort": "relevance", "size": 100}).json()
    listed = {p["arxiv_id"] for p in body["items"]}
    assert (body["count"], body["count_capped"], len(listed)) == (75, False, 75)
    by_pk = dict(Paper.objects.filter(arxiv_id__in=listed).values_list("arxiv_id", "pk"))
    assert {a for a in listed if by_pk[a] not in keyword} == set(ABOVE_FLOOR)
    assert not listed & set(PADDING)
    # The page says the same count, without a "+", and its facets count those 75 papers.
    page = client.get("/search", {"q": "dark matter"}).content.decode()
    assert ">75 papers · page 1 of 4<" in " ".join(page.split())
    search = rank(PaperSearch(q="dark matter"))
    assert tab_counts(search)["papers"] == 75 and not search.capped
    facets = paper_facets(search)
    categories = Counter(
        code
        for codes in Paper.objects.filter(pk__in=search.ranked_ids).values_list("categories", flat=True)
        for code in codes
    )
    assert {f.value: f.count for f in facets["categories"]} == dict(categories.most_common(12))
    assert sum(f.count for f in facets["years"]) == 75


def test_the_old_floor_let_the_padding_in(semantic_ready, sample_papers, client, settings):
    # What the list held before the floor was chosen on the judged queries.
    _embed_the_candidates()
    settings.SEMANTIC_MIN_SIMILARITY = 0.35
    body = client.get("/api/v1/papers", {"q": "dark matter", "sort": "relevance", "size": 100}).json()
    assert set(PADDING) <= {p["arxiv_id"] for p in body["items"]}
    assert body["count"] == 81
