"""Bundles and states of records, in the registry's format (PROVENANCE.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.urls import reverse

from .builders import BUNDLE_SIGNED_MESSAGE, aliases_build, iso_seconds, signature_block
from .canonical import canonical_json, sha256_hex
from .merge import MERGE_VERSION, state_merge
from .models import PublicKey, Record
from .selectors import record_events
from .services import signer_current

BUNDLE_TYPE = "pith_open_graph_bundle"
BUNDLE_VERSION = "1.0"
KEY_NOTES = (
    "wovepaper signs canonical record SHA-256 digests, event content digests and bundle digests "
    "with this Ed25519 key. Verify with: ed25519_verify(public_key, message=bytes.fromhex(digest), "
    "signature=base64decode(signature_b64))."
)


def _absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def public_key_entry(key: PublicKey) -> dict:
    """A published key as in the bundle's ``public_keys`` (raw key in base64 and hex, fingerprints)."""
    return {
        "key_id": key.key_id,
        "algorithm": key.algorithm,
        "format": "raw",
        "public_key_b64": key.public_key_b64,
        "public_key_hex": key.public_key_hex,
        "fingerprint_sha256_b32_first128bits": key.fingerprint_b32,
        "fingerprint_sha256_hex": key.fingerprint,
        "rotates_at": iso_seconds(key.rotates_at) if key.rotates_at else None,
        "url": _absolute(reverse("provenance:keys")),
        "notes": KEY_NOTES,
    }


def keys_document() -> dict:
    """Every key this archive ever signed with, oldest first (``/.well-known/pith/keys.json``)."""
    return {
        "keys_version": "1.0",
        "signer_id": settings.PROVENANCE_SIGNER_ID,
        "public_keys": [public_key_entry(k) for k in PublicKey.objects.order_by("created_at", "key_id")],
    }


def record_links(record: Record) -> dict:
    """Absolute URLs of the record's page, bundle, state and well-known bundle."""
    body = record.pith_body
    return {
        "resolver": _absolute(reverse("provenance:page", args=[body])),
        "bundle": _absolute(reverse("provenance:bundle", args=[body])),
        "state": _absolute(reverse("provenance:state", args=[body])),
        "well_known_bundle": _absolute(reverse("provenance:well_known_bundle", args=[body])),
    }


def record_aliases(record: Record) -> list[dict]:
    """The record's source aliases (created when the record was)."""
    return aliases_build(
        source_id=record.source_id,
        version=record.source_version,
        body=record.pith_body,
        created_at=iso_seconds(record.created_at),
    )


def _parts(record: Record) -> tuple[list[dict], list[PublicKey], list[dict]]:
    events = record_events(record)
    key_ids = {record.key_id} | {e.key_id for e in events}
    keys = list(PublicKey.objects.filter(id__in=key_ids).order_by("created_at", "key_id"))
    return [e.as_dict() for e in events], keys, record_aliases(record)


def state_build(
    *, record: Record, events: list[dict] | None = None, keys: list[PublicKey] | None = None
) -> dict:
    """The record's state: the merge of its events (never stored, always recomputed)."""
    if events is None or keys is None:
        events, keys, _ = _parts(record)
    return state_merge(
        pith_number=record.pith_number,
        canonical_record=record.canonical_record,
        source_aliases=record_aliases(record),
        events=events,
        public_keys=[public_key_entry(k) for k in keys],
        merge_version=MERGE_VERSION,
    )


def bundle_build(*, record: Record) -> dict:
    """The record's signed bundle: record, aliases, events, keys, state, bundle signature.

    ``built_at`` (and the bundle signature's ``signed_at``) is the newest event's time, so
    the same log gives the same bytes on every request (ed25519 signatures are
    deterministic). Signed with the current key, which is published with the others.
    """
    signer, current_key = signer_current()
    events, keys, aliases = _parts(record)
    if current_key.pk not in {k.pk for k in keys}:
        keys.append(current_key)
    entries = [public_key_entry(k) for k in keys]
    state = state_merge(
        pith_number=record.pith_number,
        canonical_record=record.canonical_record,
        source_aliases=aliases,
        events=events,
        public_keys=entries,
        merge_version=MERGE_VERSION,
    )
    stamps = [record.created_at] + [_parse(e["created_at"]) for e in events]
    newest = max(stamps)
    links = record_links(record)
    bundle = {
        "bundle_type": BUNDLE_TYPE,
        "bundle_version": BUNDLE_VERSION,
        "pith_number": record.pith_number,
        "short_pith_number": record.short_pith_number,
        "canonical_record": record.canonical_record,
        "canonical_sha256": record.canonical_sha256,
        "source": record.canonical_record["source"],
        "source_aliases": aliases,
        "events": events,
        "timestamp_proofs": [],
        "mirror_hints": [
            {
                "mirror_type": "https",
                "name": "wovepaper",
                "base_url": settings.SITE_URL,
                "bundle_url": links["bundle"],
                "state_url": links["state"],
                "well_known_bundle_url": links["well_known_bundle"],
                "status": "primary",
            }
        ],
        "public_keys": entries,
        "merge_version": MERGE_VERSION,
        "built_at": iso_seconds(newest),
        "links": links,
        "state": state,
    }
    digest = sha256_hex(canonical_json(bundle))
    signature = signature_block(signer, digest, BUNDLE_SIGNED_MESSAGE, newest)
    signature["bundle_sha256"] = digest
    bundle["bundle_signature"] = signature
    return bundle


def _parse(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
