"""The state of a record: a deterministic merge of its events (PROVENANCE.md, "Events and state")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .canonical import rfc8785_json, sha256_hex
from .keys import verify_signature

STATE_TYPE = "pith_open_graph_state"
STATE_VERSION = "1.0"
MERGE_VERSION = "wove-open-graph-merge-v1"
# The registry's merge gives the same state as ours on every event family both know (the
# seed's state_sha256 is reproduced in the tests), so its states are recomputed too.
KNOWN_MERGE_VERSIONS = frozenset({MERGE_VERSION, "pith-open-graph-merge-v1"})

SIGNED_OUT = ("signature", "content_sha256", "event_id")

# Families of ``current``: event type -> list key. The registry's families are always
# present (as in the seed); ours only once an event of theirs exists, so a bundle without
# them merges to the registry's exact state.
REGISTRY_FAMILIES = {
    "graph_snapshot": "graph_snapshots",
    "author_attestation": "author_attestations",
    "timestamp_anchor": "timestamp_anchors",
    "storage_attestation": "storage_attestations",
    "citation_signature": "citation_signatures",
    "replication_record": "replication_records",
    "correction": "corrections",
    "mirror_hint": "mirror_hints",
}
OWN_FAMILIES = {
    "authorship_matched": "authorship_matches",
    "researcher_merged": "curation",
    "researcher_split": "curation",
    "deleted": "deletions",
}
# Events that act only through ``supersedes`` (an undo withdraws what it names), and the
# family whose list they act on.
SUPERSEDE_ONLY = {"curation_undone": "curation"}


def event_content(event: dict) -> dict:
    """The signed content of an event: the event without signature, hash and id."""
    return {k: v for k, v in event.items() if k not in SIGNED_OUT}


def event_problem(event: dict, pith_number: str, keys_by_fingerprint: dict[str, bytes]) -> str | None:
    """Why ``event`` is invalid (``content_hash``, ``event_id``, ``unknown_key``, ``signature``,
    ``subject``), or ``None`` when its hash, id, signature and subject all hold."""
    try:
        digest = sha256_hex(rfc8785_json(event_content(event)))
    except (TypeError, ValueError):
        return "content_hash"
    if digest != event.get("content_sha256"):
        return "content_hash"
    if event.get("event_id") != f"sha256:{digest}":
        return "event_id"
    signature = event.get("signature") or {}
    raw = keys_by_fingerprint.get(signature.get("public_key_fingerprint", ""))
    if raw is None:
        return "unknown_key"
    if not verify_signature(raw, signature.get("signature_b64", ""), bytes.fromhex(digest)):
        return "signature"
    if event.get("subject_pith_number") != pith_number:
        return "subject"
    return None


def _entry(event: dict) -> dict:
    return {
        "event_id": event["event_id"],
        "target": event.get("target"),
        "created_at": event.get("created_at"),
        "signer": event.get("signer"),
        "payload": event.get("payload"),
    }


def _events_checked(
    events: Sequence[dict], pith_number: str, keys: dict[str, bytes]
) -> tuple[list[dict], list[dict]]:
    """The valid events, and one entry (id, type, reason) per invalid one (see :func:`event_problem`)."""
    valid: list[dict] = []
    invalid: list[dict] = []
    for event in events:
        problem = event_problem(event, pith_number, keys)
        if problem is None:
            valid.append(event)
        else:
            invalid.append(
                {"event_id": event.get("event_id"), "event_type": event.get("event_type"), "reason": problem}
            )
    return valid, invalid


def _events_ordered(valid: list[dict]) -> list[dict]:
    """The valid events in ``(created_at, event_id)`` order, each id once."""
    seen: set[str] = set()
    ordered = []
    for event in sorted(valid, key=lambda e: (e.get("created_at") or "", e["event_id"])):
        if event["event_id"] not in seen:  # the same event twice is one event
            seen.add(event["event_id"])
            ordered.append(event)
    return ordered


def _equivocations(ordered: list[dict]) -> list[dict]:
    """Events by one key extending the same ``(target, prev_event)``, one entry per fork."""
    forks: dict[tuple, list[str]] = defaultdict(list)
    for event in ordered:
        fingerprint = (event.get("signer") or {}).get("public_key_fingerprint")
        forks[(fingerprint, event.get("target"), event.get("prev_event"))].append(event["event_id"])
    return [
        {"target": target, "prev_event": prev, "public_key_fingerprint": fp, "event_ids": sorted(ids)}
        for (fp, target, prev), ids in sorted(forks.items(), key=lambda kv: sorted(kv[1]))
        if len(ids) > 1
    ]


def _current(ordered: list[dict], canonical_record: dict, source_aliases: list[dict]) -> dict:
    """The state's ``current``: the record, aliases, the latest ``record_created`` and one list
    per event family, without superseded events."""
    superseded = {ref for event in ordered for ref in event.get("supersedes") or ()}
    current: dict = {"canonical_record": canonical_record, "source_aliases": source_aliases}
    for family in REGISTRY_FAMILIES.values():
        current[family] = []
    for event in ordered:  # our families appear once the log has an event of theirs
        family = OWN_FAMILIES.get(event.get("event_type")) or SUPERSEDE_ONLY.get(event.get("event_type"))
        if family:
            current.setdefault(family, [])
    for event in ordered:
        kind = event.get("event_type")
        if event["event_id"] in superseded or kind in SUPERSEDE_ONLY:
            continue
        if kind == "record_created":
            current["record_created"] = _entry(event)
            continue
        family = REGISTRY_FAMILIES.get(kind) or OWN_FAMILIES.get(kind) or "other_events"
        current.setdefault(family, []).append(_entry(event))
    return current


def state_merge(
    *,
    pith_number: str,
    canonical_record: dict,
    source_aliases: list[dict],
    events: Sequence[dict],
    public_keys: Sequence[dict],
    merge_version: str = MERGE_VERSION,
) -> dict:
    """Merge ``events`` into the record's state; same inputs give the same bytes.

    Rules: an event is valid when its content hash, id, signature (by a key in
    ``public_keys``) and subject hold; invalid ones are listed with the reason and not
    applied. Valid events apply in ``(created_at, event_id)`` order, so the order they
    arrive in does not matter. Two valid events by one key extending the same
    ``(target, prev_event)`` are an equivocation (both stay applied, both are listed). An
    event named in a later event's ``supersedes`` leaves ``current``. ``current`` holds the
    record, aliases, the latest ``record_created`` and one list per event family. Returns
    the state with ``state_sha256`` last.
    """
    keys = {k["fingerprint_sha256_hex"]: bytes.fromhex(k["public_key_hex"]) for k in public_keys}
    valid, invalid = _events_checked(events, pith_number, keys)
    ordered = _events_ordered(valid)
    equivocations = _equivocations(ordered)
    current = _current(ordered, canonical_record, source_aliases)

    state = {
        "state_type": STATE_TYPE,
        "state_version": STATE_VERSION,
        "pith_number": pith_number,
        "merge_version": merge_version,
        "event_count": len(events),
        "valid_event_count": len(valid),
        "invalid_event_count": len(invalid),
        "equivocation_count": len(equivocations),
        "current": current,
        "equivocations": equivocations,
        "invalid_events": invalid,
        "applied_event_ids": [e["event_id"] for e in ordered],
    }
    state["state_sha256"] = sha256_hex(rfc8785_json(state))
    return state
