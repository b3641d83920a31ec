"""Harvest runs against replayed real OAI-PMH responses: paging, resume, 503, expired
tokens, errors, deletes, precedence between formats and idempotent re-harvests."""

from datetime import UTC, date, datetime

import httpx
import pytest

from papers import harvest, upsert
from papers.models import HarvestRun, Paper, PaperAuthor, PaperVersion
from papers.oai import OaiClient, OaiError, parse_oai_response
from tests.conftest import FIXTURES

OAI = FIXTURES / "arxiv" / "oai"
ERRORS = FIXTURES / "arxiv" / "errors"
PAGE1 = (OAI / "edited_arXivRaw_ListRecords_page1.xml").read_bytes()
PAGE2 = (OAI / "edited_arXivRaw_ListRecords_page2.xml").read_bytes()
ENDPOINT = "https://oai.example.test/oai"


class Replay:
    """An httpx transport handler answering from a script of responses, keeping requests."""

    def __init__(self, *script):
        self.script = list(script)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        if isinstance(step, httpx.Response):
            return step
        return httpx.Response(200, content=step, headers={"Content-Type": "text/xml"})

    def params(self, index: int) -> dict:
        return dict(self.requests[index].url.params)


class FakeTime:
    """A clock that only moves when something sleeps."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds

    def clock(self) -> float:
        return self.now


def client_for(replay: Replay, fake: FakeTime, **kwargs) -> OaiClient:
    return OaiClient(
        ENDPOINT,
        transport=httpx.MockTransport(replay),
        sleep=fake.sleep,
        clock=fake.clock,
        **kwargs,
    )


@pytest.mark.django_db
def test_list_records_follows_resumption_token_and_waits_three_seconds():
    replay, fake = Replay(PAGE1, PAGE2), FakeTime()
    run = harvest.harvest_oai(
        client=client_for(replay, fake),
        metadata_prefix="arXivRaw",
        from_date=date(2008, 1, 23),
        until_date=date(2008, 1, 25),
    )
    assert run.status == HarvestRun.Status.COMPLETE
    assert (run.pages, run.records_seen, run.records_written, run.records_skipped) == (2, 5, 5, 0)
    assert run.resumption_token == ""
    assert run.complete_list_size == 5
    assert run.response_date == datetime(2014, 1, 16, 10, 33, 29, tzinfo=UTC)
    assert replay.params(0) == {
        "verb": "ListRecords",
        "metadataPrefix": "arXivRaw",
        "from": "2008-01-23",
        "until": "2008-01-25",
    }
    # OAI-PMH: a resumed request carries the token and the verb only.
    assert replay.params(1) == {"verb": "ListRecords", "resumptionToken": "496549|3"}
    assert fake.sleeps == [3.0]
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [
        "0801.3673",
        "0801.3674",
        "0801.3675",
        "0801.3676",
        "0801.3677",
    ]


@pytest.mark.django_db
def test_interrupted_harvest_resumes_from_saved_token():
    fake = FakeTime()
    broken = Replay(PAGE1, httpx.ConnectError("connection reset"), httpx.ConnectError("again"))
    with pytest.raises(httpx.ConnectError):
        harvest.harvest_oai(client=client_for(broken, fake, max_retries=1), metadata_prefix="arXivRaw")
    run = HarvestRun.objects.get()
    assert run.status == HarvestRun.Status.FAILED
    assert run.resumption_token == "496549|3"
    assert Paper.objects.count() == 3

    resumed = Replay(PAGE2)
    run = harvest.harvest_oai(client=client_for(resumed, fake), metadata_prefix="arXivRaw")
    assert resumed.params(0) == {"verb": "ListRecords", "resumptionToken": "496549|3"}
    assert HarvestRun.objects.count() == 1
    assert run.status == HarvestRun.Status.COMPLETE
    assert run.records_seen == 5
    assert Paper.objects.count() == 5


@pytest.mark.django_db
def test_503_with_retry_after_is_honoured():
    fake = FakeTime()
    busy = httpx.Response(503, headers={"Retry-After": "7"}, content=b"<html>busy</html>")
    replay = Replay(busy, PAGE2)
    run = harvest.harvest_oai(client=client_for(replay, fake), metadata_prefix="arXivRaw")
    assert run.status == HarvestRun.Status.COMPLETE
    assert 7.0 in fake.sleeps
    assert len(replay.requests) == 2
    assert Paper.objects.count() == 2


@pytest.mark.django_db
def test_expired_token_restarts_from_the_last_complete_day_without_duplicates():
    fake = FakeTime()
    expired = (ERRORS / "saelim_ErrorResponseBadResumptionToken.xml").read_bytes()
    replay = Replay(PAGE1, expired, PAGE1, PAGE2)
    run = harvest.harvest_oai(
        client=client_for(replay, fake), metadata_prefix="arXivRaw", from_date=date(2008, 1, 23)
    )
    assert run.status == HarvestRun.Status.COMPLETE
    assert run.restarts == 1
    # PAGE1's newest datestamp is 2008-11-26: every day before it is complete, so the list
    # restarts from 2008-11-25 (inclusive), not from the window's 2008-01-23 (BUGS.md OAI-01).
    assert replay.params(2) == {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "from": "2008-11-25"}
    assert Paper.objects.count() == 5
    assert PaperVersion.objects.filter(paper__arxiv_id="0801.3674").count() == 4


@pytest.mark.django_db
def test_bad_argument_fails_the_run_loudly():
    replay = Replay((ERRORS / "saelim_ErrorResponseBadArgument.xml").read_bytes())
    with pytest.raises(OaiError) as caught:
        harvest.harvest_oai(client=client_for(replay, FakeTime()), metadata_prefix="arXivRaw")
    assert caught.value.code == "badArgument"
    run = HarvestRun.objects.get()
    assert run.status == HarvestRun.Status.FAILED
    assert "badArgument" in run.error


@pytest.mark.django_db
def test_no_records_match_is_an_empty_complete_run():
    replay = Replay((ERRORS / "saelim_ErrorResponseNoRecordsMatch.xml").read_bytes())
    run = harvest.harvest_oai(client=client_for(replay, FakeTime()), metadata_prefix="arXivRaw")
    assert (run.status, run.records_seen) == (HarvestRun.Status.COMPLETE, 0)


@pytest.mark.django_db
def test_next_incremental_run_starts_on_last_response_day():
    fake = FakeTime()
    harvest.harvest_oai(client=client_for(Replay(PAGE1, PAGE2), fake), metadata_prefix="arXivRaw")
    replay = Replay(PAGE2)
    harvest.harvest_oai(client=client_for(replay, fake), metadata_prefix="arXivRaw")
    # responseDate of the first run was 2014-01-16T10:33:29Z: that day, inclusive.
    assert replay.params(0)["from"] == "2014-01-16"


@pytest.mark.django_db
def test_deleted_header_marks_the_paper_deleted_and_keeps_it():
    harvest.harvest_files(paths=[OAI / "edited_arXivRaw_ListRecords_page1.xml"])
    run = harvest.harvest_files(paths=[OAI / "edited_arXivRaw_deleted_header.xml"])
    assert run.records_deleted == 1
    paper = Paper.objects.get(arxiv_id="0801.3674")
    assert paper.deleted
    assert paper.title == "A Study of Structure Formation and Reheating in the D3/D7 Brane Inflation Model"
    assert not Paper.objects.get(arxiv_id="0801.3675").deleted


@pytest.mark.django_db
def test_malformed_records_are_logged_and_skipped(caplog):
    run = harvest.harvest_files(paths=[OAI / "edited_arXivRaw_malformed_records.xml"])
    assert run.status == HarvestRun.Status.COMPLETE
    assert (run.records_seen, run.records_written, run.records_skipped) == (3, 1, 2)
    assert list(Paper.objects.values_list("arxiv_id", flat=True)) == ["0801.3675"]
    assert "0801.3673" in caplog.text and "no title" in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize("order", ["raw-first", "arxiv-first"])
def test_arxiv_raw_wins_versions_and_arxiv_wins_authors(order):
    raw = OAI / "edited_arXivRaw_ListRecords_page1.xml"
    arxiv = OAI / "edited_arXiv_0704.4001_as_0801.3674.xml"
    for path in [raw, arxiv] if order == "raw-first" else [arxiv, raw]:
        harvest.harvest_files(paths=[path])
    paper = Paper.objects.get(arxiv_id="0801.3674")
    authors = list(paper.authors.order_by("position").values_list("name", flat=True))
    assert authors == ["Michael R. Douglas", "Jessie Shelton", "Gonzalo Torroba"]
    assert (paper.authors_source, paper.versions_source) == ("arXiv", "arXivRaw")
    assert list(paper.versions.values_list("version", flat=True)) == [1, 2, 3, 4]
    assert paper.submitted_at == datetime(2008, 1, 23, 21, 13, 53, tzinfo=UTC)
    assert not paper.submitted_day_precision
    assert paper.latest_version == 4


@pytest.mark.django_db
def test_arxiv_format_alone_gives_day_precision():
    harvest.harvest_files(paths=[OAI / "hepcrawl_arxiv-physics-hep-th.xml"])
    paper = Paper.objects.get(arxiv_id="1412.8323")
    assert paper.submitted_day_precision
    assert paper.submitted_at.time().isoformat() == "00:00:00"
    # Six codes in the record; math.MP is arXiv's alias of math-ph, so five remain.
    assert paper.categories == ["quant-ph", "gr-qc", "hep-th", "math-ph", "physics.hist-ph"]
    assert paper.primary_category_id == "quant-ph"


@pytest.mark.django_db
def test_sample_harvest_and_idempotent_reharvest(sample_papers):
    assert Paper.objects.count() == 2800
    slots, versions = PaperAuthor.objects.count(), PaperVersion.objects.count()
    stamp = max(Paper.objects.values_list("modified_at", flat=True))
    from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

    again = harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    kaggle = harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
    assert (again.records_seen, again.records_written) == (2000, 0)
    assert (kaggle.records_seen, kaggle.records_written) == (800, 0)
    assert (PaperAuthor.objects.count(), PaperVersion.objects.count()) == (slots, versions)
    assert max(Paper.objects.values_list("modified_at", flat=True)) == stamp
    # Hand-checked values from the sample.
    first = Paper.objects.get(arxiv_id="0704.0001")
    assert first.authors_text == "C. Balázs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan"
    assert first.versions.count() == 2
    assert Paper.objects.get(arxiv_id="0705.0116").authors.count() == 71
    assert (
        Paper.objects.filter(withdrawn=True, arxiv_id__in=["0705.0134", "0801.4122", "0704.0374"]).count()
        == 3
    )


@pytest.mark.django_db
def test_category_aliases_map_to_canonical_codes(tmp_path):
    # 0704.0019 (Kaggle sample) is filed as math.NA; arXiv says cs.NA is an alias of it.
    from papers.upsert import CategoryMap

    assert CategoryMap().canonical(["cs.NA", "math.NA", "alg-geom", "hep-th"]) == [
        "math.NA",
        "math.AG",
        "hep-th",
    ]


def test_identify_reads_granularity_and_deleted_record_policy():
    replay = Replay((OAI / "paperhive_Identify.xml").read_bytes())
    info = client_for(replay, FakeTime()).identify()
    assert info["granularity"] == "YYYY-MM-DD"
    assert info["deletedRecord"] == "persistent"
    assert info["earliestDatestamp"] == "2007-05-23"
    assert replay.params(0) == {"verb": "Identify"}


@pytest.mark.django_db
def test_a_page_of_1000_records_is_written_in_a_bounded_number_of_queries(django_assert_max_num_queries):
    from tests.conftest import SAMPLE_OAI_RAW

    page = parse_oai_response(str(SAMPLE_OAI_RAW))
    categories = upsert.CategoryMap()
    # Two batches of 500: read papers (locked), lock the new ids and read them again,
    # read slots, read versions, write papers, slots, versions, prune stale rows, and the
    # pages' collaborations (issue 19: drop the old entries, find or create the
    # collaborations, write entries and member links); no query per record.
    with django_assert_max_num_queries(44):
        result = upsert.papers_upsert(records=page.records[:500], categories=categories)
        result2 = upsert.papers_upsert(records=page.records[500:], categories=categories)
    assert result.written + result2.written == 1000


@pytest.mark.django_db
def test_a_large_load_refreshes_planner_statistics():
    # Bug: right after loading the sample inside one transaction, PostgreSQL still believed
    # the tables empty and chose nested loops that ran for minutes (institution fields).
    from django.db import connection

    from tests.conftest import SAMPLE_OAI_RAW

    harvest.harvest_files(paths=[SAMPLE_OAI_RAW])
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'papers_paper'")
        assert cursor.fetchone()[0] == 1000


@pytest.mark.django_db
def test_a_batch_inserts_its_new_papers_straight_in_and_updates_the_stored_one():
    # New papers take ids from the table's sequence in record order and go in by one COPY;
    # a stored paper in the same batch keeps its id and its slots; each new paper gets its
    # slots and versions (the sample's first three arXivRaw records, 0704.0001-0704.0003).
    from tests.conftest import SAMPLE_OAI_RAW

    first, second, third = parse_oai_response(str(SAMPLE_OAI_RAW)).records[:3]
    upsert.papers_upsert(records=[second])
    stored = Paper.objects.get(arxiv_id=second.arxiv_id)
    slot_ids = list(
        PaperAuthor.objects.filter(paper=stored).order_by("position").values_list("id", flat=True)
    )
    result = upsert.papers_upsert(records=[first, second, third])
    assert (result.written, result.unchanged) == (2, 1)
    ids = dict(Paper.objects.values_list("arxiv_id", "id"))
    assert ids[second.arxiv_id] == stored.id
    assert stored.id < ids[first.arxiv_id] < ids[third.arxiv_id]
    assert (
        list(PaperAuthor.objects.filter(paper=stored).order_by("position").values_list("id", flat=True))
        == slot_ids
    )
    for record in (first, third):
        paper = Paper.objects.get(arxiv_id=record.arxiv_id)
        assert [a.name for a in paper.authors.order_by("position")] == [a.name for a in record.authors]
        assert sorted(paper.versions.values_list("version", flat=True)) == [
            v.version for v in record.versions
        ]
        assert paper.search_vector  # the generated column is filled by the COPY too


@pytest.mark.django_db
def test_a_merge_failing_halfway_through_a_streamed_page_writes_none_of_it(monkeypatch):
    # A page of new papers is merged while the COPY streams it: an error on its third record
    # (forced here) must abort the COPY and leave no paper, slot or version of the page.
    from tests.conftest import SAMPLE_OAI_RAW

    records = parse_oai_response(str(SAMPLE_OAI_RAW)).records[:5]
    merge = upsert._merge

    def failing(existing, record, categories):
        if record is records[2]:
            raise ValueError("merge failed on purpose")
        return merge(existing, record, categories)

    monkeypatch.setattr(upsert, "_merge", failing)
    with pytest.raises(ValueError, match="on purpose"):
        upsert.papers_upsert(records=records)
    assert (Paper.objects.count(), PaperAuthor.objects.count(), PaperVersion.objects.count()) == (0, 0, 0)
    monkeypatch.setattr(upsert, "_merge", merge)
    assert upsert.papers_upsert(records=records).written == 5
    assert Paper.objects.count() == 5
