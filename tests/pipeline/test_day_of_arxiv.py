"""A day of arXiv, end to end: a real Celery worker over Redis and PostgreSQL harvests two days
from a replayed OAI-PMH repository, and the pipeline the harvests send does the rest
(affiliations, authors, signing, embeddings, summaries, digests) with nobody calling a step."""

from __future__ import annotations

import email
import re
from pathlib import Path

import pytest
from django.db.models import Count

from accounts import services as account_services
from accounts.models import Digest
from accounts.saved_searches import saved_search_save
from institutions.models import AuthorAffiliation
from institutions.services import institutions_load
from papers.models import Category, Paper, PaperAuthor
from papers.taxonomy import load_taxonomy
from provenance.models import Event, Record
from provenance.signing import papers_to_sign
from researchers.models import Authorship, Researcher
from researchers.services import unmatched_slots
from semantic.models import PaperEmbedding
from semantic.schema import vector_column_exists
from tests.accounts.conftest import make_reader
from tests.accounts.test_digest_worker import SmtpSink, smtp_sink  # noqa: F401 - fixture
from tests.celery_helpers import app_on_broker, celery_worker, redis_server, wait_for
from tests.oai_replay import DailyOaiServer
from wove.models import StageRun

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ROR_DUMP = ROOT / "data" / "ror" / "ror_records_v2.json"
DAY2_NEW = {f"2611.0000{n}" for n in range(1, 9)}
DAY2_V2, DAY2_DELETED = "0801.3673", "0801.3675"
# The arXiv-format day-1 papers and the ROR institutions their affiliation strings name
# (tests/fixtures/arxiv/pipeline/README.md), e.g. "CERN, Geneva, Switzerland" -> 01ggx4157.
AFFILIATIONS = {
    ("0705.0139", "042nb2s44"),
    ("0705.0171", "01ggx4157"),
    ("0705.0209", "02kvxyf05"),
    ("0705.0210", "02kvxyf05"),
    ("0705.0380", "00jmfr291"),
    ("0705.0536", "01an7q238"),
    ("0705.0712", "03vek6s52"),
    ("0705.0782", "03dbr7087"),
    ("0705.0935", "05dxps055"),
    ("0705.0986", "05dxps055"),
    ("0705.0987", "05dxps055"),
}


def beat_harvests(app, broker: str) -> None:
    """What beat's daily entry sends, once per metadataPrefix this archive harvests."""
    with app.connection_for_write(broker) as connection:
        app.send_task("papers.harvest_arxiv", kwargs={}, connection=connection)  # arXivRaw: the default
        app.send_task("papers.harvest_arxiv", kwargs={"metadata_prefix": "arXiv"}, connection=connection)


def chains_done(count: int):
    """A predicate: ``count`` pipelines have reached the last stage of both their branches
    (the chain's digests; the embeddings and the archive facts after them beside it: two
    archive-facts runs a pipeline) and nothing runs."""
    last = {"digests": count, "embeddings": count, "archive-facts": 2 * count}

    def done() -> bool:
        runs = StageRun.objects.exclude(outcome=StageRun.Outcome.RUNNING)
        ended = all(runs.filter(stage=stage).count() >= n for stage, n in last.items())
        return ended and not StageRun.objects.filter(outcome="running").exists()

    return done


def snapshot() -> dict[str, object]:
    """Every row count the pipeline writes, and the papers' content hashes."""
    return {
        "papers": dict(Paper.objects.values_list("arxiv_id", "content_hash")),
        "slots": PaperAuthor.objects.count(),
        "authorships": Authorship.objects.count(),
        "researchers": Researcher.objects.count(),
        "records": Record.objects.count(),
        "events": Event.objects.count(),
        "embeddings": PaperEmbedding.objects.count(),
        "affiliations": AuthorAffiliation.objects.count(),
        "digests": Digest.objects.count(),
    }


def sitemap_text(client) -> str:
    index = client.get("/sitemap.xml").content.decode()
    sections = re.findall(r"<loc>https?://[^/]+(/sitemap-[^<]+)</loc>", index)
    return "".join(client.get(path).content.decode() for path in sections)


