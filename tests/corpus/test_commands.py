"""``manage.py archive_summary``: one line of counts for the archive; ``generate_corpus`` on
a database that lacks migrations."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.conftest import FIXTURES


@pytest.mark.django_db
def test_archive_summary_counts_every_stage():
    # The recording holds 3 papers (arXiv format, one version each) with 8 author slots,
    # 8 different names; no ROR records are loaded.
    path = str(FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml")
    call_command("harvest_arxiv", "--no-progress", "--file", path, stdout=io.StringIO())
    call_command("match_authors", "--no-progress", stdout=io.StringIO())
    call_command("sign_provenance", "--no-progress", stdout=io.StringIO())
    out = io.StringIO()
    call_command("archive_summary", stdout=out)
    assert out.getvalue().strip() == (
        "wovepaper: 3 papers, 8 author slots, 8 researchers, 0 institutions, 3 signed records"
    )


@pytest.mark.django_db
def test_generate_corpus_asks_for_migrate_on_a_database_missing_migrations():
    # The newest researchers migration unapplied, whichever it is (PostgreSQL's DDL is
    # transactional: the test's transaction puts it back).
    executor = MigrationExecutor(connection)
    [newest] = executor.loader.graph.leaf_nodes("researchers")
    [before] = [node for node in executor.loader.graph.node_map[newest].parents if node[0] == "researchers"]
    executor.migrate([before])
    with pytest.raises(CommandError, match=r"lacks 1 migration\(s\): run `manage.py migrate` on it first"):
        call_command("generate_corpus", "--papers", "10", "--no-progress", stdout=io.StringIO())
    MigrationExecutor(connection).migrate([newest])
    call_command("generate_corpus", "--papers", "10", "--no-progress", stdout=io.StringIO())
