"""Harvesting what is already stored changes nothing signed (issue 18): the bundled sample
harvested again, and an older page replayed after a newer one."""

from __future__ import annotations

import pytest

from papers import harvest as paper_harvest
from papers.models import Paper
from provenance.models import Event, Record
from provenance.services import records_sign
from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

from .conftest import EDITED, RAW_PAGE1


def _hashes() -> dict[str, str]:
    return dict(Paper.objects.values_list("arxiv_id", "content_hash"))


@pytest.mark.django_db
def test_reharvesting_the_sample_changes_no_paper_and_signs_nothing_new(sample_papers):
    signed = records_sign()
    assert signed.records_created > 0 and signed.papers_skipped == 0
    hashes, records, events = _hashes(), Record.objects.count(), Event.objects.count()
    assert len(hashes) == 2800

    runs = [
        paper_harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW]),
        paper_harvest.harvest_kaggle(path=SAMPLE_KAGGLE),
    ]
    assert [run.records_written for run in runs] == [0, 0]
    assert _hashes() == hashes
    again = records_sign()
    assert (again.papers_checked, again.records_created, again.events_created) == (0, 0, 0)
    assert (Record.objects.count(), Event.objects.count()) == (records, events)


@pytest.mark.django_db
def test_an_older_page_replayed_after_a_newer_one_changes_nothing(signed_raw_page):
    # 0801.3673 as a later harvest sees it: v2 added, the title longer, datestamp 2008-02-04.
    paper_harvest.harvest_files(paths=[EDITED / "edited_arXivRaw_0801.3673_v2_later.xml"])
    assert records_sign().events_created == 2  # v2: its record_created and graph_snapshot (new title)
    paper = Paper.objects.get(arxiv_id="0801.3673")
    before = (paper.content_hash, Record.objects.count(), Event.objects.count())

    # The original page (datestamp 2008-01-25: v1 only, the shorter title) comes again.
    run = paper_harvest.harvest_files(paths=[RAW_PAGE1])
    assert run.records_written == 0
    paper.refresh_from_db()
    assert paper.title == "Variational Functionals for Excited States of Atoms"
    assert (paper.latest_version, list(paper.versions.values_list("version", flat=True))) == (2, [1, 2])
    result = records_sign()
    assert (result.records_created, result.events_created) == (0, 0)
    assert (paper.content_hash, Record.objects.count(), Event.objects.count()) == before
