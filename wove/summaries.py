"""Kept page summaries: aggregates stored in a table per kind, stamped with a count (issue #11).

:class:`researchers.models.ResearcherSummary` and
:class:`institutions.models.InstitutionSummary` share one shape: the owner as primary key,
a stamp column (the owner's paper or link count when computed), ``computed_at`` and a JSON
``data`` carrying a ``version``. These two helpers read and write such rows.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone


def summary_read(model: type[models.Model], pk: int, *, stamp_field: str, stamp: int, version: int) -> Any:
    """The stored ``data`` of ``model`` row ``pk`` when its ``stamp_field`` equals ``stamp``
    and its data is of ``version``; ``None`` otherwise (no row, stale, other version).
    One query."""
    row = model.objects.filter(pk=pk).values(stamp_field, "data").first()
    if row is None or row[stamp_field] != stamp:
        return None
    data = row["data"]
    return data if isinstance(data, dict) and data.get("version") == version else None


def summary_store(
    model: type[models.Model], pk: int, *, stamp_field: str, stamp: int, data: dict, extra: dict | None = None
) -> None:
    """Upsert ``model`` row ``pk`` with ``stamp``, now, ``data`` and the ``extra`` fields
    (``{field: value}``) (``INSERT ... ON CONFLICT DO UPDATE``: two writers at once both
    succeed, the last one wins)."""
    owner = model._meta.pk.attname
    extra = extra or {}
    model.objects.bulk_create(
        [model(**{owner: pk, stamp_field: stamp, "computed_at": timezone.now(), "data": data, **extra})],
        update_conflicts=True,
        unique_fields=[model._meta.pk.name],
        update_fields=[stamp_field, "computed_at", "data", *extra],
    )


def summary_read_kept(model: type[models.Model], pk: int, *, version: int) -> Any:
    """The stored ``data`` of ``model`` row ``pk`` when it is of ``version``, whatever its stamp:
    for pages that trust the pipeline to keep the row current (checking the stamp would
    count the owner's rows on every view). ``None`` when there is no such row. One query."""
    data = model.objects.filter(pk=pk).values_list("data", flat=True).first()
    return data if isinstance(data, dict) and data.get("version") == version else None
