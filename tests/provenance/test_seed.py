"""The real registry bundle (arXiv 2401.10241): every value recomputes, every signature verifies."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys

import pytest
from django.core.management import call_command

from provenance.builders import aliases_build
from provenance.canonical import canonical_json, sha256_hex, text_canon_sha256
from provenance.keys import fingerprint_b32, fingerprint_hex, verify_signature
from provenance.merge import state_merge
from provenance.verify import CHECKS, recompute, verify_bundle

from .conftest import SEED


def test_title_canon_sha256_recomputes_from_the_snapshot_title(seed):
    title = seed["events"][1]["payload"]["graph_snapshot"]["paper"]["title"]
    assert title == "Zero Bubble Pipeline Parallelism"
    assert text_canon_sha256(title) == seed["canonical_record"]["metadata"]["title_canon_sha256"]
    assert text_canon_sha256(title) == "658503bb13d8e47e87919bac743b250e47807757188c52b299a2aabb225fa8d8"


def test_identifiers_recompute(seed):
    values = recompute(seed)
    assert values["canonical_sha256"] == "5f71cc04963b1aea01a447f5b4bb5906e1ba59bff32759fb8d840b89c4fa3ef6"
    assert values["canonical_sha256"] == seed["canonical_sha256"]
    assert values["pith_number"] == "pith:2023:L5Y4YBEWHMNOUANEI723JO2ZA3" == seed["pith_number"]
    assert values["short_forms"] == {8: "L5Y4YBEW", 12: "L5Y4YBEWHMNO", 16: "L5Y4YBEWHMNOUANE"}
    assert seed["short_pith_number"] == "pith:L5Y4YBEW"
    assert values["event_ids"] == [
        "sha256:2976ee17ef929b9c0010d1563ab33e0c551268a666615dfca8fd5975193a2db5",
        "sha256:a873da9185cf1b59cd943d574e61375fa6bb2bba52d5f85523ccc8c8093d98bc",
    ]
    assert values["event_ids"] == [e["event_id"] for e in seed["events"]]


def test_key_fingerprints_recompute(seed):
    key = seed["public_keys"][0]
    raw = base64.b64decode(key["public_key_b64"])
    assert raw.hex() == key["public_key_hex"]
    assert fingerprint_hex(raw) == "8d4b5ee74e4693bcd1df2446408b0d54" == key["fingerprint_sha256_hex"]
    assert fingerprint_b32(raw) == "RVFV5Z2OI2J3ZUO7ERDEBCYNKS" == key["fingerprint_sha256_b32_first128bits"]


def test_aliases_are_the_six_documented_ones(seed):
    created = seed["source_aliases"][0]["created_at"]
    assert (
        aliases_build(
            source_id="2401.10241", version=1, body="L5Y4YBEWHMNOUANEI723JO2ZA3", created_at=created
        )
        == (seed["source_aliases"])
    )


def test_every_signature_verifies_over_raw_digest_bytes(seed):
    raw = bytes.fromhex(seed["public_keys"][0]["public_key_hex"])
    receipt = seed["events"][0]["payload"]["receipt"]
    assert verify_signature(raw, receipt["signature_b64"], bytes.fromhex(seed["canonical_sha256"]))
    for event in seed["events"]:
        assert verify_signature(
            raw, event["signature"]["signature_b64"], bytes.fromhex(event["content_sha256"])
        )
        # The message is the 32 digest bytes, not the 64-character hex text.
        assert not verify_signature(
            raw, event["signature"]["signature_b64"], event["content_sha256"].encode()
        )
    bundle_sig = seed["bundle_signature"]
    assert verify_signature(raw, bundle_sig["signature_b64"], bytes.fromhex(bundle_sig["bundle_sha256"]))


def test_state_and_bundle_hashes_recompute(seed):
    state = {k: v for k, v in seed["state"].items() if k != "state_sha256"}
    assert (
        sha256_hex(canonical_json(state))
        == "8f08518389677e3cc0b663f539628fcaf9549257b030d825558c303bda2f3c24"
    )
    unsigned = {k: v for k, v in seed.items() if k != "bundle_signature"}
    assert hashlib.sha256(canonical_json(unsigned)).hexdigest() == (
        "0ab7a8544340c7db602de849f3cf985a47f52ecc94d2d122b5ffce8531106203"
    )


def test_our_merge_reproduces_the_registry_state_exactly(seed):
    state = state_merge(
        pith_number=seed["pith_number"],
        canonical_record=seed["canonical_record"],
        source_aliases=seed["source_aliases"],
        events=seed["events"],
        public_keys=seed["public_keys"],
        merge_version=seed["merge_version"],
    )
    assert state == seed["state"]
    # Arrival order does not matter: the merge orders by (created_at, event_id).
    reordered = state_merge(
        pith_number=seed["pith_number"],
        canonical_record=seed["canonical_record"],
        source_aliases=seed["source_aliases"],
        events=list(reversed(seed["events"])),
        public_keys=seed["public_keys"],
        merge_version=seed["merge_version"],
    )
    assert reordered["state_sha256"] == seed["state"]["state_sha256"]


def test_verify_accepts_the_seed_as_given(seed):
    report = verify_bundle(SEED.read_bytes())
    assert report.ok, report.failed
    assert [c.name for c in report.checks] == list(CHECKS)
    assert all(c.ok is True for c in report.checks)


def test_verify_bundle_command_on_file_and_stdin(monkeypatch, capsys):
    call_command("verify_bundle", str(SEED))
    assert "bundle OK: 15 checks passed" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(SEED.read_text(encoding="utf-8")))
    call_command("verify_bundle", "-")
    assert "bundle OK" in capsys.readouterr().out


def test_verify_bundle_command_names_failures_and_exits_non_zero(seed, tmp_path, capsys):
    seed["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_bundle", str(path))
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert "FAIL canonical_hash" in out
    assert "bundle INVALID" in out


def test_verify_bundle_command_with_pinned_keys(seed, tmp_path, capsys):
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"public_keys": seed["public_keys"]}), encoding="utf-8")
    call_command("verify_bundle", str(SEED), "--trusted-keys", str(keys))
    assert "bundle OK" in capsys.readouterr().out
    keys.write_text(json.dumps({"public_keys": []}), encoding="utf-8")
    with pytest.raises(SystemExit):
        call_command("verify_bundle", str(SEED), "--trusted-keys", str(keys))
    assert "FAIL key_fingerprints" in capsys.readouterr().out
