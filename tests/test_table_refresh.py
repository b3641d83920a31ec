"""GIN pending lists on the page paths: short by setting, emptied after large writes
(wove.statistics; issue 28).

A GIN index with fastupdate queues new entries in a pending list that every search of the
index reads in full: the pages a search of the index touches (EXPLAIN's buffers) show it.
The embedded PostgreSQL has neither pgstattuple nor pg_trgm, so the folded-names trigram
index is checked only where it exists.
"""

import io
import time

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from researchers.models import Researcher
from wove.statistics import GIN_PENDING_LIST_KB, VACUUM_AFTER_WRITES, tables_refresh, tables_settle

PAGE_PATH_GIN = (
    "paper_categories_gin",
    "paper_search_gin",
    "researcher_variants_gin",
    "researcher_names_trgm",
)


def _index_pages_read(sql: str, params: list) -> int:
    """Buffers (hit or read) of the bitmap index scan of ``sql``, sequential scans off.

    In a transaction of its own, so that ``SET LOCAL`` holds in a committed test too (in
    autocommit it is ignored, and the plan then depended on the table's size, which earlier
    tests on the same database vary). A just-built index waits for older transactions of the
    whole server (pg_index.indcheckxmin; another test worker's may be one): up to 10 s.
    """
    for _attempt in range(40):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0][0]["Plan"]
        while plan["Node Type"] != "Bitmap Index Scan" and plan.get("Plans"):
            plan = plan["Plans"][0]
        if plan["Node Type"] == "Bitmap Index Scan":
            return plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]
        time.sleep(0.25)
    raise AssertionError(f"no bitmap index scan in the plan of {sql!r}")


VARIANT_LOOKUP = "SELECT id FROM researchers_researcher WHERE name_variants @> ARRAY[%s]::varchar(500)[]"


@pytest.mark.django_db
def test_the_page_path_gin_indexes_keep_short_pending_lists():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s) ORDER BY relname",
            [list(PAGE_PATH_GIN)],
        )
        rows = cursor.fetchall()
    assert GIN_PENDING_LIST_KB == 256
    expected = [(name, ["gin_pending_list_limit=256"]) for name in sorted(PAGE_PATH_GIN)]
    assert rows == [row for row in expected if row[0] != "researcher_names_trgm" or _trigrams()]


def _trigrams() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        return cursor.fetchone() is not None


@pytest.mark.django_db
def test_refresh_merges_the_pending_list_of_new_names():
    # 2,000 researchers with two name variants each: the entries wait in the pending list.
    Researcher.objects.bulk_create(
        Researcher(
            display_name=f"Ada Lovelace {i}", slug=f"ada-{i}", name_variants=[f"A. Lovelace {i}", f"Ada {i}"]
        )
        for i in range(2000)
    )
    # 4,000 variant entries: many pending pages (8 kB each), all read by one lookup.
    assert _index_pages_read(VARIANT_LOOKUP, ["A. Lovelace 7"]) >= 10
    tables_refresh(["researchers_researcher"])
    # Merged: the metapage, the entry tree's root and one leaf.
    assert _index_pages_read(VARIANT_LOOKUP, ["A. Lovelace 7"]) <= 3
    assert Researcher.objects.filter(name_variants__contains=["A. Lovelace 7"]).count() == 1


# Committed (transaction=True), as a corpus is: a first load sets its researchers' paper
# counts before it builds their indexes, so the table holds HOT chains and PostgreSQL keeps a
# new index from the transaction that built it (pg_index.indcheckxmin); inside a test's
# transaction the lookup below could not use the index.
@pytest.mark.django_db(transaction=True)
def test_a_generated_corpus_leaves_no_pending_list():
    call_command("generate_corpus", "--papers", "200", "--seed", "3", stdout=io.StringIO())
    name = Researcher.objects.order_by("id").values_list("name_variants", flat=True)[0][0]
    # The metapage, the root and one leaf (the names lookup read 6 before the corpus
    # emptied the lists).
    assert _index_pages_read(VARIANT_LOOKUP, [name]) <= 3
    # Nothing left pending: merging the lists now moves no page. (Not the pages a category
    # lookup reads: rows earlier tests of the same test database wrote and deleted, the
    # sample's thousands of hep-th papers, stay in the index until a VACUUM, and its
    # posting tree for hep-th may be deeper by a page.)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT gin_clean_pending_list(%s::regclass), gin_clean_pending_list(%s::regclass)",
            ["paper_categories_gin", "researcher_variants_gin"],
        )
        assert cursor.fetchone() == (0, 0)


def _visible_pages() -> tuple[int, int]:
    """``(pages, pages marked all-visible)`` of the researchers table, as VACUUM left them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size('researchers_researcher') / current_setting('block_size')::int, "
            "relallvisible FROM pg_class WHERE relname = 'researchers_researcher'"
        )
        return cursor.fetchone()


# Committed (transaction=True): VACUUM runs only outside a transaction.
@pytest.mark.django_db(transaction=True)
def test_settle_vacuums_after_a_large_write_and_only_analyses_a_smaller_one():
    Researcher.objects.bulk_create(
        Researcher(display_name=f"Grace Hopper {i}", slug=f"grace-{i}", name_variants=[f"G. Hopper {i}"])
        for i in range(2000)
    )
    pages, visible = _visible_pages()
    assert pages >= 10 and visible == 0
    assert tables_settle(["researchers_researcher"], 499) == ""
    assert tables_settle(["researchers_researcher"], 500) == "analyze"
    assert _visible_pages()[1] == 0  # ANALYZE reads; it marks nothing visible
    with transaction.atomic():  # VACUUM cannot run in a transaction: analysed only
        assert tables_settle(["researchers_researcher"], VACUUM_AFTER_WRITES) == "analyze"
    assert _visible_pages()[1] == 0
    assert tables_settle(["researchers_researcher"], VACUUM_AFTER_WRITES) == "vacuum"
    assert _visible_pages() == (pages, pages)  # every page all-visible: index-only reads
