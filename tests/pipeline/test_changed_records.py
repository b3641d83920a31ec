"""What the pipeline's stages leave behind when a paper changes: a new version that drops
authors or affiliation strings, and a harvest page that fails only when it commits."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from django.db import connection
from lxml import etree

from institutions.models import AffiliationMatchMark, AuthorAffiliation
from institutions.selectors import affiliations_pending
from institutions.services import institutions_load
from papers.harvest import harvest_files, harvest_oai
from papers.models import Category, HarvestRun, Paper, PaperAuthor
from papers.oai import OaiClient
from papers.taxonomy import load_taxonomy
from researchers.models import Authorship
from researchers.services import unmatched_slots
from tests.conftest import FIXTURES
from tests.oai_replay import PagedOaiServer
from wove import pipeline

ROOT = Path(__file__).resolve().parents[2]
ROR_DUMP = ROOT / "data" / "ror" / "ror_records_v2.json"
PIPELINE = FIXTURES / "arxiv" / "pipeline"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
# 0705.0139 as recorded: four authors, the first three affiliated "MIT" (ROR 042nb2s44),
# the fourth with a string no bundled ROR record matches.
PAPER = "0705.0139"


@pytest.fixture
def matched(db, settings):
    if not Category.objects.filter(code="hep-th").exists():
        load_taxonomy(Category)  # a transactional test flushed the migration's rows
    settings.PIPELINE_INLINE_DEFER = ["embeddings"]
    institutions_load(paths=[ROR_DUMP])
    harvest_files(paths=[PIPELINE / "day1_arXiv.xml"])
    pipeline.pipeline_run_inline()


def edited_version(tmp_path: Path, *, keep_authors: int, drop_affiliations: bool = False) -> Path:
    """The recorded record of :data:`PAPER`, edited: a later datestamp, only its first
    ``keep_authors`` authors, and (``drop_affiliations``) no affiliation strings."""
    tree = etree.parse(str(PIPELINE / "day1_arXiv.xml"))
    records = tree.getroot().find(f"{OAI}ListRecords")
    for record in list(records):
        if record.tag != f"{OAI}record" or record.findtext(f".//{ARXIV}id") != PAPER:
            records.remove(record)
    (record,) = records.findall(f"{OAI}record")
    record.find(f"{OAI}header/{OAI}datestamp").text = "2026-11-03"
    authors = record.find(f".//{ARXIV}authors")
    for author in list(authors)[keep_authors:]:
        authors.remove(author)
    if drop_affiliations:
        for author in authors:
            for affiliation in author.findall(f"{ARXIV}affiliation"):
                author.remove(affiliation)
    path = tmp_path / f"edited_arXiv_{PAPER}.xml"
    path.write_bytes(etree.tostring(copy.deepcopy(tree.getroot()), xml_declaration=True, encoding="UTF-8"))
    return path


def test_a_new_version_with_fewer_authors_drops_their_slots_links_and_authorships(matched, tmp_path):
    paper = Paper.objects.get(arxiv_id=PAPER)
    assert PaperAuthor.objects.filter(paper=paper).count() == 4
    assert Authorship.objects.filter(paper=paper).count() == 4
    assert set(
        AuthorAffiliation.objects.filter(slot__paper=paper).values_list("institution__ror_id", flat=True)
    ) == {"042nb2s44"}
    assert AuthorAffiliation.objects.filter(slot__paper=paper).count() == 3
    # Before: the slots' deletion skipped the rows kept on them, and COMMIT failed the page.
    run = harvest_files(paths=[edited_version(tmp_path, keep_authors=1)])
    assert (run.status, run.records_written) == (HarvestRun.Status.COMPLETE, 1)
    assert list(PaperAuthor.objects.filter(paper=paper).values_list("position", flat=True)) == [1]
    assert Authorship.objects.filter(paper=paper).count() == 1
    assert AuthorAffiliation.objects.filter(slot__paper=paper).count() == 1
    assert AffiliationMatchMark.objects.filter(slot__paper=paper).count() == 1
    assert not unmatched_slots().exists() and not affiliations_pending().exists()


def test_strings_gone_from_a_slot_take_its_string_link_with_them(matched, tmp_path):
    paper = Paper.objects.get(arxiv_id=PAPER)
    harvest_files(paths=[edited_version(tmp_path, keep_authors=4, drop_affiliations=True)])
    assert affiliations_pending().filter(paper=paper).count() == 4
    results = dict((stage.name, result) for stage, result in pipeline.pipeline_run_inline())
    assert (results["affiliations"]["slots"], results["affiliations"]["removed"]) == (4, 3)
    assert not AuthorAffiliation.objects.filter(slot__paper=paper).exists()
    assert not affiliations_pending().exists()


@pytest.mark.django_db(transaction=True)
def test_a_page_that_fails_at_commit_is_asked_for_again_when_the_harvest_resumes():
    """Before, the run's in-memory resumptionToken had moved past the page when its
    transaction failed at COMMIT, and the resumed run skipped that page for good."""
    if not Category.objects.filter(code="hep-th").exists():
        load_taxonomy(Category)
    source = PIPELINE / "day1_arXivRaw.xml"
    # A check PostgreSQL makes only at COMMIT (as a foreign key's is), failing on page 2.
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_refuse_paper() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF NEW.arxiv_id = '0801.3685' THEN RAISE EXCEPTION 'refused at commit'; END IF; "
            "RETURN NEW; END $$"
        )
        cursor.execute(
            "CREATE CONSTRAINT TRIGGER test_refuse_paper AFTER INSERT OR UPDATE ON papers_paper "
            "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_paper()"
        )
    try:
        with PagedOaiServer(source, page_size=10) as server:
            with (
                pytest.raises(Exception, match="refused at commit"),
                OaiClient(server.url, min_interval=0) as client,
            ):
                harvest_oai(client=client, metadata_prefix="arXivRaw")
            failed = HarvestRun.objects.get()
            assert (failed.status, failed.pages, failed.resumption_token) == ("failed", 1, "replay|10")
            with connection.cursor() as cursor:
                cursor.execute("DROP TRIGGER test_refuse_paper ON papers_paper")
            with OaiClient(server.url, min_interval=0) as client:
                run = harvest_oai(client=client, metadata_prefix="arXivRaw")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER IF EXISTS test_refuse_paper ON papers_paper")
            cursor.execute("DROP FUNCTION IF EXISTS test_refuse_paper()")
    assert (run.pk, run.status, run.pages, run.records_seen) == (failed.pk, "complete", 4, 40)
    assert Paper.objects.count() == 40
    assert Paper.objects.filter(arxiv_id="0801.3685").exists()
