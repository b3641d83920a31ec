"""Pure builders of the signed documents (the reference path): records, aliases, receipts, events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from .canonical import (
    SHORT_LENGTHS,
    canonical_json,
    canonical_json_trusted,
    is_plain,
    pith_body,
    sha256_hex,
    text_canon_sha256,
)
from .keys import ALGORITHM, Signer

SCHEMA_VERSION = "1.0"
RECEIPT_VERSION = "0.3"
BUILDER_VERSION = "wove-pith-builder-2026-11-v1"
SIGNER_TYPE = "wove_archive"
ABSTRACT_EXCERPT_CHARS = 600  # the seed's excerpt is the abstract's first 600 characters

EVENT_SIGNED_MESSAGE = "open_graph_event_sha256_bytes"
RECEIPT_SIGNED_MESSAGE = "canonical_sha256_bytes"
BUNDLE_SIGNED_MESSAGE = "bundle_sha256_bytes"
SIGNATURE_STATUS = "signed_v1"

# Event families: the registry's two (and its author attestations, issue 31), and ours for
# authorship, editor curation and the paper's status at arXiv (``deleted``: arXiv's
# OAI-PMH header said ``status="deleted"``).
# The default target names the chain an event extends (``prev_event`` links within one target).
EVENT_TARGETS = {
    "record_created": "record",
    "graph_snapshot": "graph",
    "authorship_matched": "authorship",
    "researcher_merged": "curation",
    "researcher_split": "curation",
    "curation_undone": "curation",
    "deleted": "status",
    # Issue 31: a researcher's claim or word on a paper (provenance.attestations).
    "author_attestation": "attestation",
}
EVENT_TYPES = frozenset(EVENT_TARGETS)


@lru_cache(maxsize=256)  # a signing batch stamps thousands of events with one moment
def iso_seconds(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` in UTC (the format of ``created_at`` and ``submitted_at``)."""
    moment = moment.astimezone(UTC)
    if moment.year < 1000:  # strftime's %Y does not pad; isoformat would
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.replace(microsecond=0, tzinfo=None).isoformat() + "Z"  # a third of strftime's time


