"""Verify a provenance bundle by the rules of PROVENANCE.md; every failed check is named."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .builders import (
    BUNDLE_SIGNED_MESSAGE,
    EVENT_SIGNED_MESSAGE,
    RECEIPT_SIGNED_MESSAGE,
    aliases_build,
)
from .canonical import b32, pith_body, rfc8785_json, sha256_hex
from .keys import fingerprint_b32, fingerprint_hex, verify_signature
from .merge import KNOWN_MERGE_VERSIONS, event_content, event_problem, state_merge

# Every check, in the order they run; ``verify_bundle`` reports each of them.
CHECKS = (
    "bundle_format",
    "key_fingerprints",
    "canonical_hash",
    "pith_number",
    "aliases",
    "receipt",
    "event_content_hash",
    "event_id",
    "event_signature",
    "event_subject",
    "state_hash",
    "state_applied_events",
    "state_merge",
    "bundle_hash",
    "bundle_signature",
)


@dataclass
class Check:
    """One check: ``ok`` True, False, or None when it could not apply (``detail`` says why)."""

    name: str
    ok: bool | None
    detail: str = ""


@dataclass
class VerifyReport:
    """All checks of one bundle; ``ok`` when none failed."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok is not False for c in self.checks)

    @property
    def failed(self) -> list[str]:
        """Names of the failed checks, in check order."""
        return [c.name for c in self.checks if c.ok is False]

    def get(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)


class _Collector:
    def __init__(self) -> None:
        self.problems: dict[str, list[str]] = {name: [] for name in CHECKS}
        self.skipped: dict[str, str] = {}

    def fail(self, name: str, detail: str) -> None:
        self.problems[name].append(detail)

    def skip(self, name: str, detail: str) -> None:
        self.skipped[name] = detail

    def report(self) -> VerifyReport:
        checks = []
        for name in CHECKS:
            if self.problems[name]:
                checks.append(Check(name, False, "; ".join(self.problems[name])))
            elif name in self.skipped:
                checks.append(Check(name, None, self.skipped[name]))
            else:
                checks.append(Check(name, True))
        return VerifyReport(checks)


def _signature_problem(raw: bytes | None, block: dict, digest_hex: str, expected_message: str) -> str | None:
    """Why a signature block does not sign the raw bytes of ``digest_hex``, or ``None``."""
    if raw is None:
        return f"no published key with fingerprint {block.get('public_key_fingerprint')!r}"
    if block.get("signed_message") != expected_message:
        return f"signed_message is {block.get('signed_message')!r}, expected {expected_message!r}"
    try:
        message = bytes.fromhex(digest_hex)
    except (TypeError, ValueError):
        return f"digest {digest_hex!r} is not hex"
    signature = block.get("signature_b64", "")
    if verify_signature(raw, signature, message):
        return None
    if verify_signature(raw, signature, digest_hex.encode("ascii")):
        return "the signature is over the digest's hex text, not its 32 raw bytes"
    return "the signature does not verify"


def _not_json(constant: str) -> None:
    # Python's json reads NaN and ±Infinity, which are not JSON (RFC 8259 §6, RFC 8785 §3.2.2.3).
    raise ValueError(f"{constant} is not a JSON number")


def _load(bundle: Any) -> dict:
    if isinstance(bundle, bytes | bytearray):
        bundle = bundle.decode("utf-8")
    if isinstance(bundle, str):
        bundle = json.loads(bundle, parse_constant=_not_json)
    return bundle


def verify_bundle(bundle: dict | str | bytes, *, trusted_keys: list[dict] | None = None) -> VerifyReport:
    """Check a bundle: canonical hash, pith number, aliases, receipt, each event's content hash,
    id, signature and subject, the state hash, applied events and merge, the bundle hash and
    signature, and the key fingerprints.

    ``bundle`` is the parsed JSON object or its text. Signatures are checked with the keys
    the bundle carries; with ``trusted_keys`` (entries with ``public_key_hex``) a carried key
    that is not among them fails ``key_fingerprints``. Returns a :class:`VerifyReport` with
    one :class:`Check` per name in :data:`CHECKS`; never raises on a malformed bundle (that
    fails ``bundle_format``).
    """
    out = _Collector()
    try:
        data = _load(bundle)
    except (ValueError, UnicodeDecodeError) as exc:
        out.fail("bundle_format", f"not JSON: {exc}")
        return out.report()
    required = ("pith_number", "canonical_record", "canonical_sha256", "events", "public_keys", "state")
    missing = [k for k in required if not isinstance(data, dict) or k not in data]
    if missing:
        out.fail("bundle_format", f"missing {', '.join(missing)}")
        return out.report()
    try:
        _verify(data, out, trusted_keys)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        out.fail("bundle_format", f"{type(exc).__name__}: {exc}")
    return out.report()


