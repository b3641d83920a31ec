"""wove.compiled.CompiledQuery: the ORM's SQL written once, run for other values (issue 28)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Prefetch, Q, Value
from django.test.utils import CaptureQueriesContext
from django.utils.text import slugify

from papers.models import Category, Paper, PaperVersion
from wove.compiled import CompiledQuery, attach_prefetched

pytestmark = pytest.mark.django_db


def test_each_value_gives_what_the_queryset_itself_gives():
    # arXiv's taxonomy, seeded by the migrations: hep-ph is High Energy Physics - Phenomenology.
    named = CompiledQuery(
        lambda code: Category.objects.filter(code=code).values("code", "name"), sentinel="?"
    )
    assert named.values("hep-ph") == [{"code": "hep-ph", "name": "High Energy Physics - Phenomenology"}]
    assert named.values("math.GT") == list(Category.objects.filter(code="math.GT").values("code", "name"))
    assert named.values("no-such-code") == []
    category = CompiledQuery(lambda code: Category.objects.filter(code=code), sentinel="?")
    assert category.first("cs.DC") == Category.objects.get(code="cs.DC")
    assert category.first("cs.DC").name == "Distributed, Parallel, and Cluster Computing"
    assert category.first("no-such-code") is None


def test_a_sentinel_that_is_not_exactly_one_parameter_is_refused():
    twice = CompiledQuery(
        lambda code: Category.objects.filter(Q(code=code) | Q(canonical_id=code)), sentinel="?"
    )
    with pytest.raises(ValueError, match="is 2 of the query's parameters"):
        twice.first("math.IT")


def _paper(arxiv_id: str, title: str, category: str, abstract: str = "") -> Paper:
    return Paper.objects.create(
        arxiv_id=arxiv_id,
        slug=slugify(title)[:80],
        title=title,
        abstract=abstract,
        primary_category_id=category,
        categories=[category],
    )


def _first_paper() -> Paper:
    """arXiv's first new-style identifier, as its OAI-PMH record gives it, with two versions."""
    paper = _paper(
        "0704.0001",
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
        "hep-ph",
    )
    PaperVersion.objects.create(paper=paper, version=2, size_kb=464)
    PaperVersion.objects.create(paper=paper, version=1, size_kb=432)
    return paper


def test_related_objects_annotations_and_prefetches_come_as_the_queryset_gives_them():
    paper = _first_paper()

    def build(arxiv_id: str):
        return (
            Paper.objects.select_related("primary_category")
            .prefetch_related(Prefetch("versions", queryset=PaperVersion.objects.order_by("version")))
            .annotate(shown=Value(1))
            .filter(arxiv_id=arxiv_id)[:1]
        )

    page = CompiledQuery(build, sentinel="compiled")
    for _ in range(2):  # compiled on the first call, reused on the second
        with CaptureQueriesContext(connection) as ctx:
            found = page.first("0704.0001")
            assert found.primary_category.name == "High Energy Physics - Phenomenology"
            assert [(v.version, v.size_kb) for v in found.versions.all()] == [(1, 432), (2, 464)]
        assert len(ctx.captured_queries) == 2  # the paper with its category, then its versions
        assert found == paper and found.shown == 1 and found.categories == ["hep-ph"]
    assert page.first("0704.0002") is None
    assert page.all("0704.0001") == list(build("0704.0001"))


def test_rows_read_apart_are_attached_as_a_prefetch_would_attach_them():
    paper = _first_paper()
    versions = CompiledQuery(
        lambda pk: PaperVersion.objects.filter(paper_id=pk).order_by("version"), sentinel=-1
    )
    found = Paper.objects.get(pk=paper.pk)
    attach_prefetched(found, "versions", versions.all(paper.pk))
    with CaptureQueriesContext(connection) as ctx:
        assert [(v.version, v.size_kb) for v in found.versions.all()] == [(1, 432), (2, 464)]
        assert found.versions.all().count() == 2
    assert ctx.captured_queries == []


def test_several_values_each_take_every_place_their_sentinel_holds():
    # hep-ph's name and its code: the name stands in two places, each value in its own.
    def build(code: str, name: str):
        return Category.objects.filter(Q(code=code) | Q(name=name), Q(name=name) | Q(code="")).values("code")

    either = CompiledQuery(build, sentinels=("\ue002code", "\ue002name"))
    assert either.values("math.GT", "High Energy Physics - Phenomenology") == list(
        build("math.GT", "High Energy Physics - Phenomenology")
    )
    assert either.values("math.GT", "High Energy Physics - Phenomenology") == [{"code": "hep-ph"}]
    assert either.values("hep-ph", "Geometric Topology") == [{"code": "math.GT"}]
    assert either.values("hep-ph", "no such name") == []
    with pytest.raises(TypeError, match="takes 2 values, not 1"):
        either.values("hep-ph")


def test_a_sentinel_the_query_does_not_hold_is_refused():
    # "1" is a parameter only as text: the integer sentinel 1 stands nowhere.
    absent = CompiledQuery(lambda code, n: Category.objects.filter(code=code, name="1"), sentinels=("?", 1))
    with pytest.raises(ValueError, match="the sentinel 1 is none of the query's parameters"):
        absent.values("hep-ph", 2)


def test_a_search_page_read_compiled_once_gives_the_marks_the_orm_gives():
    from pages.search import _INDEXED_PAGE, _indexed_page, web_words
    from wove.bulk import int_array

    # The first words of their abstracts, as arXiv's OAI-PMH records give them.
    paper = _first_paper()
    paper.abstract = (
        "A fully differential calculation in perturbative quantum chromodynamics is presented for "
        "the production of massive photon pairs at hadron colliders."
    )
    paper.save()
    other = _paper(
        "0704.0002",
        "Sparsity-certifying Graph Decompositions",
        "math.CO",
        "We describe a new algorithm, the $(k,\\ell)$-pebble game with colors, and use it obtain a "
        "characterization of the family of $(k,\\ell)$-sparse graphs and algorithmic solutions to a "
        "family of problems concerning tree decompositions of graphs.",
    )
    for words, ids in (("diphoton", [paper.pk]), ("graph", [other.pk, paper.pk])):
        compiled = _INDEXED_PAGE[True].all(web_words(words), int_array(ids))
        written = list(_indexed_page(web_words(words), int_array(ids), items=True))
        assert sorted((p.pk, p.title_marked, p.snippet) for p in compiled) == sorted(
            (p.pk, p.title_marked, p.snippet) for p in written
        )
    [marked] = _INDEXED_PAGE[False].all(web_words("diphoton"), int_array([paper.pk]))
    assert marked.title_marked == (
        "Calculation of prompt \ue000diphoton\ue001 production cross sections at Tevatron and LHC energies"
    )
    # No word of the abstract matches: ts_headline gives its opening, unmarked.
    assert marked.snippet == paper.abstract
    [graphs] = _INDEXED_PAGE[True].all(web_words("graph"), int_array([other.pk]))
    assert graphs.title_marked == "Sparsity-certifying \ue000Graph\ue001 Decompositions"
    assert graphs.snippet.endswith(
        "$(k,\\ell)$-sparse \ue000graphs\ue001 and algorithmic solutions to a family of problems "
        "concerning tree decompositions of \ue000graphs\ue001"
    )
