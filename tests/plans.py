"""Query plans for tests that pin how a read is served (issue 28: no page or stage read may
take a big table whole): EXPLAIN's JSON form with some of the planner's paths turned off."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db import connection, transaction


def plan_of(sql: str, params: list | tuple | None = None, *, off: tuple[str, ...] = ("seqscan",)) -> dict:
    """The root node of ``sql``'s plan (``EXPLAIN (FORMAT JSON)``, PostgreSQL's "Plan"
    object), planned with each ``enable_<name>`` of ``off`` set off for this one statement
    (``SET LOCAL`` in a savepoint: outside a transaction PostgreSQL ignores it). With
    ``seqscan`` off the planner scans a table sequentially only where no index can serve."""
    with transaction.atomic(), connection.cursor() as cursor:
        for name in off:
            cursor.execute(f"SET LOCAL enable_{name} = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
        for name in off:
            cursor.execute(f"SET LOCAL enable_{name} = on")
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return plan[0]["Plan"]


def plan_nodes(node: dict) -> Iterator[dict]:
    """``node`` and every node under it, depth first."""
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)