def _verify(data: dict, out: _Collector, trusted_keys: list[dict] | None) -> None:
    """Run every check on a parsed bundle, in :data:`CHECKS` order, into ``out``. Raises
    ``KeyError``, ``TypeError``, ``ValueError``, ``AttributeError`` or ``IndexError`` on a
    malformed bundle (:func:`verify_bundle` reports them as ``bundle_format``)."""
    keys, key_ids = _check_keys(data, out, trusted_keys)
    key_for = partial(_key_for, keys, key_ids, out)
    _check_canonical_record(data, out)
    expected_body = _check_pith_number(data, out)
    _check_aliases(data, out, expected_body)
    _check_events(data, out, key_for)
    _check_state(data, out, keys)
    _check_bundle(data, out, key_for)


def _check_keys(
    data: dict, out: _Collector, trusted_keys: list[dict] | None
) -> tuple[dict[str, bytes], dict[str, str]]:
    """Keys: every published key's encodings and fingerprints agree. Returns the raw keys
    and the key ids, both by hex fingerprint."""
    keys: dict[str, bytes] = {}
    key_ids: dict[str, str] = {}
    for i, key in enumerate(data["public_keys"]):
        try:
            raw = base64.b64decode(key.get("public_key_b64", ""), validate=True)
        except ValueError:
            out.fail("key_fingerprints", f"key {i}: public_key_b64 is not base64")
            continue
        if len(raw) != 32:
            out.fail("key_fingerprints", f"key {i}: not a 32-byte ed25519 key")
            continue
        if key.get("public_key_hex") != raw.hex():
            out.fail(
                "key_fingerprints", f"key {key.get('key_id')}: public_key_hex differs from public_key_b64"
            )
        if key.get("fingerprint_sha256_hex") != fingerprint_hex(raw):
            out.fail(
                "key_fingerprints",
                f"key {key.get('key_id')}: fingerprint_sha256_hex is not SHA-256(key)[:16]",
            )
        if key.get("fingerprint_sha256_b32_first128bits") != fingerprint_b32(raw):
            out.fail("key_fingerprints", f"key {key.get('key_id')}: base32 fingerprint does not recompute")
        keys[fingerprint_hex(raw)] = raw
        key_ids[fingerprint_hex(raw)] = key.get("key_id")
    if trusted_keys is not None:
        trusted = {k.get("public_key_hex") for k in trusted_keys}
        for fp, raw in keys.items():
            if raw.hex() not in trusted:
                out.fail("key_fingerprints", f"key {key_ids[fp]} ({fp}) is not among the trusted keys")
    return keys, key_ids


def _key_for(
    keys: dict[str, bytes], key_ids: dict[str, str], out: _Collector, block: dict, where: str
) -> bytes | None:
    """The published key a signature block names (``None`` when none matches: a failure)."""
    fp = (block or {}).get("public_key_fingerprint")
    if fp in keys and block.get("key_id") not in (None, key_ids[fp]):
        out.fail("key_fingerprints", f"{where}: key_id {block.get('key_id')!r} does not name key {fp}")
    if fp not in keys:
        out.fail("key_fingerprints", f"{where}: fingerprint {fp!r} matches no published key")
    return keys.get(fp)


def _check_canonical_record(data: dict, out: _Collector) -> None:
    """Canonical record and its digest."""
    record = data["canonical_record"]
    digest = data["canonical_sha256"]
    if sha256_hex(rfc8785_json(record)) != digest:
        out.fail("canonical_hash", "SHA-256 of C(canonical_record) differs from canonical_sha256")
    if data.get("source") is not None and data["source"] != record.get("source"):
        out.fail("canonical_hash", "source differs from canonical_record.source")


