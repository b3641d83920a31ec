"""Two workers signing at once, or one signing in two forked processes, write each record
and event exactly once."""

from __future__ import annotations

import os
import threading

import pytest
from django.db import connection

from papers import harvest as paper_harvest
from papers.models import Paper
from provenance.authorships import authorships_sign
from provenance.bundles import bundle_build
from provenance.models import AuthorshipSigning, Event, Record
from provenance.selectors import pith_for_paper
from provenance.services import records_sign, signer_current
from provenance.verify import verify_bundle
from researchers.models import Authorship
from researchers.services import researchers_match_authors

from .conftest import RAW_PAGE1


@pytest.mark.django_db(transaction=True)
def test_two_signers_at_once_write_each_event_once():
    paper_harvest.harvest_files(
        paths=[RAW_PAGE1, RAW_PAGE1.with_name("edited_arXivRaw_ListRecords_page2.xml")]
    )
    signer_current()  # publish the key before the race (both workers share the key file)
    barrier = threading.Barrier(2)
    results, errors = [], []

    def worker() -> None:
        try:
            barrier.wait()
            results.append(records_sign(batch_size=2))
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    # 5 papers: 0801.3673 (1 version), 0801.3674 (4), 0801.3675 (1), 0801.3676 (2), 0801.3677 (2).
    assert Record.objects.count() == 10
    assert Event.objects.count() == 20
    assert Event.objects.filter(event_type="record_created").values("record").distinct().count() == 10
    assert sum(r.records_created for r in results) == 10
    assert sum(r.events_created for r in results) == 20
    assert records_sign().events_created == 0


@pytest.mark.django_db(transaction=True)
def test_signing_in_two_forked_processes_writes_every_record_and_authorship_once(monkeypatch):
    """Issue 29: records and authorship events signed by two forked children (one batch of
    one paper each at a time), as a first load's signing stage does on both cores. The
    counts are the real pages' own, and every paper's bundle verifies."""
    paper_harvest.harvest_files(
        paths=[RAW_PAGE1, RAW_PAGE1.with_name("edited_arXivRaw_ListRecords_page2.xml")]
    )
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())

    result = records_sign(batch_size=1, workers=2)
    # 5 papers, 10 versions: a record and two events each (as above).
    assert (result.papers_checked, result.records_created, result.events_created) == (5, 10, 20)
    assert len(forks) == 2
    researchers_match_authors(sources=[])
    links = Authorship.objects.count()
    assert links > 5
    assert authorships_sign(batch_size=1, workers=2) == links
    assert len(forks) == 4
    assert AuthorshipSigning.objects.count() == links
    assert Event.objects.filter(event_type="authorship_matched").count() == links
    for paper in Paper.objects.all():
        assert verify_bundle(bundle_build(record=pith_for_paper(paper))).ok
    assert records_sign(workers=2).events_created == authorships_sign(workers=2) == 0
