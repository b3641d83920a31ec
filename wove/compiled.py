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

    Raises ``ValueError`` on first use when the sentinel is not exactly one of the parameters.
    Reads go to the database Django's routers choose for the queryset's model (a replica,
    :mod:`wove.replicas`), as the queryset itself would.
    """

    def __init__(
        self, build: Callable[[Any], QuerySet[M]], *, sentinel: Any, json_columns: Iterable[str] = ()
    ) -> None:
        self._build = build
        self._sentinel = sentinel
        self._json_columns = tuple(json_columns)
        self._compiled: tuple[QuerySet[M], SQLCompiler, str, tuple, int] | None = None

    def _parts(self, value: Any) -> tuple[QuerySet[M], SQLCompiler, str, list]:
        if self._compiled is None:
            queryset = self._build(self._sentinel)
            # The compiler keeps what it worked out while writing the SQL (the selected
            # columns, the select_related tree, the annotations' positions): each run reads
            # its rows with a copy of it.
            compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
            sql, params = compiler.as_sql()
            at = [i for i, param in enumerate(params) if param == self._sentinel]
            if len(at) != 1:
                raise ValueError(
                    f"the sentinel {self._sentinel!r} is {len(at)} of the query's parameters, not one"
                )
            self._compiled = (queryset, compiler, sql, tuple(params), at[0])
        queryset, compiler, sql, params, at = self._compiled
        args = list(params)
        args[at] = value
        return queryset, compiler, sql, args

    def all(self, value: Any) -> list[M]:
        """The model instances the queryset gives for ``value``, as iterating it would give
        them: its ``select_related`` objects attached, annotations as attributes, the field
        converters applied, then its ``prefetch_related`` lookups run (each a queryset of its
        own, compiled as usual)."""
        queryset, compiler, sql, args = self._parts(value)
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

    def first(self, value: Any) -> M | None:
        """The first model instance :meth:`all` gives for ``value``, or ``None`` (slice the
        queryset, ``[:1]``, so that PostgreSQL stops at it)."""
        found = self.all(value)
        return found[0] if found else None

    def values(self, value: Any) -> list[dict[str, Any]]:
        """The rows of a ``values()`` queryset for ``value``, each a dict keyed as
        ``values()`` names them (``"authorship__researcher_id"``)."""
        queryset, _compiler, sql, args = self._parts(value)
        with connections[router.db_for_read(queryset.model)].cursor() as cursor:
            cursor.execute(sql, args)
            names = [column.name for column in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        for row in rows:
            for column in self._json_columns:
                if isinstance(row[column], str):
                    row[column] = json.loads(row[column])
        return rows


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
