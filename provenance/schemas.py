"""API schemas for provenance: the signed bundle and the merged state (PROVENANCE.md).

Only the top-level fields are described; the documents are served byte-for-byte as the
provenance app builds them (their signatures cover RFC 8785 canonical JSON), so further
fields pass through (``additionalProperties``).
"""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import ConfigDict, Field


class ProvenanceState(Schema):
    """The merge of a record's signed events: ``current`` values, counts, ``state_sha256``."""

    model_config = ConfigDict(extra="allow")

    state_type: str
    state_version: str
    pith_number: str = Field(examples=["pith:2024:L5Y4YBEWBIXPMBCPHRX2LPRGYS"])
    merge_version: str
    event_count: int
    valid_event_count: int
    invalid_event_count: int
    current: dict[str, Any]
    state_sha256: str


class ProvenanceBundle(Schema):
    """A record's signed bundle: canonical record, aliases, events, keys, state, signature."""

    model_config = ConfigDict(extra="allow")

    bundle_type: str = Field(examples=["pith_open_graph_bundle"])
    bundle_version: str
    pith_number: str
    short_pith_number: str
    canonical_record: dict[str, Any]
    canonical_sha256: str
    source: dict[str, Any]
    source_aliases: list[dict[str, Any]]
    events: list[dict[str, Any]]
    public_keys: list[dict[str, Any]]
    built_at: str
    links: dict[str, str]
    state: ProvenanceState
    bundle_signature: dict[str, Any]
