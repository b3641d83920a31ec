"""wove.compiled.CompiledQuery: the ORM's SQL written once, run for other values (issue 28)."""

from __future__ import annotations

import pytest
from django.db.models import Q

from papers.models import Category
from wove.compiled import CompiledQuery

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