def test_two_days_of_arxiv_flow_through_the_pipeline_by_themselves(
    client,
    smtp_sink,  # noqa: F811
    settings,
    tmp_path,
):
    from papers import search_index, search_index_sync
    from wove.celery import app

    # The worker keeps the keyword search index; this process's pages read it (issue 28).
    settings.SEARCH_INDEX_DIR = str(tmp_path / "search-index")
    settings.SEARCH_INDEX_MAX_LAG = 0

    if not Category.objects.filter(code="hep-th").exists():
        load_taxonomy(Category)  # a transactional test before this one flushed the migration's rows
    institutions_load(paths=[ROR_DUMP])
    with DailyOaiServer.pipeline(today="2026-11-01", page_size=10) as oai, redis_server() as broker:
        env = {
            "ARXIV_OAI_ENDPOINT": oai.url,
            "ARXIV_OAI_MIN_INTERVAL": "0",
            "PIPELINE_AFTER_HARVEST": "1",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_sink),
            "EMAIL_USE_TLS": "0",
            "SEARCH_INDEX_DIR": settings.SEARCH_INDEX_DIR,
        }
        with celery_worker(broker, env) as worker, app_on_broker(app, broker):
            log = Path(worker.log_path)
            # Day 1: beat's harvests, and nothing else sent by anyone.
            beat_harvests(app, broker)
            assert wait_for(chains_done(2), timeout=600), log.read_text()[-4000:]
            day1 = set(Paper.objects.values_list("arxiv_id", flat=True))
            assert len(day1) == 51
            assert not unmatched_slots().exists()
            assert not papers_to_sign().exists()
            assert client.get(f"/papers/{DAY2_DELETED}", follow=True).status_code == 200
            assert DAY2_DELETED in sitemap_text(client)
            # A reader follows a day-1 researcher before day 2 comes.
            sharpe = Researcher.objects.get(display_name="Eric Sharpe")
            reader = make_reader("ada@example.org")
            account_services.follow_create(user_id=reader.pk, target=sharpe)
            account_services.account_settings_update(user_id=reader.pk, digest_frequency="daily")
            # Another saves a search (issue 31): day 2's one quant-ph paper with "quantum" in
            # its title, 2611.00007 "Quantum computing of semiclassical formulas", is new to it.
            searcher = make_reader("grace@example.org")
            saved_search_save(
                user_id=searcher.pk, data={"name": "Quantum", "q": "quantum", "category": "quant-ph"}
            )
            account_services.account_settings_update(user_id=searcher.pk, digest_frequency="daily")

            # Day 2: new papers, a new version of a day-1 paper, a deleted header.
            oai.today = "2026-11-02"
            beat_harvests(app, broker)
            assert wait_for(chains_done(4), timeout=600), log.read_text()[-4000:]
            assert wait_for(lambda: len(SmtpSink.received) >= 2, timeout=120), log.read_text()[-4000:]
            after_day2 = snapshot()

            # The same day again: the pipeline finds nothing to do.
            beat_harvests(app, broker)
            assert wait_for(chains_done(6), timeout=600), log.read_text()[-4000:]
            text = log.read_text()

    assert " raised unexpected" not in text and "Traceback" not in text, text[-4000:]
    papers = set(Paper.objects.values_list("arxiv_id", flat=True))
    assert papers == day1 | DAY2_NEW
    # Every person slot of every paper has a researcher; collaborations have none.
    assert not unmatched_slots().exists()
    assert (
        Authorship.objects.filter(paper__arxiv_id__in=DAY2_NEW).count()
        == PaperAuthor.objects.filter(paper__arxiv_id__in=DAY2_NEW, is_collaboration=False).count()
    )
    # The day-2 paper joined the day-1 researcher it shares a name and co-authors' field with.
    assert Authorship.objects.filter(researcher=sharpe, paper__arxiv_id="2611.00001").exists()
    # Matching affiliation strings link their institutions.
    links = set(AuthorAffiliation.objects.values_list("slot__paper__arxiv_id", "institution__ror_id"))
    assert links == AFFILIATIONS
    # Each paper and version is signed; v2 of 0801.3673 supersedes v1.
    assert not papers_to_sign().exists()
    signed = dict(
        Record.objects.values("paper__arxiv_id").annotate(n=Count("pk")).values_list("paper__arxiv_id", "n")
    )
    assert set(signed) == day1 | DAY2_NEW
    created = {
        e.record.source_version: e
        for e in Event.objects.filter(record__source_id=DAY2_V2, event_type="record_created").select_related(
            "record"
        )
    }
    assert sorted(created) == [1, 2]
    assert created[2].content["supersedes"] == [created[1].event_id]
    # Vectors for every live paper (when this database has pgvector).
    if vector_column_exists():
        live = set(Paper.objects.filter(deleted=False).values_list("arxiv_id", flat=True))
        assert set(PaperEmbedding.objects.values_list("paper__arxiv_id", flat=True)) == live
    # The deleted paper answers 410 and is gone from search, feeds and the sitemap.
    assert client.get(f"/papers/{DAY2_DELETED}", follow=True).status_code == 410
    title = Paper.objects.get(arxiv_id=DAY2_DELETED).title
    assert DAY2_DELETED not in client.get("/search", {"q": title}).content.decode()
    # The worker's search-index stage kept the index in step: current, every day-2 paper
    # findable by its title words, the deleted one gone.
    assert search_index.usable() is not None
    assert search_index.search(f'"{title}"').count == 0
    for paper in Paper.objects.filter(arxiv_id__in=DAY2_NEW):
        assert paper.pk in search_index.search(f'"{paper.title}"', limit=50).ids, paper.arxiv_id
    assert search_index_sync.status()["papers"] == Paper.objects.public().count()
    assert DAY2_DELETED not in client.get("/rss/latest.xml").content.decode()
    assert DAY2_DELETED not in sitemap_text(client)
    # The follower got exactly one digest, holding Sharpe's day-2 paper; the searcher one,
    # holding the paper their saved search matched.
    assert len(SmtpSink.received) == 2
    listed = {}
    for raw in SmtpSink.received:
        message = email.message_from_bytes(raw)
        html = next(part for part in message.walk() if part.get_content_type() == "text/html")
        listed[message["To"]] = re.findall(r'data-arxiv-id="([^"]+)"', html.get_payload(decode=True).decode())
    assert listed == {"ada@example.org": ["2611.00001"], "grace@example.org": ["2611.00007"]}
    # Running the day again changed nothing.
    assert snapshot() == after_day2
