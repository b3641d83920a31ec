"""The database refuses UPDATE and DELETE on signed records, events and published keys."""

from __future__ import annotations

import pytest
from django.db import ProgrammingError, connection, transaction

from provenance.models import Event, PublicKey, Record


def _refused(sql: str, params: list) -> str:
    with pytest.raises(ProgrammingError) as info, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(info.value)


def test_events_cannot_be_updated_or_deleted(signed_raw_page):
    event = Event.objects.filter(event_type="graph_snapshot").first()
    with pytest.raises(ProgrammingError), transaction.atomic():
        Event.objects.filter(pk=event.pk).update(target="tampered")
    with pytest.raises(ProgrammingError), transaction.atomic():
        Event.objects.filter(pk=event.pk).delete()
    message = _refused(
        "UPDATE provenance_event SET content = '{}'::jsonb WHERE content_sha256 = %s", [event.pk]
    )
    assert "Cannot update or delete rows from provenance_event" in message
    _refused("DELETE FROM provenance_event WHERE content_sha256 = %s", [event.pk])
    event.refresh_from_db()
    assert event.target == "graph"
    assert Event.objects.count() == 12


def test_records_cannot_be_updated_or_deleted(signed_raw_page):
    record = Record.objects.first()
    assert "Cannot update or delete rows from provenance_record" in _refused(
        "UPDATE provenance_record SET source_version = 9 WHERE canonical_sha256 = %s", [record.pk]
    )
    _refused("DELETE FROM provenance_record WHERE canonical_sha256 = %s", [record.pk])
    assert Record.objects.count() == 6


def test_published_keys_stay(signed_raw_page):
    key = PublicKey.objects.get()
    assert "Cannot update rows from provenance_publickey" in _refused(
        "UPDATE provenance_publickey SET public_key_hex = %s WHERE id = %s", ["00" * 32, key.pk]
    )
    assert "Cannot delete rows from provenance_publickey" in _refused(
        "DELETE FROM provenance_publickey WHERE id = %s", [key.pk]
    )
    # rotates_at may still be set (announcing a rotation).
    PublicKey.objects.filter(pk=key.pk).update(rotates_at="2027-01-01T00:00:00Z")
