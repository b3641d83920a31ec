"""Full-text search folds accents (issue 32): on the sample, "Grunberg" found no paper where
"Grünberg" found 5, and "Lopez" 11 where "López" found 2 (the two spellings are 13 papers).
Counted by hand with ``title/authors_text/abstract LIKE`` over the sample: "Grünberg" is in 5
papers (0801.3913 ... 0801.3922, in the authors), "López" in 2, "Lopez" in 11."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from papers.search_fold import FOLD_FROM, FOLD_MULTI, FOLD_TO, fold_function_sql, search_fold

pytestmark = pytest.mark.django_db

GRUNBERG = {"0801.3913", "0801.3916", "0801.3917", "0801.3920", "0801.3922"}


def _status(client, q: str) -> str:
    html = " ".join(client.get("/search", {"q": q, "mode": "keyword"}).content.decode().split())
    return re.search(r'role="status">([^<]*)<', html).group(1)


@pytest.mark.parametrize(("spellings", "count"), [(("Grunberg", "Grünberg"), 5), (("Lopez", "López"), 13)])
def test_a_name_is_found_with_or_without_its_accents(client, sample_papers, spellings, count):
    for q in spellings:
        assert _status(client, q) == f"{count} papers", q
        body = client.get("/api/v1/search", {"q": q, "kinds": "papers", "limit": 20}).json()
        assert body["papers"]["count"] == count, q
        listed = client.get("/api/v1/papers", {"q": q, "size": 20}).json()
        assert listed["count"] == count, q
    found = {p["arxiv_id"] for p in client.get("/api/v1/papers", {"q": "Grunberg"}).json()["items"]}
    assert found == GRUNBERG


def test_the_database_folds_as_python_does(db):
    # wove_search_fold (papers migration 0015) and papers.search_fold use one table.
    samples = [FOLD_FROM, *(old for old, _ in FOLD_MULTI), "Grünberg, Łódź, Straße, 3×4, Λ_α, 東京"]
    with connection.cursor() as cursor:
        for text in samples:
            cursor.execute("SELECT wove_search_fold(%s)", [text])
            assert cursor.fetchone()[0] == search_fold(text)
    assert search_fold(FOLD_FROM) == FOLD_TO
    assert search_fold("Grünberg, Łódź, Straße, 3×4") == "Grunberg, Lodz, Strasse, 3×4"


def test_the_fold_function_is_the_one_migrated(db):
    """papers.search_fold builds the statement migration 0017 ran (ASCII returned as it is):
    the function in the database is that one, and ASCII and NULL pass unchanged."""
    import importlib

    migration = importlib.import_module("papers.migrations.0017_search_fold_ascii")
    assert fold_function_sql() == migration.FOLD_FUNCTION
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_functiondef('wove_search_fold(text)'::regprocedure)")
        assert "WHEN octet_length($1) = length($1) THEN $1" in cursor.fetchone()[0]
        cursor.execute("SELECT wove_search_fold(%s), wove_search_fold(NULL)", ["Dark matter at 3 K: ~50%"])
        assert cursor.fetchone() == ("Dark matter at 3 K: ~50%", None)
