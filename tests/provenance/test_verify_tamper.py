"""Every kind of tampering fails verification, and the failed check is the one named."""

from __future__ import annotations

import base64
import copy

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from provenance.bundles import bundle_build
from provenance.keys import fingerprint_b32, fingerprint_hex, public_raw
from provenance.models import Record
from provenance.services import signer_current
from provenance.verify import verify_bundle


def _failed(bundle: dict) -> list[str]:
    return verify_bundle(bundle).failed


@pytest.fixture
def ours(signed_raw_page) -> dict:
    """Our own bundle for 0801.3673v1 (signed with the test's key, which the tests can use)."""
    return bundle_build(record=Record.objects.get(source_id="0801.3673"))


def test_untouched_bundles_verify(seed, ours):
    assert _failed(seed) == []
    assert _failed(ours) == []


def test_a_record_field_fails_canonical_hash(seed):
    seed["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    failed = _failed(seed)
    assert "canonical_hash" in failed
    assert "key_fingerprints" not in failed and "event_signature" not in failed


def test_a_title_letter_fails_canonical_hash(seed):
    meta = seed["canonical_record"]["metadata"]
    meta["title_canon_sha256"] = "7" + meta["title_canon_sha256"][1:]
    assert "canonical_hash" in _failed(seed)


def test_a_category_fails_canonical_hash(seed):
    seed["canonical_record"]["metadata"]["cross_cats_sorted"] = ["cs.AI"]
    assert "canonical_hash" in _failed(seed)


def test_an_event_payload_fails_event_content_hash(seed):
    seed["events"][1]["payload"]["graph_snapshot"]["paper"]["title"] = "Zero Bubble Pipeline Parallelisn"
    failed = _failed(seed)
    assert "event_content_hash" in failed
    assert "canonical_hash" not in failed


def test_a_dropped_event_fails_state_applied_events(seed):
    del seed["events"][1]
    failed = _failed(seed)
    assert "state_applied_events" in failed
    assert "event_content_hash" not in failed and "event_signature" not in failed


def test_a_reordered_event_list_fails_only_the_bundle_hash(seed):
    seed["events"].reverse()
    assert _failed(seed) == ["bundle_hash"]


def test_a_signature_from_another_key_fails_event_signature(seed):
    other = Ed25519PrivateKey.generate()
    event = seed["events"][0]
    event["signature"]["signature_b64"] = base64.b64encode(
        other.sign(bytes.fromhex(event["content_sha256"]))
    ).decode()
    failed = _failed(seed)
    assert "event_signature" in failed
    assert "event_content_hash" not in failed


def test_a_digest_signed_as_hex_text_fails_event_signature(ours):
    signer, _ = signer_current()
    event = ours["events"][0]
    event["signature"]["signature_b64"] = base64.b64encode(
        signer.private_key.sign(event["content_sha256"].encode("ascii"))
    ).decode()
    report = verify_bundle(ours)
    assert "event_signature" in report.failed
    assert "hex text" in report.get("event_signature").detail


def test_a_receipt_signed_as_hex_text_fails_receipt(ours):
    signer, _ = signer_current()
    receipt = ours["events"][0]["payload"]["receipt"]
    assert ours["events"][0]["event_type"] == "record_created"
    receipt["signature_b64"] = base64.b64encode(
        signer.private_key.sign(ours["canonical_sha256"].encode())
    ).decode()
    assert "receipt" in _failed(ours)


def test_a_wrong_pith_number_fails_pith_number(seed):
    seed["pith_number"] = "pith:2024:L5Y4YBEWHMNOUANEI723JO2ZA3"
    assert "pith_number" in _failed(seed)
    seed = copy.deepcopy(seed)
    seed["short_pith_number"] = "pith:L5Y4YBEX"
    assert "pith_number" in _failed(seed)


def test_a_wrong_alias_fails_aliases(seed):
    seed["source_aliases"][2]["alias_value"] = "10.48550/arxiv.2401.10242"
    assert "aliases" in _failed(seed)


def test_a_swapped_public_key_fails_key_fingerprints_and_signatures(seed):
    raw = public_raw(Ed25519PrivateKey.generate())
    key = seed["public_keys"][0]
    key["public_key_b64"] = base64.b64encode(raw).decode()
    key["public_key_hex"] = raw.hex()
    failed = _failed(seed)
    assert "key_fingerprints" in failed  # the published fingerprints no longer match the key
    # Even with the fingerprints made consistent, nothing verifies under the other key.
    key["fingerprint_sha256_hex"] = fingerprint_hex(raw)
    key["fingerprint_sha256_b32_first128bits"] = fingerprint_b32(raw)
    failed = _failed(seed)
    assert {"key_fingerprints", "event_signature", "receipt", "bundle_signature"} <= set(failed)


def test_an_untrusted_key_fails_key_fingerprints_when_keys_are_pinned(seed, ours):
    assert verify_bundle(seed, trusted_keys=ours["public_keys"]).failed == ["key_fingerprints"]
    assert verify_bundle(seed, trusted_keys=seed["public_keys"]).ok


def test_a_changed_state_fails_state_hash(seed):
    seed["state"]["event_count"] = 3
    assert "state_hash" in _failed(seed)


def test_a_bundle_signature_over_another_digest_fails(seed):
    seed["bundle_signature"]["bundle_sha256"] = "0" * 64
    failed = _failed(seed)
    assert "bundle_hash" in failed and "bundle_signature" in failed


def test_garbage_fails_bundle_format():
    assert verify_bundle(b"not json").failed == ["bundle_format"]
    assert verify_bundle({"pith_number": "x"}).failed == ["bundle_format"]
