"""A load of the same-name queue page reads a bounded number of rows: a name filter narrows
in the database to its name blocks (``Authorship.block``, indexed); without one the ranking
comes from Django's cache under the archive's version, and only the page's 50 pairs are
read, so a merge made through the curation service shows on the next load.

The sample tests read the real sample matched locally (``curation_sample``: 7,605
researcher records, 366 pairs in the queue)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curation.merge import researcher_merge
from curation.queue import queue_filter_blocks, queue_rows, same_name_queue, same_name_queue_entries
from researchers.models import Authorship, Researcher

pytestmark = pytest.mark.django_db


@dataclass
class Fetched:
    """Rows the database returned to queries naming ``table``."""

    table: str
    rows: int = 0


@contextmanager
def fetched_from(table: str) -> Iterator[Fetched]:
    """Count the rows returned by every query that reads ``table`` (psycopg's ``rowcount``
    of a SELECT is its number of rows)."""
    fetched = Fetched(table)

    def count(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if table in sql and sql.lstrip().upper().startswith(("SELECT", "WITH")):
            fetched.rows += max(context["cursor"].rowcount, 0)
        return result

    with connection.execute_wrapper(count):
        yield fetched


def filed_blocks() -> dict[int, set[str]]:
    """The name blocks each active researcher record is filed under."""
    out: dict[int, set[str]] = {}
    for rid, block in Authorship.objects.filter(researcher__merged_into__isnull=True).values_list(
        "researcher_id", "block"
    ):
        out.setdefault(rid, set()).add(block)
    return out


def test_filter_blocks_of_a_name_as_written_and_a_family_name():
    blocks = queue_filter_blocks("Vidal")
    assert len(blocks) == 27 and set(blocks) == {
        "vidal",
        *(f"{c} vidal" for c in "abcdefghijklmnopqrstuvwxyz"),
    }
    assert "m vidal" in queue_filter_blocks("M. Vidal")
    assert "d mozyrsky" in queue_filter_blocks("Mozyrsky, D.")
    assert queue_filter_blocks("  ") == queue_filter_blocks("...") == []


@pytest.mark.parametrize("name", ["Garcia", "D. Mozyrsky", "Park", "Wang", "Das Gupta", "Garcia-Bellido"])
def test_sample_filter_keeps_the_queue_pairs_of_its_blocks(curation_sample, name):
    """On the sample, a filter gives the whole queue's pairs with a record filed under one of
    its blocks, in the whole queue's order, with the same evidence."""
    full = same_name_queue()
    blocks = set(queue_filter_blocks(name))
    filed = filed_blocks()
    expected = [c for c in full if (filed[c.a.pk] | filed[c.b.pk]) & blocks]
    assert expected
    assert same_name_queue(name=name) == expected


def test_sample_filter_finds_a_variant_spelling_from_either_side(curation_sample):
    for name in ("Garcia", "Garcia-Bellido"):
        pairs = {(c.a.display_name, c.b.display_name): c for c in same_name_queue(name=name)}
        pair = pairs.get(("J. Garcia", "Juan Garcia-Bellido")) or pairs[("Juan Garcia-Bellido", "J. Garcia")]
        assert (pair.tier, pair.why) == (4, "“Garcia” is one part of the family name “Garcia-Bellido”")


def test_sample_filter_fetches_only_researchers_of_its_blocks(curation_sample, editor):
    """ "Mozyrsky": the queue reads the records filed under ``mozyrsky`` blocks (two, both
    "D. Mozyrsky"), not the archive's 7,605: five rows naming researchers come back, the
    pair (the block query) and its two records twice (ranking, then the page)."""
    holders = set(
        Authorship.objects.filter(block__in=queue_filter_blocks("Mozyrsky")).values_list(
            "researcher_id", flat=True
        )
    )
    assert len(holders) == 2 and Researcher.objects.count() == 7605
    with fetched_from("researchers_researcher") as fetched, CaptureQueriesContext(connection) as queries:
        entries = same_name_queue_entries(name="Mozyrsky")
        rows = queue_rows(entries)
    assert [(r.a.display_name, r.b.display_name, r.tier) for r in rows] == [("D. Mozyrsky", "D. Mozyrsky", 3)]
    assert {rows[0].a.pk, rows[0].b.pk} == holders
    assert (fetched.rows, len(queries)) == (5, 10)
    page = editor.get("/admin/curation/queue/?name=Mozyrsky").content.decode()
    assert "1 pair in the name blocks of “Mozyrsky”" in page
    assert 'value="Mozyrsky"' in page and f"ids={rows[0].a.pk},{rows[0].b.pk}&" in page


def test_sample_page_comes_from_the_cache_and_shows_a_merge_at_once(
    curation_sample, editor, editor_user, django_assert_max_num_queries
):
    """Once the queue is cached, a page of it is five queries (the version, then the 50
    pairs' records and evidence) reading at most 100 researcher rows; the page itself at
    most ten queries with the session, the user and the slots left for review. A merge
    through :func:`curation.merge.researcher_merge` writes a curation record, so the next
    load computes the queue anew: the merged pair is gone."""
    cache.clear()
    queue = same_name_queue()
    [(position, pair)] = [
        (i, c)
        for i, c in enumerate(queue)
        if (c.a.display_name, c.b.display_name) == ("D. Mozyrsky", "D. Mozyrsky")
    ]
    url = f"/admin/curation/queue/?page={position // 50 + 1}"
    compare = f"ids={pair.a.pk},{pair.b.pk}&"
    page = editor.get(url).content.decode()  # computes and caches the queue
    assert compare in page and f"{len(queue)} pairs" in page
    with fetched_from("researchers_researcher") as fetched, CaptureQueriesContext(connection) as queries:
        entries = same_name_queue_entries()
        rows = queue_rows(entries[:50])
    assert rows == queue[:50]
    assert len(queries) == 5 and fetched.rows <= 100
    with django_assert_max_num_queries(10):
        assert compare in editor.get(url).content.decode()

    researcher_merge(
        survivor_id=pair.b.pk, merged_ids=[pair.a.pk], editor=editor_user, reason="One physicist"
    )
    fresh = same_name_queue()
    page = editor.get(url).content.decode()
    assert compare not in page
    assert f"{len(fresh)} pairs" in page and len(fresh) == len(queue) - 1
    assert [(e.a, e.b) for e in same_name_queue_entries()] == [(c.a.pk, c.b.pk) for c in fresh]
