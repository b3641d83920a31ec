"""wove.compiled.CompiledQuery: the ORM's SQL written once, run for other values (issue 28)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Prefetch, Q, Value
from django.test.utils import CaptureQueriesContext

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


def _first_paper() -> Paper:
    """arXiv's first new-style identifier, as its OAI-PMH record gives it, with two versions."""
    paper = Paper.objects.create(
        arxiv_id="0704.0001",
        slug="calculation-of-prompt-diphoton-production-cross-sections",
        title="Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
        primary_category_id="hep-ph",
        categories=["hep-ph"],
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
