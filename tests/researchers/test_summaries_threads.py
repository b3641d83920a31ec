"""A first load's page summaries computed by two threads at once (``generate_corpus``; issue
29): the rows are those computed one researcher at a time, and a failing batch stops the run
with its error. Threads use their own connections, so the rows are committed
(``transaction=True``)."""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from researchers import summaries
from researchers.models import Researcher, ResearcherSummary
from wove.bulk import batched, batches_in_threads

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_threads_store_the_summary_of_every_researcher_computed_alone(monkeypatch):
    call_command("generate_corpus", "--papers", "300", "--seed", "5", stdout=io.StringIO())
    ResearcherSummary.objects.all().delete()
    monkeypatch.setattr(summaries.summary_reads, "BATCH", 40)  # several batches in each thread
    backends = set()
    store = summaries._store_many

    def store_noting_the_connection(batch):
        connection.ensure_connection()  # this thread's own
        backends.add(connection.connection.info.backend_pid)
        return store(batch)

    monkeypatch.setattr(summaries, "_store_many", store_noting_the_connection)
    done = summaries.summaries_refresh(workers=2)
    active = list(Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1))
    assert done == len(active) == ResearcherSummary.objects.count() > 200
    kept = dict(ResearcherSummary.objects.values_list("researcher_id", "data"))
    assert kept == {r.pk: summaries.summary_compute(r) for r in active}
    assert len(backends) == 2  # two connections did the work
    assert summaries.summaries_refresh(workers=2) == 0


def test_a_failing_batch_stops_the_threads_and_raises_its_error():
    seen = []

    def work(batch: list[int]) -> int:
        if 7 in batch:
            raise ValueError("batch with 7")
        seen.append(batch)
        return len(batch)

    with pytest.raises(ValueError, match="batch with 7"):
        batches_in_threads(work, batched(range(1000), 3), workers=2)
    assert len(seen) < 300  # the rest were not taken
    assert batches_in_threads(work, batched(range(7), 3), workers=2) == 7


def test_batched_reads_lists_of_the_size_asked():
    assert list(batched(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(batched([], 3)) == []


@pytest.mark.django_db(transaction=False)
def test_inside_a_transaction_the_batches_run_on_the_callers_thread():
    # A test's transaction (or a caller's) holds rows and locks no other connection sees: a
    # generated corpus inside one (its indexes dropped and built in that transaction) left
    # the threads' reads waiting on the caller forever.
    call_command("generate_corpus", "--papers", "60", "--seed", "5", stdout=io.StringIO())
    assert ResearcherSummary.objects.count() == Researcher.objects.filter(paper_count__gte=1).count() > 50
    backends = set()

    def work(batch):
        connection.ensure_connection()
        backends.add(connection.connection.info.backend_pid)
        return len(batch)

    assert batches_in_threads(work, batched(range(10), 3), workers=2) == 10
    assert backends == {connection.connection.info.backend_pid}
