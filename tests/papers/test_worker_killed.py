"""Reliability drill (issue 11): a Celery worker SIGKILLed in the middle of the harvest task.
With ``acks_late`` the message stays unacknowledged in Redis; once the visibility timeout
has passed a new worker receives it again, resumes the harvest from its saved token, and
the archive ends exactly as after one uninterrupted run."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from papers.models import HarvestRun, Paper, PaperAuthor, PaperVersion
from tests.celery_helpers import celery_worker, redis_server, wait_for
from tests.conftest import SAMPLE_OAI_RAW
from tests.oai_replay import PagedOaiServer

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]

VISIBILITY_TIMEOUT = 2  # seconds; production keeps kombu's hour (settings)


def succeeded(log_path: str) -> list[str]:
    return re.findall(r"Task papers\.harvest_arxiv\[[\w-]+\] succeeded[^\n]*", Path(log_path).read_text())


def test_harvest_task_killed_with_its_worker_is_redelivered_and_completes_once():
    from wove.celery import app

    with redis_server() as broker, PagedOaiServer(SAMPLE_OAI_RAW, page_size=50, delay=0.1) as server:
        env = {
            "ARXIV_OAI_ENDPOINT": server.url,
            "ARXIV_OAI_MIN_INTERVAL": "0",
            "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        }
        with celery_worker(broker, env) as first:
            with app.connection_for_write(broker) as connection:
                app.send_task("papers.harvest_arxiv", connection=connection)
            assert wait_for(lambda: server.served >= 5, timeout=90), Path(first.log_path).read_text()[-3000:]
            os.killpg(first.pid, signal.SIGKILL)  # the worker and anything it started
            first.wait(10)
            killed_at = time.monotonic()
        written_when_killed = Paper.objects.count()
        assert succeeded(first.log_path) == []
        # The unacknowledged message becomes visible again after the timeout; a worker
        # starting later restores it at once.
        time.sleep(max(0.0, VISIBILITY_TIMEOUT + 0.5 - (time.monotonic() - killed_at)))
        with celery_worker(broker, env) as second:
            run = wait_for(lambda: HarvestRun.objects.filter(status="complete").first(), timeout=90)
            assert run is not None, Path(second.log_path).read_text()[-3000:]
            wait_for(lambda: succeeded(second.log_path), timeout=30)
            time.sleep(1)  # a second delivery would show up now
            done = succeeded(second.log_path)

    assert 0 < written_when_killed < 1000
    assert len(done) == 1, done
    # One run, resumed by the second worker from the token the first one saved.
    assert HarvestRun.objects.count() == 1
    assert (run.records_seen, run.pages) == (1000, 20)
    # The recorded page: 1000 <record>s, 1522 <version> elements, all well-formed; 3110
    # author slots, as `make demo` stores for papers 0801.* (3111 before issue 19: 0801.4016's
    # "for the RBC and UKQCD Collaborations" is one collaboration slot, not a person and one).
    assert Paper.objects.count() == 1000
    assert PaperVersion.objects.count() == 1522
    assert PaperAuthor.objects.count() == 3110
    # The resumed run asked for the list once from the start, then only by token.
    assert [r for r in server.requests if "metadataPrefix" in r] == [
        {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
    ]


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def test_harvest_task_whose_pool_child_dies_is_requeued_at_once():
    """Prefork (the Procfile's pool): the child running the task is SIGKILLed (an OOM kill)
    while the parent lives. ``task_reject_on_worker_lost`` hands the message back at once,
    without waiting for the visibility timeout (left at its hour here), and a new child
    resumes the harvest."""
    from wove.celery import app

    with redis_server() as broker, PagedOaiServer(SAMPLE_OAI_RAW, page_size=50, delay=0.1) as server:
        env = {"ARXIV_OAI_ENDPOINT": server.url, "ARXIV_OAI_MIN_INTERVAL": "0"}
        with celery_worker(broker, env, pool="prefork") as worker:
            with app.connection_for_write(broker) as connection:
                app.send_task("papers.harvest_arxiv", connection=connection)
            assert wait_for(lambda: server.served >= 5, timeout=90), Path(worker.log_path).read_text()[-3000:]
            (child,) = children(worker.pid)
            os.kill(child, signal.SIGKILL)
            run = wait_for(lambda: HarvestRun.objects.filter(status="complete").first(), timeout=90)
            log = Path(worker.log_path).read_text()
            assert run is not None, log[-3000:]
            wait_for(lambda: succeeded(worker.log_path), timeout=30)
            done = succeeded(worker.log_path)

    assert "WorkerLostError" in log
    assert len(done) == 1, done
    assert HarvestRun.objects.count() == 1
    assert (run.records_seen, run.pages) == (1000, 20)
    assert Paper.objects.count() == 1000
    assert PaperVersion.objects.count() == 1522
    assert PaperAuthor.objects.count() == 3110
