"""Querysets whose SQL the ORM writes once per process, then run with a new value each time.

A hot read path (the API's paper record, issue 28) spent more time in Django building and
compiling its querysets than PostgreSQL spent answering them: about 1 ms a query for a queryset
with joins or subquery annotations. :class:`CompiledQuery` keeps the SQL and parameters the
ORM wrote for one value and substitutes the next value for it, so the queryset stays the
single description of the query (its tables, joins and column names come from the models).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, router
from django.db.models import Model, QuerySet, prefetch_related_objects
from django.db.models.query import ModelIterable
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=Model)


class CompiledQuery(Generic[M]):
    """The SQL of ``build(value)``, compiled on first use and run for any ``value``.

    ``build`` takes one value and returns a queryset in which that value is the only parameter
    that changes between calls (a filter on it; constants may be parameters too). ``sentinel``
    is a value of the parameter's type that appears nowhere else among the parameters: the
    queryset is compiled for it, and its position is where later values go. ``json_columns``
    names the columns of a ``values()`` queryset that hold JSON (PostgreSQL's ``jsonb``
    arrives as text; the ORM's converters, skipped here, would have parsed it).

    A query with several changing values gives ``sentinels`` instead, one per argument of
    ``build`` (``build(*sentinels)``), and is run as ``all(value_1, value_2)``. Each of them
    may stand at several parameters (a search's words in two ``ts_headline`` calls), and
    every parameter equal to it takes its value: choose sentinels no constant of the query
    can equal (``"\ue002words"``).

    Raises ``ValueError`` on first use when the sentinel is not exactly one of the parameters
    (one of the ``sentinels`` is none of them), ``TypeError`` when run with the wrong number
    of values. Reads go to the database Django's routers choose for the queryset's model (a
    replica, :mod:`wove.replicas`), as the queryset itself would.
    """

    def __init__(
        self,
        build: Callable[..., QuerySet[M]],
        *,
        sentinel: Any = None,
        sentinels: Iterable[Any] | None = None,
        json_columns: Iterable[str] = (),
    ) -> None:
        self._build = build
        self._exactly_once = sentinels is None
        self._sentinels = (sentinel,) if sentinels is None else tuple(sentinels)
        self._json_columns = tuple(json_columns)
        self._compiled: tuple[QuerySet[M], SQLCompiler, str, tuple, tuple[tuple[int, ...], ...]] | None = None

    def _parts(self, values: tuple[Any, ...]) -> tuple[QuerySet[M], SQLCompiler, str, list]:
        if len(values) != len(self._sentinels):
            raise TypeError(f"this query takes {len(self._sentinels)} values, not {len(values)}")
        if self._compiled is None:
            queryset = self._build(*self._sentinels)
            # The compiler keeps what it worked out while writing the SQL (the selected
            # columns, the select_related tree, the annotations' positions): each run reads
            # its rows with a copy of it.
            compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
            sql, params = compiler.as_sql()
            places = []
            for sentinel in self._sentinels:
                at = tuple(i for i, param in enumerate(params) if _same(param, sentinel))
                if self._exactly_once and len(at) != 1:
                    raise ValueError(
                        f"the sentinel {sentinel!r} is {len(at)} of the query's parameters, not one"
                    )
                if not at:
                    raise ValueError(f"the sentinel {sentinel!r} is none of the query's parameters")
                places.append(at)
            self._compiled = (queryset, compiler, sql, tuple(params), tuple(places))
        queryset, compiler, sql, params, places = self._compiled
        args = list(params)
        for value, at in zip(values, places, strict=True):
            for i in at:
                args[i] = value
        return queryset, compiler, sql, args

    def all(self, *values: Any) -> list[M]:
        """The model instances the queryset gives for ``values`` (one, or one per sentinel),
        as iterating it would give them: its ``select_related`` objects attached, annotations
        as attributes, the field converters applied, then its ``prefetch_related`` lookups
        run (each a queryset of its own, compiled as usual)."""
        queryset, compiler, sql, args = self._parts(values)
        db = router.db_for_read(queryset.model)
        run = copy.copy(compiler)
        run.connection, run.using = connections[db], db
        # The SQL as written for the sentinel, with this value (shadows the method).
        run.as_sql = lambda *_args, **_kwargs: (sql, args)
        rows = QuerySet(model=queryset.model, using=db)  # (copying the queryset would run it)
        rows._query = _Written(run)
        found = list(ModelIterable(rows))
        if queryset._prefetch_related_lookups and found:
            prefetch_related_objects(found, *queryset._prefetch_related_lookups)
        return found

    def first(self, *values: Any) -> M | None:
        """The first model instance :meth:`all` gives for ``values``, or ``None`` (slice the
        queryset, ``[:1]``, so that PostgreSQL stops at it)."""
        found = self.all(*values)
        return found[0] if found else None

    def values(self, *values: Any) -> list[dict[str, Any]]:
        """The rows of a ``values()`` queryset for ``values``, each a dict keyed as
        ``values()`` names them (``"authorship__researcher_id"``)."""
        queryset, _compiler, sql, args = self._parts(values)
        with connections[router.db_for_read(queryset.model)].cursor() as cursor:
            cursor.execute(sql, args)
            names = [column.name for column in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        for row in rows:
            for column in self._json_columns:
                if isinstance(row[column], str):
                    row[column] = json.loads(row[column])
        return rows


def _same(param: Any, sentinel: Any) -> bool:
    """Whether a query parameter is the sentinel: of its type and equal. A constant ``True``
    or ``1.0`` equals an integer sentinel ``1`` in Python, but is not its place."""
    return type(param) is type(sentinel) and param == sentinel


def attach_prefetched(instance: Model, accessor: str, rows: list[Model]) -> None:
    """Make ``getattr(instance, accessor).all()`` give ``rows`` without a query, as
    ``prefetch_related(accessor)`` would have (Django keeps prefetched rows in
    ``_prefetched_objects_cache`` under the accessor's name), for rows read by a
    :class:`CompiledQuery` rather than by a prefetch compiled on every request."""
    model = getattr(type(instance), accessor).rel.related_model
    cached = QuerySet(model=model)
    cached._result_cache = list(rows)
    cached._prefetch_done = True
    if not hasattr(instance, "_prefetched_objects_cache"):
        instance._prefetched_objects_cache = {}
    instance._prefetched_objects_cache[accessor] = cached


class _Written:
    """Stands for a queryset's ``query`` where Django's ``ModelIterable`` asks it for its
    compiler: answers with one already written."""

    def __init__(self, compiler: SQLCompiler) -> None:
        self.compiler = compiler

    def get_compiler(self, *_args: Any, **_kwargs: Any) -> SQLCompiler:
        return self.compiler