def _check_pith_number(data: dict, out: _Collector) -> str:
    """Pith number and short forms. Returns the pith body the digest gives."""
    submitted = data["canonical_record"]["metadata"]["submitted_at"]
    expected_body = pith_body(data["canonical_sha256"])
    expected = f"pith:{submitted[:4]}:{expected_body}"
    if data["pith_number"] != expected:
        out.fail("pith_number", f"pith_number {data['pith_number']!r}, expected {expected!r}")
    if "short_pith_number" in data and data["short_pith_number"] != f"pith:{expected_body[:8]}":
        out.fail("pith_number", f"short_pith_number {data['short_pith_number']!r} does not recompute")
    if data["state"].get("pith_number") != data["pith_number"]:
        out.fail("pith_number", "state.pith_number differs from the bundle's")
    return expected_body


def _check_aliases(data: dict, out: _Collector, expected_body: str) -> None:
    """Aliases: arXiv id, versioned id, DOI and the three short forms, nothing else."""
    source = data["canonical_record"]["source"]
    wanted = {
        (a["alias_kind"], a["alias_value"])
        for a in aliases_build(
            source_id=source["id"], version=source["version"], body=expected_body, created_at=""
        )
    }
    given = {(a.get("alias_kind"), a.get("alias_value")) for a in data.get("source_aliases", [])}
    for kind, value in sorted(wanted - given):
        out.fail("aliases", f"missing or wrong {kind} alias (expected {value!r})")
    for kind, value in sorted(given - wanted):
        out.fail("aliases", f"unexpected alias {kind}={value!r}")


def _check_events(data: dict, out: _Collector, key_for: Callable[[dict, str], bytes | None]) -> None:
    """Events: content hash, id, signature, subject; receipts inside record_created."""
    receipts = 0
    for i, event in enumerate(data["events"]):
        label = f"event {i} ({event.get('event_type')})"
        try:
            content_digest = sha256_hex(rfc8785_json(event_content(event)))
        except (TypeError, ValueError) as exc:
            out.fail("event_content_hash", f"{label}: not canonicalisable: {exc}")
            continue
        if content_digest != event.get("content_sha256"):
            out.fail("event_content_hash", f"{label}: content_sha256 does not recompute")
        if event.get("event_id") != f"sha256:{event.get('content_sha256')}":
            out.fail("event_id", f"{label}: event_id is not 'sha256:' + content_sha256")
        block = event.get("signature") or {}
        signer = event.get("signer") or {}
        if signer.get("public_key_fingerprint") != block.get("public_key_fingerprint"):
            out.fail("event_signature", f"{label}: signer and signature name different keys")
        problem = _signature_problem(
            key_for(block, label), block, event.get("content_sha256") or "", EVENT_SIGNED_MESSAGE
        )
        if problem:
            out.fail("event_signature", f"{label}: {problem}")
        if event.get("subject_pith_number") != data["pith_number"]:
            out.fail(
                "event_subject", f"{label}: subject {event.get('subject_pith_number')!r} is not this record"
            )
        if event.get("event_type") == "record_created":
            receipts += _check_record_created(data, out, key_for, event, label)
    if not receipts:
        out.fail("receipt", "no record_created event carries a receipt")


def _check_record_created(
    data: dict, out: _Collector, key_for: Callable[[dict, str], bytes | None], event: dict, label: str
) -> int:
    """A ``record_created`` event: its record and digest are the bundle's, its receipt signs
    the digest. Returns 1 when it carries a receipt, else 0."""
    record = data["canonical_record"]
    digest = data["canonical_sha256"]
    payload = event.get("payload") or {}
    if payload.get("canonical_record") != record or payload.get("canonical_sha256") != digest:
        out.fail("canonical_hash", f"{label}: its canonical record or digest differs from the bundle's")
    receipt = payload.get("receipt")
    if receipt is None:
        return 0
    if receipt.get("canonical_sha256") != digest:
        out.fail("receipt", "the receipt names another canonical_sha256")
    problem = _signature_problem(key_for(receipt, "receipt"), receipt, digest, RECEIPT_SIGNED_MESSAGE)
    if problem:
        out.fail("receipt", problem)
    return 1


