"""The provenance tables' indexes (issue 29: signing writes every index of every row, so an
index no query uses is pure cost), and the lookups that could have wanted the dropped ones."""

from __future__ import annotations

import pytest
from django.db import connection

from provenance.models import Record
from provenance.selectors import record_resolve
from tests.plans import plan_nodes, plan_of

pytestmark = pytest.mark.django_db


def _indexes(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {name for (name,) in cursor.fetchall()}


def test_events_and_records_keep_only_the_indexes_their_reads_use():
    assert _indexes("provenance_event") == {
        "provenance_event_pkey",
        "event_chain_unique",
        "event_record_idx",
        "event_type_idx",
    }
    assert _indexes("provenance_record") == {
        "provenance_record_pkey",
        "provenance_record_pith_number_key",
        "provenance_record_pith_body_key",
        "provenance_record_pith_body_17dfefb1_like",  # the short forms' LIKE 'L5Y4YBEW%'
        "record_paper_idx",
        "record_source_idx",
    }


def test_a_full_pith_number_and_a_short_form_are_read_through_pith_body_indexes():
    # record_resolve's two LIKE reads, planned with sequential scans off: each one is an index
    # scan of pith_body (its unique index, or the pattern copy for the prefix).
    full = Record.objects.filter(pith_body="L5Y4YBEWABCDEFGHIJKLMNOPQR", pith_number__startswith="pith:2024:")
    short = Record.objects.filter(pith_body__startswith="L5Y4YBEW").order_by("pith_body")[:20]
    for queryset in (full, short):
        sql, params = queryset.query.sql_with_params()
        nodes = list(plan_nodes(plan_of(sql, params)))
        assert not [n for n in nodes if n["Node Type"] == "Seq Scan"], sql
        scans = {n["Index Name"] for n in nodes if "Index Name" in n}
        assert scans, sql
        assert scans <= {"provenance_record_pith_body_key", "provenance_record_pith_body_17dfefb1_like"}


def test_record_resolve_still_finds_a_record_by_full_and_short_pith_number(signed_raw_page):
    # A real arXivRaw record (0801.3673), signed: its number whole, and its short form.
    record = Record.objects.filter(source_id="0801.3673").order_by("source_version").first()
    assert record_resolve(record.pith_number).record == record
    assert record_resolve(f"pith:{record.pith_body[:8]}").record == record


def test_events_up_to_a_page_are_stored_uncompressed():
    # Migration 0007: past PostgreSQL's default 2 kB target, signing's COPY compressed each
    # synthetic graph snapshot with pglz (a third of a 100 k run's events; 0.8 of 2.6 s of
    # COPY). None of the sample's real snapshots was compressed before either, so the
    # setting itself is what is pinned.
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'provenance_event'")
        assert cursor.fetchone()[0] == ["toast_tuple_target=8160"]
