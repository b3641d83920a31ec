"""Signing keys: created on first use (owner-only), named, rotated with old keys kept published."""

from __future__ import annotations

import stat
from datetime import UTC, datetime

from provenance.bundles import bundle_build
from provenance.keys import fingerprint_hex
from provenance.models import PublicKey, Record
from provenance.services import event_append, signer_current
from provenance.verify import verify_bundle


def test_missing_key_file_is_created_owner_only(db, signing_key_file):
    assert not signing_key_file.exists()
    signer, row = signer_current()
    assert stat.S_IMODE(signing_key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(signing_key_file.parent.stat().st_mode) == 0o700
    assert signing_key_file.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert row.key_id == f"wove-v1-{datetime.now(UTC):%Y-%m}"
    assert row.fingerprint == fingerprint_hex(signer.public_raw) == signer.fingerprint
    # Loading again gives the same key and publishes nothing new.
    again, _ = signer_current()
    assert again.public_raw == signer.public_raw
    assert PublicKey.objects.count() == 1


def test_key_id_from_settings(db, settings):
    settings.PROVENANCE_KEY_ID = "wove-v7-test"
    signer, row = signer_current()
    assert signer.key_id == row.key_id == "wove-v7-test"


def test_rotation_keeps_old_key_published_and_old_signatures_valid(
    client, signed_raw_page, settings, tmp_path
):
    old_key = PublicKey.objects.get()
    record = Record.objects.get(source_id="0801.3673")
    settings.PROVENANCE_SIGNING_KEY_FILE = str(tmp_path / "rotated" / "key.pem")
    settings.PROVENANCE_KEY_ID = "wove-v2-rotated"
    event = event_append(subject=record, event_type="researcher_merged", payload={"kept": 1, "merged": [2]})
    assert event.key.key_id == "wove-v2-rotated"
    keys = client.get("/.well-known/pith/keys.json").json()["public_keys"]
    assert [k["key_id"] for k in keys] == [old_key.key_id, "wove-v2-rotated"]
    bundle = bundle_build(record=record)
    assert {k["key_id"] for k in bundle["public_keys"]} == {old_key.key_id, "wove-v2-rotated"}
    assert bundle["bundle_signature"]["key_id"] == "wove-v2-rotated"
    assert bundle["events"][0]["signature"]["key_id"] == old_key.key_id
    assert verify_bundle(bundle).ok