def _check_state(data: dict, out: _Collector, keys: dict[str, bytes]) -> None:
    """State: its own hash, the events it applied, and (for a known merge) the merge itself."""
    state = data["state"]
    if sha256_hex(rfc8785_json({k: v for k, v in state.items() if k != "state_sha256"})) != state.get(
        "state_sha256"
    ):
        out.fail("state_hash", "SHA-256 of C(state without state_sha256) differs from state_sha256")
    ids = [e.get("event_id") for e in data["events"]]
    valid = [e for e in data["events"] if event_problem(e, data["pith_number"], keys) is None]
    expected_applied = []
    for e in sorted(valid, key=lambda e: (e.get("created_at") or "", e["event_id"])):
        if e["event_id"] not in expected_applied:
            expected_applied.append(e["event_id"])
    applied = state.get("applied_event_ids") or []
    absent = [i for i in applied if i not in ids]
    if absent:
        out.fail(
            "state_applied_events", f"{len(absent)} applied event(s) missing from the bundle: {absent[0]}"
        )
    if applied != expected_applied:
        out.fail("state_applied_events", "applied_event_ids are not the bundle's valid events in merge order")
    if state.get("event_count") != len(data["events"]):
        out.fail("state_applied_events", f"event_count {state.get('event_count')} but {len(ids)} events")
    if state.get("valid_event_count") != len(valid):
        out.fail(
            "state_applied_events", f"valid_event_count {state.get('valid_event_count')}, found {len(valid)}"
        )
    _check_state_merge(data, out)


def _check_state_merge(data: dict, out: _Collector) -> None:
    """For a merge version this verifier implements, the state is what merging the events gives."""
    state = data["state"]
    merge_version = state.get("merge_version")
    if merge_version in KNOWN_MERGE_VERSIONS:
        merged = state_merge(
            pith_number=data["pith_number"],
            canonical_record=data["canonical_record"],
            source_aliases=data.get("source_aliases", []),
            events=data["events"],
            public_keys=data["public_keys"],
            merge_version=merge_version,
        )
        if merged != state:
            differing = sorted(k for k in set(merged) | set(state) if merged.get(k) != state.get(k))
            out.fail("state_merge", f"merging the events gives a different state ({', '.join(differing)})")
    else:
        out.skip("state_merge", f"merge_version {merge_version!r} is not one this verifier implements")


def _check_bundle(data: dict, out: _Collector, key_for: Callable[[dict, str], bytes | None]) -> None:
    """Bundle: hash of everything but the signature, then the signature over its raw bytes."""
    signature = data.get("bundle_signature") or {}
    bundle_digest = sha256_hex(rfc8785_json({k: v for k, v in data.items() if k != "bundle_signature"}))
    if signature.get("bundle_sha256") != bundle_digest:
        out.fail("bundle_hash", "SHA-256 of C(bundle without bundle_signature) differs from bundle_sha256")
    problem = _signature_problem(
        key_for(signature, "bundle_signature"),
        signature,
        signature.get("bundle_sha256") or "",
        BUNDLE_SIGNED_MESSAGE,
    )
    if problem:
        out.fail("bundle_signature", problem)


def recompute(bundle: dict) -> dict:
    """The derivable values of a bundle, recomputed from its raw fields (for tests and the page).

    Returns ``{canonical_sha256, pith_number, short_forms, key_fingerprints, event_ids}``.
    """
    record = bundle["canonical_record"]
    digest = hashlib.sha256(rfc8785_json(record)).digest()
    body = b32(digest)[:26]
    return {
        "canonical_sha256": digest.hex(),
        "pith_number": f"pith:{record['metadata']['submitted_at'][:4]}:{body}",
        "short_forms": {n: body[:n] for n in (8, 12, 16)},
        "key_fingerprints": [
            fingerprint_hex(base64.b64decode(k["public_key_b64"])) for k in bundle["public_keys"]
        ],
        "event_ids": [f"sha256:{sha256_hex(rfc8785_json(event_content(e)))}" for e in bundle["events"]],
    }