@lru_cache(maxsize=256)
def iso_micro(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC (``signed_at`` in receipts and signatures)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class CanonicalRecord:
    """A canonical record with its digest and identifiers."""

    record: dict
    canonical: bytes
    sha256: str
    pith_number: str
    pith_body: str
    year: int


def cross_cats_sorted(categories: Iterable[str], primary_cat: str) -> list[str]:
    """``cross_cats_sorted``: the distinct non-empty categories other than the primary, sorted."""
    return sorted({c for c in categories if c and c != primary_cat})


def canonical_record_document(
    *,
    arxiv_id,
    version,
    license,
    primary_cat,
    submitted_at,
    cross_cats_sorted,
    title_canon_sha256,
    abstract_canon_sha256,
) -> dict:
    """The canonical record's shape, from values already derived (see :func:`canonical_record_build`)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "source": {"kind": "arxiv", "id": arxiv_id, "version": version},
        "metadata": {
            "license": license,
            "primary_cat": primary_cat,
            "submitted_at": submitted_at,
            "cross_cats_sorted": cross_cats_sorted,
            "title_canon_sha256": title_canon_sha256,
            "abstract_canon_sha256": abstract_canon_sha256,
        },
    }


def canonical_record_build(
    *,
    arxiv_id: str,
    version: int,
    license: str,
    primary_cat: str,
    submitted_at: datetime,
    categories: Iterable[str],
    title: str,
    abstract: str,
) -> CanonicalRecord:
    """The canonical record of one arXiv version (PROVENANCE.md, "Canonical record").

    ``cross_cats_sorted`` is the sorted categories other than the primary one; the title
    and abstract enter only as SHA-256 of their canonical text. The pith year is the year of
    ``submitted_at`` (UTC).
    """
    record = canonical_record_document(
        arxiv_id=arxiv_id,
        version=int(version),
        license=license or "",
        primary_cat=primary_cat,
        submitted_at=iso_seconds(submitted_at),
        cross_cats_sorted=cross_cats_sorted(categories, primary_cat),
        title_canon_sha256=text_canon_sha256(title),
        abstract_canon_sha256=text_canon_sha256(abstract),
    )
    # Strings and one integer, all keys ASCII: the plain subset, no walk needed.
    canonical = canonical_json_trusted(record)
    digest = sha256_hex(canonical)
    year = submitted_at.astimezone(UTC).year
    body = pith_body(digest)
    return CanonicalRecord(record, canonical, digest, f"pith:{year}:{body}", body, year)


def aliases_build(*, source_id: str, version: int, body: str, created_at: str) -> list[dict]:
    """Source aliases, sorted by kind as in the seed: arxiv id, versioned id, DOI, short forms."""
    pairs = [
        ("arxiv", source_id),
        ("arxiv_version", f"{source_id}v{version}"),
        ("doi", f"10.48550/arxiv.{source_id}"),
    ] + [(f"pith_short_{n}", body[:n]) for n in SHORT_LENGTHS]
    return [
        {"alias_kind": kind, "alias_value": value, "created_at": created_at} for kind, value in sorted(pairs)
    ]


def signer_block(signer: Signer, signer_id: str) -> dict:
    """``signer {signer_id, signer_type, key_id, public_key_fingerprint}`` of an event."""
    return {
        "signer_id": signer_id,
        "signer_type": SIGNER_TYPE,
        "key_id": signer.key_id,
        "public_key_fingerprint": signer.fingerprint,
    }


def signature_document(signer: Signer, signature_b64: str, signed_message: str, stamp: str) -> dict:
    """The signature block around a signature already made (``stamp`` is ``signed_at``, ISO µs)."""
    return {
        "signature_status": SIGNATURE_STATUS,
        "algorithm": ALGORITHM,
        "key_id": signer.key_id,
        "public_key_fingerprint": signer.fingerprint,
        "signature_b64": signature_b64,
        "signed_message": signed_message,
        "signed_at": stamp,
    }


def signature_block(signer: Signer, digest_hex: str, signed_message: str, signed_at: datetime) -> dict:
    """An ed25519 signature block over the raw bytes of ``digest_hex``."""
    return signature_document(signer, signer.sign_digest(digest_hex), signed_message, iso_micro(signed_at))


def receipt_document(signer: Signer, canonical_sha256: str, signature_b64: str, stamp: str) -> dict:
    """The receipt document around a signature already made (``stamp`` is ``signed_at``, ISO µs)."""
    return {
        "kind": "pith_receipt",
        "key_id": signer.key_id,
        "algorithm": ALGORITHM,
        "signed_at": stamp,
        "signature_b64": signature_b64,
        "signed_message": RECEIPT_SIGNED_MESSAGE,
        "builder_version": BUILDER_VERSION,
        "receipt_version": RECEIPT_VERSION,
        "canonical_sha256": canonical_sha256,
        "last_reissued_at": stamp,
        "signature_status": SIGNATURE_STATUS,
        "first_computed_at": stamp,
        "public_key_fingerprint": signer.fingerprint,
    }


def receipt_build(signer: Signer, canonical_sha256: str, signed_at: datetime) -> dict:
    """The receipt: the signature over the 32 raw bytes of ``canonical_sha256``."""
    return receipt_document(
        signer, canonical_sha256, signer.sign_digest(canonical_sha256), iso_micro(signed_at)
    )


def record_created_payload(canonical: CanonicalRecord, receipt: dict) -> dict:
    """Payload of ``record_created``: the record, its digest, the receipt, the source."""
    source = canonical.record["source"]
    return record_created_document(
        canonical.record, canonical.sha256, receipt, source["kind"], source["id"], source["version"]
    )


def record_created_document(
    record: dict, sha256: str, receipt: dict, source_kind: str, source_id: str, source_version: int
) -> dict:
    """The ``record_created`` payload's shape (see :func:`record_created_payload`)."""
    return {
        "canonical_record": record,
        "canonical_sha256": sha256,
        "receipt": receipt,
        "source_kind": source_kind,
        "source_id": source_id,
        "source_version": source_version,
        "attestation_state": "computed",
    }


def graph_snapshot_payload(
    *,
    source: dict,
    title: str,
    license: str,
    primary_cat: str,
    categories: Sequence[str],
    authors_text: str,
    authors: Sequence[tuple[int, str]],
    submitted_at: str,
    abstract: str,
) -> dict:
    """Payload of ``graph_snapshot``: what the archive shows of the paper when signing.

    ``paper`` mirrors the seed's keys (title, licence, categories, author string, submission
    time, abstract excerpt of 600 characters); ``authors`` lists the author slots as
    ``{position, name}``. The registry's claims, verdicts and integrity sections are not
    produced: this archive computes none of them.
    """
    return graph_snapshot_document(
        source=source,
        title=title,
        license=license or "",
        primary_cat=primary_cat,
        cross_cats=[c for c in categories if c != primary_cat],
        authors_text=authors_text,
        authors=author_slots(authors),
        submitted_at=submitted_at,
        abstract_excerpt=abstract[:ABSTRACT_EXCERPT_CHARS],
    )


def _signable(value):
    """``value`` with every float written as text: signed content holds no floats
    (PROVENANCE.md), and an editor's signal may carry one."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return {k: _signable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_signable(v) for v in value]
    return value


def authorship_matched_payload(
    *,
    position: int,
    name: str,
    researcher_id: int,
    method: str,
    source: str,
    confidence: float,
    evidence: list,
    unconfirmed: bool,
) -> dict:
    """Payload of ``authorship_matched`` (issue 20): which author slot (1-based ``position``
    and ``name`` as written) is linked to which researcher, how (``method``, ``source``),
    how sure (``confidence`` as text with two decimals, ``"0.60"``: no floats in signed
    content), why (``evidence``, the authorship's signals: ``researchers.evidence``) and
    whether it is a guess (``unconfirmed``)."""
    return {
        "position": int(position),
        "name": name,
        "researcher_id": int(researcher_id),
        "method": method,
        "source": source,
        "confidence": f"{confidence:.2f}",
        "evidence": _signable(list(evidence)),
        "unconfirmed": bool(unconfirmed),
    }


def author_slots(authors: Sequence[tuple[int, str]]) -> list[dict]:
    """``authors`` of a graph snapshot: ``[{position, name}]`` in the order given."""
    return [{"position": int(p), "name": n} for p, n in authors]


def graph_snapshot_document(
    *, source, title, license, primary_cat, cross_cats, authors_text, authors, submitted_at, abstract_excerpt
) -> dict:
    """The ``graph_snapshot`` payload's shape, from values already derived (see
    :func:`graph_snapshot_payload`)."""
    return {
        "graph_snapshot": {
            "paper": {
                "title": title,
                "license": license,
                "cross_cats": cross_cats,
                "primary_cat": primary_cat,
                "authors_text": authors_text,
                "submitted_at": submitted_at,
                "abstract_excerpt": abstract_excerpt,
            },
            "authors": authors,
            "source": source,
            "builder_version": BUILDER_VERSION,
        }
    }


@dataclass(frozen=True, slots=True)
class SignedEvent:
    """An event ready to store: signed content (and its canonical bytes), digest, signature."""

    content: dict
    canonical: bytes
    content_sha256: str
    signature: dict

    @property
    def event_id(self) -> str:
        return f"sha256:{self.content_sha256}"


def event_document(
    *, event_type, subject_pith_number, target, payload, signer, created_at, supersedes, prev_event
) -> dict:
    """The signed content of an event (its shape; see :func:`event_build`)."""
    return {
        "event_type": event_type,
        "subject_pith_number": subject_pith_number,
        "target": target,
        "payload": payload,
        "signer": signer,
        "created_at": created_at,
        "supersedes": supersedes,
        "prev_event": prev_event,
        "schema_version": SCHEMA_VERSION,
    }


def event_build(
    signer: Signer,
    *,
    signer_id: str,
    event_type: str,
    subject_pith_number: str,
    target: str,
    payload: dict,
    created_at: datetime,
    supersedes: Sequence[str] = (),
    prev_event: str | None = None,
    signed_at: datetime | None = None,
    trusted_payload: bool = False,
) -> SignedEvent:
    """Build and sign one event (PROVENANCE.md, "Signatures": content hash, then id, then sign).

    ``trusted_payload`` skips the payload's type walk, for payloads built here from
    strings and integers (signing's own). Raises
    :class:`provenance.canonical.CanonicalJsonError` when ``payload`` holds a float or a
    non-JSON value.
    """
    content = event_document(
        event_type=event_type,
        subject_pith_number=subject_pith_number,
        target=target,
        payload=payload,
        signer=signer_block(signer, signer_id),
        created_at=iso_seconds(created_at),
        supersedes=list(supersedes),
        prev_event=prev_event,
    )
    # The envelope is ours (ASCII keys, strings); only the payload may need RFC 8785's path.
    plain = trusted_payload or is_plain(payload)
    canonical = canonical_json_trusted(content) if plain else canonical_json(content)
    digest = sha256_hex(canonical)
    signature = signature_block(signer, digest, EVENT_SIGNED_MESSAGE, signed_at or created_at)
    return SignedEvent(content, canonical, digest, signature)
