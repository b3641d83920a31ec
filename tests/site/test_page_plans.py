"""Every query on a page's path reads through an index (issue 28): each page kind is opened on
the matched sample, every SELECT it ran is planned again with ``enable_seqscan = off``, and no
plan may still scan a big table sequentially (the planner falls back to a sequential scan
with that setting only where no index can serve the query), nor read a whole index of one to
find a few rows (its other fallback: an index scan with a filter and no index condition). At
200,000 papers the same survey found only the home page's counts reading whole tables; they
are kept rows now (pages.facts)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from institutions.models import Institution
from pages.tasks import archive_facts_stage
from papers.models import Collaboration, Paper
from researchers.models import Researcher
from tests.plans import plan_nodes, plan_of

pytestmark = pytest.mark.django_db

# Tables that grow with the archive (papers, their slots, versions, authorships, links,
# researchers, signed records, vectors); small lookup tables may be read whole.
BIG = (
    "papers_paper",
    "papers_paperauthor",
    "papers_paperversion",
    "researchers_authorship",
    "researchers_researcher",
    "institutions_authoraffiliation",
    "provenance_",
    "semantic_paperembedding",
    "researchers_nameword",
)


@pytest.fixture
def matched_sample(sample_papers):
    cache.clear()
    call_command("load_ror", "--no-progress", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    call_command("match_affiliations", "--no-progress")
    call_command("match_authors", "--no-progress")
    archive_facts_stage(trigger="test")
    yield
    cache.clear()


def _seq_scans(plan: dict, rows: dict[str, float]) -> list[str]:
    """Big tables the plan reads whole: a sequential scan, or an index scan with a filter, no
    index condition and few rows expected of many (every entry of the index read to find a
    few: what the planner does without a usable index when sequential scans are off; a
    filter most rows pass, under a LIMIT, stops early). ``plan``: a plan's root node;
    ``rows``: the tables' row estimates."""
    found = []
    for node in plan_nodes(plan):
        table = node.get("Relation Name", "")
        whole_index = (
            node.get("Node Type") in {"Index Scan", "Index Only Scan"}
            and "Filter" in node
            and "Index Cond" not in node
            and node.get("Plan Rows", 0) < 0.05 * rows.get(table, 0)
        )
        if (node.get("Node Type") == "Seq Scan" or whole_index) and table.startswith(BIG):
            found.append(table)
    return found


def _page_kinds() -> dict[str, str]:
    paper = Paper.objects.public().order_by("arxiv_id")[100]
    researcher = Researcher.objects.listed().first()
    institution = (
        Institution.objects.listed().filter(author_links__isnull=False).distinct().order_by("pk").first()
    )
    return {
        "paper page": paper.get_absolute_url(),
        "researcher page": researcher.get_absolute_url(),
        "institution page": institution.get_absolute_url(),
        "search page": "/search?q=black+hole&mode=keyword",
        "home page": "/",
        "paper list": "/papers/?category=hep-th",
        "API paper record": f"/api/v1/papers/{paper.arxiv_id}",
        "API papers ?q=": "/api/v1/papers?q=black+hole",
        "API researchers ?q=": "/api/v1/researchers?q=wang+li",
    }


def _scans(client, url: str) -> list[tuple[list[str], str]]:
    """``[(big tables scanned sequentially, the query)]`` of the page at ``url``."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, follow=True)
    assert response.status_code == 200, url
    selects = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert selects, url
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relkind = 'r'")
        rows = dict(cursor.fetchall())
    return [(scans, sql[:200]) for sql in selects if (scans := _seq_scans(plan_of(sql), rows))]


def test_no_page_kind_scans_a_big_table(client, matched_sample):
    problems = {kind: found for kind, url in _page_kinds().items() if (found := _scans(client, url))}
    assert problems == {}


def test_the_check_finds_a_missing_index(client, matched_sample):
    # Without the author slots' two paper indexes (paper_id; the unique paper_id, position),
    # the paper page reads every slot. Dropped inside the test's transaction.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE papers_paperauthor DROP CONSTRAINT paperauthor_unique")
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'papers_paperauthor'"
            " AND indexdef LIKE '%%(paper_id)'"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{name}"')
    found = _scans(client, _page_kinds()["paper page"])
    assert any("papers_paperauthor" in tables for tables, _sql in found)


# Columns of a paper that no list item shows: a list that reads them reads every column.
UNSHOWN = ('"papers_paper"."journal_ref"', '"papers_paper"."set_specs"', '"papers_category"."description"')


def test_paper_lists_read_only_the_columns_an_item_shows(client, matched_sample):
    # Each list reads its page of papers with the columns {% paper_item %} shows (issue 28),
    # and never fetches a left-out column paper by paper afterwards (a deferred field read).
    collaboration = Collaboration.objects.filter(paper_entries__paper__deleted=False).order_by("pk").first()
    kinds = _page_kinds()
    lists = {
        kind: kinds[kind]
        for kind in ("researcher page", "institution page", "search page", "home page", "paper list")
    }
    lists["collaboration page"] = collaboration.get_absolute_url()
    problems = {}
    for kind, url in lists.items():
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        assert response.status_code == 200, url
        assert response.content.count(b'<article class="paper-item">') >= 1, url
        papers = [q["sql"] for q in ctx.captured_queries if 'FROM "papers_paper"' in q["sql"]]
        wide = [sql[:120] for sql in papers if any(column in sql for column in UNSHOWN)]
        one_by_one = [sql[:120] for sql in papers if 'WHERE "papers_paper"."id" = ' in sql]
        if wide or one_by_one:
            problems[kind] = wide + one_by_one
    assert problems == {}
