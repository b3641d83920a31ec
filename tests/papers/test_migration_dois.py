"""Migration 0008 (issue 18): the stored ``doi`` strings of existing rows become lists, and back.

Runs the real migration backwards and forwards on the test database, inside the test's
transaction (PostgreSQL's DDL is transactional, so everything is rolled back after).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from papers.models import Paper

pytestmark = pytest.mark.django_db

BEFORE = ("papers", "0007_arxivfetch_from_pages")
AFTER = ("papers", "0008_paper_dois")
# Stored values as the code before the list kept them: the joined strings of real sample
# records (0705.0020, OAI arXiv; 0704.0389, Kaggle, its newline collapsed at ingest), one
# DOI, none, and a prefixed, comma-separated string a harvest could have stored.
STORED = {
    "0705.0020": "10.1086/520497 10.1088/0004-637X/704/2/1743",
    "0704.0389": "10.1103/PhysRevD.75.124007 10.1103/PhysRevD.82.029901 10.1103/PhysRevD.82.129903",
    "0704.0001": "10.1103/PhysRevD.76.013009",
    "0704.0002": "",
    "0704.0003": "doi:10.1000/1, 10.1000/2",
}
SPLIT = {
    "0705.0020": ["10.1086/520497", "10.1088/0004-637X/704/2/1743"],
    "0704.0389": ["10.1103/PhysRevD.75.124007", "10.1103/PhysRevD.82.029901", "10.1103/PhysRevD.82.129903"],
    "0704.0001": ["10.1103/PhysRevD.76.013009"],
    "0704.0002": [],
    "0704.0003": ["10.1000/1", "10.1000/2"],
}


def _migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([target])


def _stored(column: str) -> dict:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT arxiv_id, {column} FROM papers_paper ORDER BY arxiv_id")  # noqa: S608
        return dict(cursor.fetchall())


def test_split_and_join_on_a_database_holding_joined_strings():
    # Deferred foreign-key checks pending in this transaction would block the ALTER TABLEs.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    _migrate(BEFORE)
    with connection.cursor() as cursor:
        for arxiv_id, doi in STORED.items():
            cursor.execute(
                "INSERT INTO papers_paper (arxiv_id, slug, title, abstract, authors_text, categories,"
                " license, doi, journal_ref, report_no, comments, msc_class, acm_class, submitter, proxy,"
                " submitted_day_precision, latest_version, set_specs, withdrawn, deleted, versions_source,"
                " authors_source, content_hash, editor_note, hidden, created_at, modified_at)"
                " VALUES (%s, 'x', 'x', '', '', '{}', '', %s, '', '', '', '', '', '', '', false, 1, '{}',"
                " false, false, '', '', '', '', false, now(), now())",
                [arxiv_id, doi],
            )

    _migrate(AFTER)
    assert _stored("dois") == SPLIT
    assert Paper.objects.only("dois").get(arxiv_id="0704.0389").doi == "10.1103/PhysRevD.75.124007"

    _migrate(BEFORE)
    assert _stored("doi") == {**STORED, "0704.0003": "10.1000/1 10.1000/2"}

    _migrate(AFTER)
    assert _stored("dois") == SPLIT
