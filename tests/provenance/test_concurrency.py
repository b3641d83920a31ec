"""Two workers signing at once write each record and event exactly once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from papers import harvest as paper_harvest
from provenance.models import Event, Record
from provenance.services import records_sign, signer_current

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
