"""Counts of big querysets through Django's cache, so pages do not count a million rows per view.

An exact ``COUNT(*)`` over a million papers costs 50-150 ms on two cores, on every home page,
list page and API page (issue #11). A count of at least :data:`COUNT_CACHE_MIN` rows is kept
in the default cache for :data:`COUNT_CACHE_SECONDS`, keyed by the query's SQL and
parameters; smaller counts are always run, exact and fresh (a small archive, and every test,
sees no difference).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property
from typing import TypeVar

from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db.models import QuerySet

from .paginator import SitePaginator

COUNT_CACHE_MIN = 10_000
COUNT_CACHE_SECONDS = 300
T = TypeVar("T")


def _key(queryset: QuerySet, prefix: str) -> str | None:
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:
        return None
    digest = hashlib.sha256(f"{sql}\x00{params!r}".encode()).hexdigest()
    return f"wove:{prefix}:{digest}"


def count_cached(queryset: QuerySet) -> int:
    """``queryset.count()``, from the cache when a previous count of at least
    :data:`COUNT_CACHE_MIN` rows was taken less than :data:`COUNT_CACHE_SECONDS` ago."""
    key = _key(queryset, "count")
    if key is None:
        return 0
    count = cache.get(key)
    if count is None:
        count = queryset.count()
        if count >= COUNT_CACHE_MIN:
            cache.set(key, count, COUNT_CACHE_SECONDS)
    return count


def cached_when_large(key: str, compute: Callable[[], T], *, size: int, minimum: int | None = None) -> T:
    """``compute()``, kept under ``key`` for :data:`COUNT_CACHE_SECONDS` when ``size`` (the
    number of rows it aggregates) is at least ``minimum`` (default :data:`COUNT_CACHE_MIN`);
    else computed afresh."""
    if size < (COUNT_CACHE_MIN if minimum is None else minimum):
        return compute()
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, COUNT_CACHE_SECONDS)
    return value


# Counts the pipeline keeps (the archive facts, pages.facts): apps below pages ask by name.
_KEPT_COUNTS: dict[str, Callable[[], int | None]] = {}


def kept_count_register(name: str, read: Callable[[], int | None]) -> None:
    """Supply the kept count ``name`` (``"researchers"``: listed researchers); ``read()``
    answers it, or ``None`` before it is first counted. Called from an app's ``ready()``."""
    _KEPT_COUNTS[name] = read


def kept_count(name: str) -> int | None:
    """The kept count ``name`` (:func:`kept_count_register`), or ``None`` when no app keeps
    it or it is not counted yet (callers count live)."""
    read = _KEPT_COUNTS.get(name)
    return read() if read is not None else None


class CachedCountPaginator(SitePaginator):
    """A :class:`wove.paginator.SitePaginator` whose total comes from :func:`count_cached`
    when ``object_list`` is a QuerySet, or is ``known_count`` when the caller already holds
    it (a researcher page's summary counts its papers)."""

    def __init__(self, object_list, per_page, *args, known_count: int | None = None, **kwargs) -> None:
        super().__init__(object_list, per_page, *args, **kwargs)
        self.known_count = known_count

    @cached_property
    def count(self) -> int:
        if self.known_count is not None:
            return self.known_count
        if isinstance(self.object_list, QuerySet):
            return count_cached(self.object_list)
        return super().count
