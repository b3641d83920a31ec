"""wove.counts: large counts come from the cache, small ones are always exact."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from wove import counts


@pytest.fixture
def small_threshold(monkeypatch):
    cache.clear()
    monkeypatch.setattr(counts, "COUNT_CACHE_MIN", 3)
    yield
    cache.clear()


@pytest.mark.django_db
def test_large_counts_are_cached_small_ones_fresh(small_threshold):
    for name in ("a", "b", "c"):
        User.objects.create(username=name)
    assert counts.count_cached(User.objects.all()) == 3
    User.objects.create(username="d")
    assert counts.count_cached(User.objects.all()) == 3  # 3 >= the threshold: kept
    assert counts.count_cached(User.objects.filter(username__in=["a", "d"])) == 2
    User.objects.filter(username="d").delete()
    assert counts.count_cached(User.objects.filter(username__in=["a", "d"])) == 1  # below: fresh
    assert counts.count_cached(User.objects.none()) == 0
    paginator = counts.CachedCountPaginator(User.objects.order_by("username"), 2)
    assert paginator.count == 3 and paginator.num_pages == 2
