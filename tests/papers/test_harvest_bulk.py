"""Bulk loads (``harvest_files(bulk=True)``, ``harvest_arxiv --bulk``): the same rows and search
results as the normal path, the same indexes afterwards, and indexes rebuilt after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from django.db import connection

from papers import bulk, harvest, upsert
from papers.models import HarvestRun, Paper, PaperAuthor, PaperVersion
from papers.oai import OaiResponseError
from tests import celery_helpers
from tests.conftest import FIXTURES, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, sample_tables_wipe

OAI = FIXTURES / "arxiv" / "oai"
# The two recorded 1,000-record pages, then pages with a deleted header, malformed records
# and a second look at papers already loaded (the merge between formats is exercised).
PATHS = [
    SAMPLE_OAI_ARXIV,
    SAMPLE_OAI_RAW,
    OAI / "edited_arXivRaw_ListRecords_page1.xml",
    OAI / "edited_arXivRaw_deleted_header.xml",
    OAI / "edited_arXivRaw_malformed_records.xml",
]
QUERIES = ("quantum", "galaxy cluster", '"dark matter" -halo', '"neutron star" -magnetic')
SKIP_COLUMNS = {"id", "created_at", "modified_at"}  # row ids and write times differ by nature


def everything() -> dict[str, list[tuple]]:
    """Every stored column of papers (search vector as text), author slots and versions,
    keyed by arXiv id, sorted."""
    columns = [f.column for f in Paper._meta.concrete_fields if f.column not in SKIP_COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT "
            + ", ".join(f"{connection.ops.quote_name(c)}::text" for c in columns)
            + " FROM papers_paper"
        )
        papers = sorted(cursor.fetchall())
    return {
        "papers": papers,
        "authors": sorted(PaperAuthor.objects.values_list("paper__arxiv_id", *upsert.SLOT_FIELDS[1:])),
        "versions": sorted(
            PaperVersion.objects.values_list(
                "paper__arxiv_id", "version", "submitted_at", "size_kb", "source_type"
            )
        ),
    }


def search(query: str) -> list[tuple[str, float]]:
    """The site's keyword match and rank (pages.search.full_text: websearch_to_tsquery over the stored
    vector), best first."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT arxiv_id, ts_rank(search_vector, q) FROM papers_paper, "
            "websearch_to_tsquery('english', %s) q WHERE search_vector @@ q ORDER BY 2 DESC, 1",
            [query],
        )
        return cursor.fetchall()


def indexes() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN "
            "('papers_paper', 'papers_paperauthor', 'papers_paperversion') ORDER BY 1"
        )
        return cursor.fetchall()


def counts(run: HarvestRun) -> tuple:
    return (
        run.status,
        run.pages,
        run.records_seen,
        run.records_written,
        run.records_deleted,
        run.records_skipped,
    )


@pytest.mark.django_db
def test_a_bulk_load_writes_what_the_normal_path_writes():
    before = indexes()
    normal_run = harvest.harvest_files(paths=PATHS)
    normal = everything()
    normal_search = [search(q) for q in QUERIES]
    sample_tables_wipe()

    bulk_run = harvest.harvest_files(paths=PATHS, bulk=True)

    assert counts(bulk_run) == counts(normal_run)
    assert bulk_run.records_skipped > 0 and bulk_run.records_deleted > 0  # the odd pages counted
    assert everything() == normal
    assert [search(q) for q in QUERIES] == normal_search
    assert all(normal_search)
    # Every index is back, as it was; nothing is left to restore.
    assert indexes() == before
    bulk_run.refresh_from_db()
    assert bulk_run.deferred_indexes == []


@pytest.mark.django_db
def test_a_bulk_load_drops_the_secondary_indexes_while_it_runs(monkeypatch):
    seen = []
    write_page = harvest._write_page

    def spy(run, page, categories):
        seen.append({name for name, _ in indexes()})
        return write_page(run, page, categories)

    monkeypatch.setattr(harvest, "_write_page", spy)
    harvest.harvest_files(paths=PATHS[:2], bulk=True)
    during = seen[0]
    # Primary keys and unique constraints stay (the upserts' ON CONFLICT needs them) ...
    assert {
        "papers_paper_pkey",
        "papers_paper_arxiv_id_key",
        "paperauthor_unique",
        "paperversion_unique",
    } <= during
    # ... the search and listing indexes go.
    assert not {"paper_search_gin", "paper_newest_idx", "paper_categories_gin"} & during
    assert {"paper_search_gin", "paper_newest_idx"} <= {name for name, _ in indexes()}


