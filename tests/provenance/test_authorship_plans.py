"""The authorship signing batch's reads stay within its papers whatever join the planner picks
(issue 29): at 100,000 papers, the pending rows of 200 papers hash-joined a parallel scan of
every author slot (33 ms a batch, growing with the archive; 3 ms bounded)."""

from __future__ import annotations

import pytest

from provenance.authorships import _PENDING_ROWS_SQL
from tests.plans import plan_nodes, plan_of
from wove.bulk import int_array

pytestmark = pytest.mark.django_db

# The tables a batch's papers bound (the signing rows, keyed by slot, are probed one by one).
BOUNDED = {"papers_paperauthor", "researchers_authorship"}


def _unbounded_reads(plan: dict) -> list[str]:
    """Scans of :data:`BOUNDED` tables with no index condition: each reads the whole table."""
    found = []
    for node in plan_nodes(plan):
        if node.get("Relation Name") not in BOUNDED:
            continue
        bounded = "Index Cond" in node or "Recheck Cond" in node  # an index or a bitmap's
        if not bounded:
            found.append(f"{node['Node Type']} on {node['Relation Name']}")
    return found


@pytest.mark.parametrize("off", [("seqscan",), ("seqscan", "nestloop")], ids=["any join", "no nested loop"])
def test_a_batchs_pending_rows_read_only_its_papers_slots(off):
    # With nested loops off the planner must hash or merge the joins, as it chose to for the
    # 940 rows it estimated at 100 k papers: each side is still read by the papers' ids.
    plan = plan_of(_PENDING_ROWS_SQL, {"papers": int_array(range(50_001, 50_201))}, off=off)
    assert _unbounded_reads(plan) == []
