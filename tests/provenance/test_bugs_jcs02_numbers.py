"""BUGS.md JCS-02: a verifier accepts any RFC 8785 document, numbers that are not integers too.

We sign strings and integers only, but another signer may put ``1.0`` or ``2e-7`` in an
event, and RFC 8785 fixes how those are written (ECMAScript Number::toString). Before, the
verifier refused every float ("not canonicalisable"), so such a bundle failed. The values
are BUGS.md's; the bundle is ours (0801.3673v1) with one event added as an external signer
would add it: hashed with the reference ``rfc8785`` package and signed with the test's key.
"""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
import rfc8785
from django.core.management import call_command

from provenance.bundles import bundle_build
from provenance.canonical import CanonicalJsonError, canonical_json, rfc8785_json
from provenance.merge import MERGE_VERSION, state_merge
from provenance.models import Record
from provenance.services import signer_current
from provenance.verify import verify_bundle

DOCUMENT = '{"arxiv_id":"2403.05512","match":{"score":1.0,"threshold":0.85,"weight":2e-7},"version":2}'
CANONICAL = b'{"arxiv_id":"2403.05512","match":{"score":1,"threshold":0.85,"weight":2e-7},"version":2}'
CANONICAL_SHA256 = "90da9da47fb0f1671ac3a64ade29445f519ff16ec4ba0dd44b23556672edc71d"
PYTHON_SHA256 = "da3b676728b006f5650bf040e69b5a0d8c1523a39229b0170552bb39835978cb"


def _sign(signer, message_hex: str) -> str:
    return base64.b64encode(signer.private_key.sign(bytes.fromhex(message_hex))).decode("ascii")


def _with_foreign_event(bundle: dict, payload_text: str) -> dict:
    """``bundle`` plus one ``replication_record`` event whose payload is ``payload_text``
    (parsed as a verifier parses it), hashed by RFC 8785 and signed; state and bundle
    signature recomputed the way the signer would."""
    signer, _ = signer_current()
    first = bundle["events"][0]
    content = {
        "event_type": "replication_record",
        "subject_pith_number": bundle["pith_number"],
        "target": "replication:2403.05512",
        "payload": json.loads(payload_text),
        "signer": first["signer"],
        "created_at": first["created_at"],
        "supersedes": [],
        "prev_event": None,
        "schema_version": first["schema_version"],
    }
    digest = hashlib.sha256(rfc8785.dumps(content)).hexdigest()
    signature = dict(first["signature"], signature_b64=_sign(signer, digest))
    event = {**content, "content_sha256": digest, "event_id": f"sha256:{digest}", "signature": signature}
    bundle["events"].append(event)
    bundle["state"] = state_merge(
        pith_number=bundle["pith_number"],
        canonical_record=bundle["canonical_record"],
        source_aliases=bundle["source_aliases"],
        events=bundle["events"],
        public_keys=bundle["public_keys"],
        merge_version=MERGE_VERSION,
    )
    unsigned = {k: v for k, v in bundle.items() if k != "bundle_signature"}
    bundle_digest = hashlib.sha256(rfc8785.dumps(unsigned)).hexdigest()
    bundle["bundle_signature"] = dict(
        bundle["bundle_signature"], bundle_sha256=bundle_digest, signature_b64=_sign(signer, bundle_digest)
    )
    return bundle


@pytest.fixture
def ours(signed_raw_page) -> dict:
    return bundle_build(record=Record.objects.get(source_id="0801.3673"))


def test_the_verifiers_canonical_form_of_the_bugs_document():
    """BUGS.md JCS-02: the canonical bytes and SHA-256, not Python's ``1.0``/``2e-07``."""
    document = json.loads(DOCUMENT)
    assert rfc8785_json(document) == CANONICAL
    assert hashlib.sha256(rfc8785_json(document)).hexdigest() == CANONICAL_SHA256
    python = json.dumps(document, separators=(",", ":")).encode()
    assert b'"score":1.0' in python and b'"weight":2e-07' in python
    assert hashlib.sha256(python).hexdigest() == PYTHON_SHA256


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10.0", b"10"),
        ("-0.0", b"0"),
        ("1e-7", b"1e-7"),
        ("1e20", b"100000000000000000000"),
        ("1e21", b"1e+21"),
        ("1.5e-6", b"0.0000015"),
        ("0.1", b"0.1"),
    ],
)
def test_numbers_are_written_as_ecmascript_writes_them(text, canonical):
    """BUGS.md JCS-02: the table, each number as a JSON reader hands it to the verifier."""
    assert rfc8785_json({"n": json.loads(text)}) == b'{"n":' + canonical + b"}"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 2**53, -(2**53), 2**64])
def test_nan_infinity_and_unsafe_integers_are_an_error(value):
    """BUGS.md JCS-02: never written as text, never rounded silently."""
    with pytest.raises(ValueError):
        rfc8785_json({"n": value})
    assert rfc8785_json({"n": 2**53 - 1}) == b'{"n":9007199254740991}'


def test_signing_still_refuses_floats():
    """We sign integers and strings only (PROVENANCE.md); only the verifier reads floats."""
    with pytest.raises(CanonicalJsonError):
        canonical_json(json.loads(DOCUMENT))


def test_a_bundle_with_the_bugs_numbers_verifies(ours, tmp_path, capsys):
    """BUGS.md JCS-02 through the verifier: the event holding ``1.0``, ``0.85`` and ``2e-7``
    verifies (its content hash is the RFC 8785 one), by ``verify_bundle`` and the command."""
    bundle = _with_foreign_event(ours, DOCUMENT)
    text = json.dumps(bundle, ensure_ascii=False, indent=2)  # as published: 1.0, 2e-07
    assert '"score": 1.0' in text and '"weight": 2e-07' in text
    report = verify_bundle(text)
    assert report.failed == []
    event = bundle["events"][-1]
    content = {k: v for k, v in event.items() if k not in ("signature", "content_sha256", "event_id")}
    assert b'"match":{"score":1,"threshold":0.85,"weight":2e-7}' in rfc8785_json(content)
    assert event["event_id"] in bundle["state"]["applied_event_ids"]

    path = tmp_path / "bundle.json"
    path.write_text(text, encoding="utf-8")
    call_command("verify_bundle", str(path))
    assert "bundle OK" in capsys.readouterr().out


def test_a_changed_number_fails_its_event_hash(ours):
    bundle = _with_foreign_event(ours, DOCUMENT)
    bundle["events"][-1]["payload"]["match"]["threshold"] = 0.86
    assert "event_content_hash" in verify_bundle(bundle).failed


def test_nan_infinity_and_unsafe_integers_in_a_bundle_fail_with_a_named_check(ours):
    """BUGS.md JCS-02: NaN and Infinity are not JSON (the bundle text is refused); an integer
    of magnitude 2**53 cannot be canonicalised (the event fails, saying why)."""
    text = json.dumps(_with_foreign_event(ours, DOCUMENT))
    for constant in ("NaN", "Infinity", "-Infinity"):
        report = verify_bundle(text.replace('"threshold": 0.85', f'"threshold": {constant}'))
        assert report.failed == ["bundle_format"]
        assert f"{constant} is not a JSON number" in report.get("bundle_format").detail
    report = verify_bundle(text.replace('"version": 2}', f'"version": {2**53}}}'))
    assert "event_content_hash" in report.failed
    assert "not canonicalisable" in report.get("event_content_hash").detail
