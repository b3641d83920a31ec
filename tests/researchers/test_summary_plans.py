"""The researcher summaries' batch reads start from the batch's own rows (issue 29): a first
load computes hundreds of thousands of summaries, so a read that takes a whole big table once
a batch costs the archive's size per 500 researchers. At 100,000 papers PostgreSQL hashed
every authorship of the archive for the co-authors and every author slot for the positions,
once a batch (BENCHMARKS.md, issue 29). Each read of a batch is planned again here, on the
matched sample, and no plan may read a big table without an index condition: neither a
sequential scan (turned off, so the planner takes one only where no index can serve) nor a
whole index (merge joins, which read one in order, turned off as well)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from researchers import summaries
from researchers.models import Researcher
from tests.plans import plan_nodes, plan_of

pytestmark = pytest.mark.django_db

BIG = ("papers_paper", "papers_paperauthor", "researchers_authorship", "researchers_researcher")


def _whole_reads(plan: dict) -> list[str]:
    """Big tables a node under ``plan`` (a plan's root node) reads with no index condition: a
    sequential scan, or every entry of an index."""
    return [
        f"{node['Node Type']} on {node['Relation Name']}"
        for node in plan_nodes(plan)
        if node.get("Node Type") in {"Seq Scan", "Index Scan", "Index Only Scan"}
        and node.get("Relation Name", "").startswith(BIG)
        and "Index Cond" not in node
    ]


def test_a_batch_reads_no_big_table_whole(matched_sample):
    batch = list(Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1).order_by("pk")[:500])
    assert len(batch) == 500
    with CaptureQueriesContext(connection) as ctx:
        computed = summaries.summaries_compute_many(batch)
    assert len(computed) == 500
    statements = ("SELECT", "WITH")
    selects = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith(statements)]
    assert len(selects) >= 5  # papers, co-authors (one read or two), identity sources, institutions, local
    # Statistics as autovacuum leaves them, whenever it ran: CI once (2026-12-07) planned the
    # institutions' read along the whole authorship index. Merge joins, which read an index
    # whole in order, off as well: at scale the batch's ids win.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE institutions_authoraffiliation, " + ", ".join(BIG))
    found = {
        " ".join(sql.split()[:8]): reads
        for sql in selects
        if (reads := _whole_reads(plan_of(sql, off=("seqscan", "mergejoin"))))
    }
    assert found == {}