@pytest.mark.django_db
def test_indexes_a_killed_bulk_load_dropped_are_rebuilt_by_the_next_harvest():
    before = indexes()
    run = HarvestRun.objects.create(kind=HarvestRun.Kind.FILE, metadata_prefix="mixed")
    bulk._indexes_defer(run)  # where a kill -9 during the load leaves things
    assert len(indexes()) < len(before)
    assert len(HarvestRun.objects.get(pk=run.pk).deferred_indexes) == len(before) - len(indexes())

    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_deleted_header.xml"])

    assert indexes() == before
    assert HarvestRun.objects.get(pk=run.pk).deferred_indexes == []
    assert bulk.paper_indexes_restore() == 0


@pytest.mark.django_db
def test_a_failing_bulk_load_rebuilds_its_indexes(tmp_path):
    before = indexes()
    broken = tmp_path / "not-oai.xml"
    broken.write_bytes(b"<html><body>Service unavailable</body></html>")
    with pytest.raises(OaiResponseError):
        harvest.harvest_files(paths=[SAMPLE_OAI_RAW, broken], bulk=True)
    run = HarvestRun.objects.get()
    assert (run.status, run.records_written) == ("failed", 1000)  # the page before it is kept
    assert run.deferred_indexes == []
    assert indexes() == before


def children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except FileNotFoundError:
        return []


def running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def harvest_process(*paths) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": celery_helpers.test_database_url(),
        "WOVE_LOCAL": "1",
        "DJANGO_SETTINGS_MODULE": "wove.settings",
    }
    env.pop("WOVE_TESTING", None)
    return subprocess.Popen(  # noqa: S603 - fixed argv
        [
            sys.executable,
            "manage.py",
            "harvest_arxiv",
            "--bulk",
            "--no-progress",
            "--no-pipeline",
            "--file",
            *map(str, paths),
        ],
        cwd=celery_helpers.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


@pytest.mark.django_db(transaction=True)
def test_a_bulk_load_killed_mid_way_ends_like_an_uninterrupted_one():
    """kill -9 of the writer (not of its process group): the parsing child exits on its own,
    the next harvest rebuilds the indexes, and re-running the load gives the normal rows."""
    before = indexes()
    paths = [SAMPLE_OAI_RAW, SAMPLE_OAI_ARXIV] * 3
    proc = harvest_process(*paths)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if Paper.objects.exists() and HarvestRun.objects.exclude(deferred_indexes=[]).exists():
            break
        time.sleep(0.01)
    children = children_of(proc.pid)
    assert proc.poll() is None and children, "the load ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in children), "the parsing process outlived its writer"
    assert len(indexes()) < len(before)  # killed mid-load: the indexes are still dropped

    proc = harvest_process(*paths)  # the same load again
    output = proc.communicate(timeout=180)[0].decode()
    assert proc.returncode == 0, output
    assert indexes() == before
    interrupted = everything()

    sample_tables_wipe()
    harvest.harvest_files(paths=paths)
    assert everything() == interrupted
    assert not HarvestRun.objects.exclude(deferred_indexes=[]).exists()


@pytest.mark.django_db
def test_a_bulk_kaggle_load_writes_what_the_normal_path_writes():
    """The snapshot path (harvest_arxiv --kaggle) in bulk: the same rows and search results
    as line by line into kept indexes, and every index back after."""
    from tests.conftest import SAMPLE_KAGGLE

    before = indexes()
    normal_run = harvest.harvest_kaggle(path=SAMPLE_KAGGLE, bulk=False)
    normal = everything()
    normal_search = [search(q) for q in QUERIES]
    sample_tables_wipe()

    bulk_run = harvest.harvest_kaggle(path=SAMPLE_KAGGLE, bulk=True)

    assert counts(bulk_run) == counts(normal_run)
    assert bulk_run.records_written == 800  # lines 1-800 of the recorded snapshot
    assert everything() == normal
    assert [search(q) for q in QUERIES] == normal_search
    assert indexes() == before


@pytest.mark.django_db
def test_a_kaggle_load_is_bulk_when_larger_than_the_archive(monkeypatch):
    from tests.conftest import SAMPLE_KAGGLE

    loads = []
    real = harvest.bulk_load

    def spy(run):
        loads.append(run.pk)
        return real(run)

    monkeypatch.setattr(harvest, "bulk_load", spy)
    first = harvest.harvest_kaggle(path=SAMPLE_KAGGLE)  # into an empty archive: bulk
    assert loads == [first.pk]
    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    harvest.harvest_kaggle(path=SAMPLE_KAGGLE)  # 800 lines into ~2,600 papers: kept indexes
    assert loads == [first.pk]
