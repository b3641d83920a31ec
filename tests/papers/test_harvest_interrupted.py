"""Reliability drill (issue 11): ``manage.py harvest_arxiv`` killed with SIGKILL at seeded
random points of a long harvest, then restarted, ends with the same table contents as an
uninterrupted run: same rows, no duplicates, no gaps."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from papers import harvest, tasks
from papers.bulk import HarvestBusy
from papers.models import HarvestRun, Paper, PaperAuthor, PaperVersion
from papers.oai import OaiClient
from tests import celery_helpers
from tests.conftest import SAMPLE_OAI_RAW, sample_tables_wipe
from tests.oai_replay import PagedOaiServer

pytestmark = pytest.mark.django_db(transaction=True)

PAGE_SIZE = 50  # the 1000 recorded arXivRaw records as 20 pages


def harvest_process(endpoint: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": celery_helpers.test_database_url(),
        "WOVE_LOCAL": "1",
        "ARXIV_OAI_MIN_INTERVAL": "0",
        "DJANGO_SETTINGS_MODULE": "wove.settings",
    }
    env.pop("WOVE_TESTING", None)
    return subprocess.Popen(  # noqa: S603 - fixed argv
        [
            sys.executable,
            "manage.py",
            "harvest_arxiv",
            "--endpoint",
            endpoint,
            "--no-progress",
            "--no-pipeline",
        ],
        cwd=celery_helpers.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_until(predicate, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL the harvest's whole process group: no cleanup code of ours runs."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


def table_contents() -> dict[str, list[tuple]]:
    """Everything a harvest writes, as sorted tuples keyed by arXiv id (never by row id)."""
    return {
        "papers": sorted(
            Paper.objects.values_list(
                "arxiv_id", "latest_version", "content_hash", "title", "submitted_at", "deleted"
            )
        ),
        "authors": sorted(
            PaperAuthor.objects.values_list(
                "paper__arxiv_id", "position", "name", "keyname", "forenames", "affiliations"
            )
        ),
        "versions": sorted(
            PaperVersion.objects.values_list("paper__arxiv_id", "version", "submitted_at", "size_kb")
        ),
    }


def test_killed_harvests_end_like_an_uninterrupted_one():
    rng = random.Random(11)  # seeded: the same kill points on every run
    with PagedOaiServer(SAMPLE_OAI_RAW, page_size=PAGE_SIZE, delay=0.2) as server:
        # First kill while the first page is on its way: the run exists, no token saved yet.
        proc = harvest_process(server.url)
        wait_until(lambda: server.received >= 1, proc)
        kill(proc)
        server.delay = 0.02
        kills = []
        for _ in range(3):
            target = server.served + rng.randint(1, 4)
            proc = harvest_process(server.url)
            wait_until(lambda: server.served >= target, proc)  # noqa: B023 - used at once
            time.sleep(rng.uniform(0, 0.15))  # mid-fetch, mid-write or between pages
            kill(proc)
            kills.append(server.served)

        proc = harvest_process(server.url)
        output = proc.communicate(timeout=120)[0].decode()
        assert proc.returncode == 0, output
        interrupted = table_contents()
        runs = list(HarvestRun.objects.values_list("status", "resumption_token"))

        sample_tables_wipe()
        with OaiClient(server.url, min_interval=0) as client:
            reference_run = harvest.harvest_oai(client=client, incremental=False)
        reference = table_contents()

    assert kills == sorted(kills) and kills[-1] < server.pages * 2, kills
    assert reference_run.status == "complete"
    assert (reference_run.records_seen, reference_run.pages) == (1000, 20)
    # The recorded page holds 1000 distinct papers, all well-formed.
    assert len(reference["papers"]) == 1000
    assert len({row[0] for row in interrupted["papers"]}) == len(interrupted["papers"])
    assert interrupted["papers"] == reference["papers"]
    assert interrupted["authors"] == reference["authors"]
    assert interrupted["versions"] == reference["versions"]
    # Exactly one run finished; none is left "running" behind a dead process.
    assert [s for s, _ in runs].count("complete") == 1, runs
    assert "running" not in [s for s, _ in runs], runs


@pytest.mark.django_db  # no subprocess here: a rolled-back transaction is enough
def test_a_second_harvest_of_the_same_list_is_refused_while_one_runs():
    """Two harvests of one list at once (a broker redelivering a still-running task, beat
    overlapping a manual run) would interleave pages on one run: the second is refused."""
    from django.db import connections

    holding, release = threading.Event(), threading.Event()

    def hold_lock():
        try:
            with harvest._harvest_lock(metadata_prefix="arXivRaw", set_spec=""):
                holding.set()
                release.wait(10)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=hold_lock)
    thread.start()
    try:
        assert holding.wait(10)
        with OaiClient("http://127.0.0.1:9/oai", min_interval=0, max_retries=0) as client:
            with pytest.raises(HarvestBusy, match="another arXivRaw harvest of set \\* is running"):
                harvest.harvest_oai(client=client, incremental=False)
            # The task (a copy redelivered while the first still runs) stops without failing.
            assert tasks.harvest_arxiv.run() == {"run": None, "status": "busy"}
            # Another set is another list: not blocked (it fails later, on the closed port).
            with pytest.raises(httpx.ConnectError):
                harvest.harvest_oai(client=client, set_spec="cs", incremental=False)
    finally:
        release.set()
        thread.join(10)
    assert HarvestRun.objects.filter(set_spec="").count() == 0
