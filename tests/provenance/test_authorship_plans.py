"""The authorship signing batch's reads stay within its papers whatever join the planner picks
(issue 29; :mod:`provenance.authorships`, planned on the whole sample, matched): at 100,000
papers the pending rows of 200 papers hash-joined a parallel scan of every author slot (33 ms
a batch, growing with the archive; 3 ms bounded)."""

from __future__ import annotations

import pytest

from papers.models import Paper
from provenance.authorships import _PENDING_ROWS_SQL
from researchers.services import researchers_match_authors
from tests.plans import plan_nodes, plan_of
from wove.bulk import int_array

pytestmark = pytest.mark.django_db

# The tables a batch's papers bound (the signing rows, keyed by slot, are probed one by one).
BOUNDED = {"papers_paperauthor", "researchers_authorship"}


def _unbounded_reads(plan: dict) -> list[str]:
    """Scans of :data:`BOUNDED` tables with no index condition: each reads the whole table."""
    return [
        f"{node['Node Type']} on {node['Relation Name']}"
        for node in plan_nodes(plan)
        if node.get("Relation Name") in BOUNDED and "Index Cond" not in node and "Recheck Cond" not in node
    ]


def test_a_batchs_pending_rows_read_only_its_papers_slots(sample_papers):
    researchers_match_authors(sources=[])
    # 200 of the sample's 2,800 papers, as a batch. Merge joins off: the planner may merge-join
    # along the whole slot index (it did on a test database's few rows), which reads every slot
    # at any size. The 100 k database's statistics chose nested loops or (for the 940 rows it
    # estimated) a hash join: with either, each side is still read by the papers' ids.
    papers = list(Paper.objects.order_by("pk").values_list("pk", flat=True)[1000:1200])
    for off in (("seqscan", "mergejoin"), ("seqscan", "mergejoin", "nestloop")):
        plan = plan_of(_PENDING_ROWS_SQL, {"papers": int_array(papers)}, off=off)
        assert _unbounded_reads(plan) == [], off
