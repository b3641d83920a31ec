"""wove.bulk's array literals as the right side of an ``__in`` lookup (``unnested``)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from papers.models import Category
from wove.bulk import int_array, text_array, unnested

pytestmark = pytest.mark.django_db


def test_unnested_literals_filter_as_the_lists_would():
    # arXiv category codes, one with a quote and a backslash no code holds: escaped, not SQL.
    for code in ("hep-ph", "math.IT", "cs.DC"):
        Category.objects.get_or_create(code=code, defaults={"name": code})
    wanted = ["math.IT", "hep-ph", 'x"y\\z']
    found = Category.objects.filter(code__in=unnested(text_array(wanted), "text")).order_by("code")
    assert list(found.values_list("code", flat=True)) == ["hep-ph", "math.IT"]
    users = [User.objects.create(username=name) for name in ("ada", "emmy", "lise")]
    by_id = User.objects.filter(pk__in=unnested(int_array([users[2].pk, users[0].pk, -1])))
    assert sorted(by_id.values_list("username", flat=True)) == ["ada", "lise"]


def test_unnested_refuses_a_type_it_does_not_know():
    with pytest.raises(ValueError, match="no array of 'text\\[\\]; DROP' here"):
        unnested("{1}", "text[]; DROP")
