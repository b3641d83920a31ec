"""The pipeline's stages without a worker: locks, run rows, status, the inline run, and what
source matching now does along the way (institutions, its summary line, concurrent writes)."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from institutions.models import AffiliationMatchMark, AuthorAffiliation, Institution
from institutions.services import institutions_load
from papers.harvest import harvest_files
from papers.models import Category, Paper, PaperAuthor
from papers.taxonomy import load_taxonomy
from researchers.clients import openalex
from researchers.matching_sources import researchers_attach_from_source
from researchers.models import Authorship, Researcher
from researchers.records import SourceAuthor, SourceWork
from researchers.services import researchers_match_authors
from researchers.signals import source_authors_aligned
from tests.celery_helpers import test_database_url as database_url
from tests.conftest import FIXTURES
from wove import pipeline
from wove.locks import LOCK_NAMESPACE, lock_held_elsewhere, lock_key
from wove.models import StageRun
from wove.stages import stage_execute

ROOT = Path(__file__).resolve().parents[2]
ROR_DUMP = ROOT / "data" / "ror" / "ror_records_v2.json"
DAY1_ARXIV = FIXTURES / "arxiv" / "pipeline" / "day1_arXiv.xml"  # 11 real records with affiliations
OA_WORK = FIXTURES / "openalex" / "W3188841554.json"


@pytest.fixture
def taxonomy(db):
    if not Category.objects.filter(code="hep-th").exists():
        load_taxonomy(Category)  # a transactional test flushed the migration's rows


def status_of(name: str) -> pipeline.StageStatus:
    return next(row for row in pipeline.pipeline_status() if row.name == name)


def test_status_of_an_empty_archive_says_nothing_waits(db):
    rows = pipeline.pipeline_status()
    assert [row.name for row in rows] == [
        "harvest",
        "affiliations",
        "authors",
        "search-index",
        "signing",
        "embeddings",
        "researcher-summaries",
        "institution-summaries",
        "archive-facts",
        "digests",
    ]
    assert [row.queue for row in rows] == [
        "harvest",
        "affiliations",
        "authors",
        "search-index",
        "signing",
        "embeddings",
        "summaries",
        "summaries",
        "summaries",
        "digests",
    ]
    for row in rows:
        assert row.outcome == "" and not row.failing and row.oldest_age is None
    assert status_of("authors").waiting == "0 papers"
    assert status_of("digests").waiting == "0 users"
    assert status_of("search-index").waiting == "0 changes"  # the index is off in tests
    out = StringIO()
    call_command("pipeline_status", stdout=out)
    assert (
        out.getvalue().splitlines()[-1] == "pipeline_status: 10 stages, 0 paper-stages waiting, none failing"
    )


def test_a_backlogged_archive_is_counted_then_worked_off_inline(taxonomy, settings):
    settings.PIPELINE_INLINE_DEFER = ["embeddings"]
    institutions_load(paths=[ROR_DUMP])
    harvest_files(paths=[DAY1_ARXIV])  # 11 papers, 8 of them with affiliation strings
    with_strings = Paper.objects.filter(authors__affiliations__len__gt=0).distinct().count()
    assert with_strings == 11
    assert status_of("affiliations").backlog.waiting == with_strings
    assert status_of("authors").backlog.waiting == 11
    assert status_of("signing").backlog.waiting == 11
    assert status_of("authors").oldest_age is not None

    results = dict((stage.name, result) for stage, result in pipeline.pipeline_run_inline())
    assert results["affiliations"]["status"] == "ok" and results["affiliations"]["created"] > 0
    assert results["authors"]["slots"] == PaperAuthor.objects.filter(is_collaboration=False).count()
    assert results["signing"]["papers_signed"] == 11
    assert results["embeddings"] == {
        "status": "deferred to the workers",
        "waiting": results["embeddings"]["waiting"],
    }
    for name in ("affiliations", "authors", "signing"):
        row = status_of(name)
        assert (row.outcome, row.backlog.waiting, row.oldest_age) == ("ok", 0, None)
    # Every slot with strings carries its mark; a second run matches nothing.
    assert AffiliationMatchMark.objects.count() == PaperAuthor.objects.exclude(affiliations=[]).count()
    again = dict((stage.name, result) for stage, result in pipeline.pipeline_run_inline())
    assert (again["affiliations"]["slots"], again["authors"]["slots"], again["signing"]["papers_signed"]) == (
        0,
        0,
        0,
    )
    # A registry load that changes an institution makes every slot pending again.
    mit = Institution.objects.get(ror_id="042nb2s44")
    Institution.objects.filter(pk=mit.pk).update(content_hash="changed")
    institutions_load(paths=[ROR_DUMP])
    assert status_of("affiliations").backlog.waiting == with_strings


def test_a_busy_stage_does_nothing_and_says_so(db):
    other = psycopg.connect(database_url(), autocommit=True)
    key = [LOCK_NAMESPACE, lock_key("stage:signing")]
    try:
        other.execute("SELECT pg_advisory_lock(%s, %s)", key)
        called = []
        assert stage_execute("signing", lambda: called.append(1) or {}) == {"status": "busy"}
        assert called == []
        assert StageRun.objects.get(stage="signing").outcome == "busy"
        assert lock_held_elsewhere("stage:signing") and not lock_held_elsewhere("stage:authors")
        other.execute("SELECT pg_advisory_unlock(%s, %s)", key)
        assert not lock_held_elsewhere("stage:signing")
    finally:
        other.close()
    assert stage_execute("signing", lambda: {"n": 1}) == {"status": "ok", "n": 1}


def test_three_failures_running_flag_the_stage(db):
    def boom() -> dict:
        raise RuntimeError("registry down")

    for attempt in range(3):
        assert status_of("authors").failing is False, attempt
        with pytest.raises(RuntimeError):
            stage_execute("authors", boom)
    row = status_of("authors")
    assert (row.outcome, row.failing, row.last_error) == ("failed", True, "RuntimeError: registry down")
    out = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("pipeline_status", stdout=out)
    assert exit_info.value.code == 1
    assert re.search(
        r"^authors last error at [-0-9]+ [:0-9]+: RuntimeError: registry down$", out.getvalue(), re.M
    )
    assert out.getvalue().splitlines()[-1].endswith("FAILING: authors")
    stage_execute("authors", lambda: {})
    assert status_of("authors").failing is False


def test_a_killed_run_is_marked_interrupted_by_the_next(db):
    StageRun.objects.create(stage="signing", started_at="2026-11-01T00:00:00Z")  # its worker died
    assert status_of("signing").outcome == "interrupted (no process holds it)"
    stage_execute("signing", lambda: {})
    assert list(
        StageRun.objects.filter(stage="signing").order_by("pk").values_list("outcome", flat=True)
    ) == [
        "interrupted",
        "ok",
    ]


def test_harvest_command_runs_the_stages_here_when_no_worker_answers(taxonomy, settings):
    settings.PIPELINE_AFTER_HARVEST = True
    settings.PIPELINE_INLINE_DEFER = ["embeddings"]
    out = StringIO()
    call_command("harvest_arxiv", "--no-progress", "--file", str(DAY1_ARXIV), stdout=out)
    lines = out.getvalue().splitlines()
    assert re.match(r"harvest run \d+ complete: 11 records seen, 11 papers written", lines[0])
    assert [line.split(":")[0] for line in lines[1:-1]] == list(pipeline.STAGE_NAMES)
    assert lines[4].startswith("signing: ok (papers checked 11, papers signed 11")
    assert lines[-1] == "pipeline: 8 of 9 stages run here, embeddings left to the workers"
    assert not Authorship.objects.filter(slot__isnull=True).exists()
    assert Authorship.objects.count() == PaperAuthor.objects.filter(is_collaboration=False).count()

    out = StringIO()
    call_command("harvest_arxiv", "--no-progress", "--no-pipeline", "--file", str(DAY1_ARXIV), stdout=out)
    assert len(out.getvalue().splitlines()) == 1


def test_the_procfile_worker_consumes_every_queue(settings):
    procfile = (ROOT / "Procfile").read_text()
    worker = next(line for line in procfile.splitlines() if line.startswith("worker:"))
    assert worker.split("-Q ")[1].split()[0].split(",") == settings.CELERY_ALL_QUEUES
    assert set(settings.CELERY_ALL_QUEUES) >= {stage.queue for stage in pipeline.STAGES}


def _ritsos_paper(arxiv_id: str) -> Paper:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug="p", title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=paper, position=1, name="Panagiotis D. Ritsos", keyname="Ritsos", forenames="Panagiotis D."
    )
    return paper


def test_openalex_matching_links_institutions_and_its_summary_counts_papers(db):
    institutions_load(paths=[ROR_DUMP])
    paper = Paper.objects.create(
        arxiv_id="2108.04680", slug="x", title="Vis for visualisation", categories=["cs.HC"]
    )
    names = [
        ("Roberts", "Jonathan C."),
        ("Mearman", "Joseph W."),
        ("Butcher", "Peter W. S."),
        ("Al-Maneea", "Hayder M."),
        ("Ritsos", "Panagiotis D."),
    ]
    for i, (key, fore) in enumerate(names, start=1):
        PaperAuthor.objects.create(paper=paper, position=i, name=f"{fore} {key}", keyname=key, forenames=fore)
    work = openalex.parse_work(json.loads(OA_WORK.read_text()))
    assert work.authors[0].ror_ids == ["https://ror.org/006jb1a24"]
    summary = researchers_match_authors(sources=["openalex"], fetch=lambda source, ids: [work])
    assert (summary.papers, summary.slots, summary.matched_by_source, summary.researchers_created) == (
        1,
        5,
        5,
        5,
    )
    assert summary.line().startswith(
        "matched 5 author slots on 1 papers: 5 via sources, 0 locally, 5 researchers created"
    )
    # Every author's OpenAlex institution (Bangor University, ROR 006jb1a24) is linked by id.
    links = AuthorAffiliation.objects.filter(slot__paper=paper)
    assert sorted(links.values_list("slot__position", "institution__ror_id", "source")) == [
        (i, "006jb1a24", "openalex") for i in range(1, 6)
    ]


@pytest.mark.django_db(transaction=True)
def test_two_source_matches_of_one_new_orcid_make_one_researcher():
    """Two workers attach two papers of one ORCID iD nobody holds yet, at the same moment:
    before, both created its researcher and the loser's unique-key error left its slot
    unmatched."""
    papers = [_ritsos_paper("2109.00001"), _ritsos_paper("2109.00002")]
    author = SourceAuthor(1, "Panagiotis D. Ritsos", "A5065371627", "0000-0001-9308-3885")
    barrier = threading.Barrier(2)

    def meet(sender, **kwargs):  # both transactions past their reads, if nothing serialises them
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=3)

    errors = []

    def attach(paper: Paper) -> None:
        try:
            researchers_attach_from_source(work=SourceWork("openalex", paper.arxiv_id, [author]))
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    source_authors_aligned.connect(meet, dispatch_uid="test-meet")
    try:
        threads = [threading.Thread(target=attach, args=(p,)) for p in papers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        source_authors_aligned.disconnect(dispatch_uid="test-meet")
    assert errors == []
    ritsos = Researcher.objects.get(orcid="0000-0001-9308-3885")
    assert sorted(Authorship.objects.filter(researcher=ritsos).values_list("paper__arxiv_id", flat=True)) == [
        "2109.00001",
        "2109.00002",
    ]


def test_run_pipeline_command_and_the_admin_page(taxonomy, settings, admin_client, client):
    settings.PIPELINE_INLINE_DEFER = []
    settings.SEMANTIC_MODEL = "none"
    harvest_files(paths=[DAY1_ARXIV])
    out = StringIO()
    call_command("run_pipeline", "--no-progress", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("affiliations: ok (slots ")
    assert lines[2] == "search-index: ok (index off)"
    assert lines[4].startswith("embeddings: ok (available False")
    assert lines[-1] == "pipeline: 9 of 9 stages run here"
    page = admin_client.get("/admin/wove/stagerun/")
    html = page.content.decode()
    assert page.status_code == 200 and "<h1>Pipeline</h1>" in html
    assert html.count('<th scope="row">') == 10  # the harvest and nine stages
    assert "papers checked 11" in html
    # Visitors are sent to the admin's sign-in page; nobody can add or edit run rows.
    assert client.get("/admin/wove/stagerun/").status_code == 302
    assert admin_client.get("/admin/wove/stagerun/add/").status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_call_that_finds_the_stage_busy_gets_one_more_pass_from_the_holder():
    """A harvest ending while a long embeddings run is under way: its papers were not pending
    when the run read its work; the run makes one more pass instead of leaving them to beat."""
    passes: list[int] = []
    started, release = threading.Event(), threading.Event()
    results: list[dict] = []

    def slow() -> dict:
        passes.append(1)
        if len(passes) == 1:
            started.set()
            release.wait(10)
        return {"embedded": 3, "available": True}

    def hold() -> None:
        try:
            results.append(stage_execute("embeddings", slow))
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert started.wait(10)
    assert stage_execute("embeddings", lambda: {"embedded": 100}) == {"status": "busy"}
    release.set()
    holder.join(10)
    assert len(passes) == 2
    assert results == [{"status": "ok", "embedded": 6, "available": True}]
    run = StageRun.objects.get(stage="embeddings", outcome="ok")
    assert run.counts == {"embedded": 6, "available": True}


def test_stage_progress_bars_count_without_a_total():
    """A bar per stage, with no total (the backlog counts papers, stages count slots): tqdm
    without a total must never be asked for its truth value (embed_papers crashed on that)."""
    from wove.progress import StageProgress

    stage = pipeline.STAGES[1]
    assert StageProgress(disabled=True)(stage) is None
    progress = StageProgress()
    update = progress(stage)
    update(2)
    update(1)
    assert progress._bar.n == 3 or progress._bar.disable
    progress.close()
    assert progress._bar is None


def test_a_stage_task_that_fails_for_good_lets_the_chain_go_on(db):
    """A broken stage (an unreadable signing key) no longer stops the stages after it."""
    from celery import chain

    from wove.celery import app
    from wove.stages import StageTask

    @app.task(base=StageTask, name="tests.failing_stage", autoretry_for=(OSError,), max_retries=1)
    def failing_stage():
        raise OSError("signing key unreadable")

    @app.task(name="tests.next_stage")
    def next_stage():
        return "ran"

    result = chain(failing_stage.si(), next_stage.si()).apply()
    assert result.get() == "ran"
    assert result.parent.get() == {"status": "failed", "error": "OSError: signing key unreadable"}


def test_status_gives_each_stage_its_rate_and_the_time_to_empty_its_backlog(taxonomy):
    # Issue 29: an operator reads how fast a stage works and when its backlog will be empty.
    harvest_files(paths=[DAY1_ARXIV])  # 11 papers wait for the signing stage
    assert status_of("signing").rate is None  # never run: no rate, no estimate
    assert status_of("signing").eta is None
    day = "2026-12-01T10:00:{:02d}Z"
    # The latest run that signed anything decides; a later sweep that found nothing does not.
    StageRun.objects.create(
        stage="signing",
        outcome="ok",
        started_at=day.format(0),
        finished_at=day.format(20),
        counts={"papers_signed": 100},
    )
    StageRun.objects.create(
        stage="signing",
        outcome="ok",
        started_at=day.format(30),
        finished_at=day.format(31),
        counts={"papers_signed": 0},
    )
    row = status_of("signing")
    assert (row.rate, row.backlog.waiting, row.eta) == (5.0, 11, 2.2)
    assert row.rate_text == "5 papers/s"
    out = StringIO()
    call_command("pipeline_status", stdout=out)
    signing = next(line for line in out.getvalue().splitlines() if line.startswith("signing "))
    assert re.search(r"11 papers\s+\S+ min\s+5 papers/s\s+2 s", signing) or re.search(
        r"11 papers\s+\d+ s\s+5 papers/s\s+2 s", signing
    ), signing
    # A stage whose counts say nothing of its backlog's unit shows no rate.
    assert status_of("affiliations").rate is None


def test_the_workers_get_the_embeddings_beside_the_chain_not_in_it():
    """Issue 29: the embeddings (hours for a snapshot harvest) start with the harvest's end
    and hold nothing up; the archive facts, which count the papers searchable by meaning,
    are refreshed at the end of both branches."""
    signature = pipeline.pipeline_signature()
    branches = [[task.task for task in branch.tasks] for branch in signature.tasks]
    assert branches == [
        [
            "institutions.match_affiliations",
            "researchers.match_authors",
            "papers.sync_search_index",
            "provenance.sign_records",
            "researchers.refresh_summaries",
            "institutions.refresh_summaries",
            "pages.refresh_archive_facts",
            "accounts.send_digests",
        ],
        ["semantic.embed_papers", "pages.refresh_archive_facts"],
    ]
    assert all(task.immutable for branch in signature.tasks for task in branch.tasks)
    # Inline (no worker), the stages keep one order, embeddings before the summaries.
    assert pipeline.STAGE_NAMES.index("embeddings") < pipeline.STAGE_NAMES.index("researcher-summaries")
