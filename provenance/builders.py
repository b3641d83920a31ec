"""Pure builders of the signed documents: canonical records, aliases, receipts, events."""

from __future__ import annotations

import hashlib
import json
import re
from binascii import b2a_base64
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from .canonical import (
    SHORT_LENGTHS,
    canonical_json,
    canonical_json_trusted,
    is_plain,
    pith_body,
    pith_body_of_digest,
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

# Event families: the registry's two, and ours for authorship and editor curation. The
# default target names the chain an event extends (``prev_event`` links within one target).
EVENT_TARGETS = {
    "record_created": "record",
    "graph_snapshot": "graph",
    "authorship_matched": "authorship",
    "researcher_merged": "curation",
    "researcher_split": "curation",
    "curation_undone": "curation",
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


# --- Signing in bulk from pre-serialised parts ------------------------------------------
#
# ``records_sign`` builds, for every paper version, a record, a receipt and two events. Made
# as dicts and serialised with ``json.dumps(sort_keys=True)``, the receipt would be
# serialised twice (alone and inside ``record_created``), the record twice, the author list
# and the paper's fields once per version, and every envelope's keys sorted again each time.
# :class:`SigningTemplates` instead serialises each shape once per run (the documents above,
# with holes) and each paper's invariant parts once per paper, then fills the holes with
# ``str.format``. C(x) of a document is the splice of C(x) of its values, so the bytes are
# those of the dict builders (tests/provenance/test_signing_golden.py pins them).

_json_str = json.encoder.encode_basestring  # the string literal json.dumps(ensure_ascii=False) writes
_HOLE = "@hole:{}@"  # ASCII, no JSON escapes: appears verbatim in C(document)


def _template(document: dict, holes: Iterable[str]) -> Callable[..., str]:
    """A function filling ``C(document)``'s values ``"@hole:<name>@"`` by keyword.

    Each hole is filled with the canonical JSON of its value (a quoted string literal, an
    integer, ``null``, or a whole canonical document). The function is one f-string of the
    literal pieces and the holes (the pieces are passed as globals, never pasted into
    source): ``str.format`` re-parsed a 2 kB template on every call, a sixth of a signature
    each. Raises ``ValueError`` when a hole is missing or appears twice.
    """
    names = list(holes)
    text = canonical_json_trusted(document).decode("utf-8")
    for name in names:
        if not name.isidentifier() or text.count(f'"{_HOLE.format(name)}"') != 1:
            raise ValueError(f"template hole {name!r}: not one occurrence in the document")
    pieces = re.split('"' + _HOLE.format("([A-Za-z_][A-Za-z0-9_]*)") + '"', text)
    literals, order = pieces[0::2], pieces[1::2]
    if sorted(order) != sorted(names):
        raise ValueError(f"template holes {order} are not {names}")
    body = "".join(f"{{_l{i}}}{{{name}}}" for i, name in enumerate(order)) + f"{{_l{len(order)}}}"
    namespace = {f"_l{i}": literal for i, literal in enumerate(literals)}
    exec(f'def fill(*, {", ".join(names)}):\n    return f"{body}"', namespace)  # noqa: S102
    return namespace["fill"]


def _id_list(ids: Sequence[str]) -> str:
    """C(x) of a list of event ids (strings), without the encoder's per-call set-up."""
    return "[" + ",".join([_json_str(i) for i in ids]) + "]"


def _string_list(values: list) -> str:
    """C(values) for a list of strings, without the encoder's per-call set-up."""
    if all(type(v) is str for v in values):
        return "[" + ",".join([_json_str(v) for v in values]) + "]"
    return canonical_json_trusted(values).decode("utf-8")


def _author_slots_json(authors: Sequence[tuple[int, str]]) -> str:
    """C(:func:`author_slots`), each slot written directly (keys in sorted order: name,
    position); anything but integer positions and string names takes the encoder."""
    if all(type(p) is int and type(n) is str for p, n in authors):
        slots = ",".join([f'{{"name":{_json_str(n)},"position":{p}}}' for p, n in authors])
        return "[" + slots + "]"
    return canonical_json_trusted(author_slots(authors)).decode("utf-8")


def _holes(*names: str) -> dict[str, str]:
    return {name: _HOLE.format(name) for name in names}


@dataclass(slots=True)  # not frozen: a frozen __init__ costs a setattr call per field
class PaperParts:
    """A paper's values as canonical JSON literals, serialised once for all its versions."""

    arxiv_id: str
    license: str
    primary_cat: str
    cross_cats_sorted: str
    title_canon_sha256: str
    abstract_canon_sha256: str
    title: str
    cross_cats: str
    authors_text: str
    abstract_excerpt: str
    authors: str


@dataclass(slots=True)  # not frozen: a frozen __init__ costs a setattr call per field
class BuiltEvent:
    """One signed event as canonical JSON text (what the ``content`` column stores)."""

    content: str
    content_sha256: str
    signature: str
    prev_event: str | None

    @property
    def event_id(self) -> str:
        return f"sha256:{self.content_sha256}"


@dataclass(slots=True)  # not frozen: a frozen __init__ costs a setattr call per field
class RecordText:
    """A canonical record as canonical JSON text, with its digest (hex and raw) and pith number."""

    canonical: str
    sha256: str
    digest: bytes
    pith_number: str
    pith_body: str


class SigningTemplates:
    """Builds signing's records, receipts and events from pre-serialised parts.

    One instance per signer and moment (``created_at`` is ``now`` in whole seconds,
    ``signed_at`` with microseconds, as :func:`event_build` and :func:`receipt_build` stamp
    them); use :meth:`paper_parts` once per paper, then :meth:`version` and
    :meth:`graph_snapshot` per version. Output is byte for byte that of
    :func:`canonical_record_build`, :func:`receipt_build` and :func:`event_build` with
    :func:`record_created_payload` and :func:`graph_snapshot_payload` (same signer, same
    moment). Strings with lone surrogates raise ``UnicodeEncodeError``, as there.
    """

    def __init__(self, signer: Signer, *, signer_id: str, now: datetime) -> None:
        self._sign = signer.private_key.sign
        stamp = iso_micro(now)
        created_at = iso_seconds(now)
        signer_doc = signer_block(signer, signer_id)
        h = _holes(
            "arxiv_id", "version", "license", "primary_cat", "submitted_at", "cross_cats_sorted",
            "title_canon_sha256", "abstract_canon_sha256", "sha256", "signature_b64", "record",
            "receipt", "pith", "supersedes", "prev_event", "title", "cross_cats", "authors_text",
            "abstract_excerpt", "authors",
        )  # fmt: skip
        record = canonical_record_document(
            arxiv_id=h["arxiv_id"],
            version=h["version"],
            license=h["license"],
            primary_cat=h["primary_cat"],
            submitted_at=h["submitted_at"],
            cross_cats_sorted=h["cross_cats_sorted"],
            title_canon_sha256=h["title_canon_sha256"],
            abstract_canon_sha256=h["abstract_canon_sha256"],
        )
        self._record = _template(record, list(h)[:8])
        self._receipt = _template(
            receipt_document(signer, h["sha256"], h["signature_b64"], stamp), ["sha256", "signature_b64"]
        )
        self._signature = _template(
            signature_document(signer, h["signature_b64"], EVENT_SIGNED_MESSAGE, stamp), ["signature_b64"]
        )
        envelope = {
            "signer": signer_doc,
            "created_at": created_at,
            "subject_pith_number": h["pith"],
            "supersedes": h["supersedes"],
            "prev_event": h["prev_event"],
        }
        created_payload = record_created_document(
            h["record"], h["sha256"], h["receipt"], "arxiv", h["arxiv_id"], h["version"]
        )
        self._record_created = _template(
            event_document(
                event_type="record_created",
                target=EVENT_TARGETS["record_created"],
                payload=created_payload,
                **envelope,
            ),
            ["pith", "supersedes", "prev_event", "record", "sha256", "receipt", "arxiv_id", "version"],
        )
        source = {"kind": "arxiv", "id": h["arxiv_id"], "version": h["version"]}
        snapshot_payload = graph_snapshot_document(
            source=source,
            title=h["title"],
            license=h["license"],
            primary_cat=h["primary_cat"],
            cross_cats=h["cross_cats"],
            authors_text=h["authors_text"],
            authors=h["authors"],
            submitted_at=h["submitted_at"],
            abstract_excerpt=h["abstract_excerpt"],
        )
        self._graph_snapshot = _template(
            event_document(
                event_type="graph_snapshot",
                target=EVENT_TARGETS["graph_snapshot"],
                payload=snapshot_payload,
                **envelope,
            ),
            [
                "pith", "supersedes", "prev_event", "arxiv_id", "version", "title", "license",
                "primary_cat", "cross_cats", "authors_text", "authors", "submitted_at", "abstract_excerpt",
            ],
        )  # fmt: skip

    @staticmethod
    def paper_parts(
        *,
        arxiv_id: str,
        license: str,
        primary_cat: str,
        categories: Sequence[str],
        title: str,
        abstract: str,
        authors_text: str,
        authors: Sequence[tuple[int, str]],
    ) -> PaperParts:
        """A paper's invariant values, serialised (same derivations as the dict builders)."""
        return PaperParts(
            arxiv_id=_json_str(arxiv_id),
            license=_json_str(license or ""),
            primary_cat=_json_str(primary_cat),
            cross_cats_sorted=_string_list(cross_cats_sorted(categories, primary_cat)),
            title_canon_sha256=_json_str(text_canon_sha256(title)),
            abstract_canon_sha256=_json_str(text_canon_sha256(abstract)),
            title=_json_str(title),
            cross_cats=_string_list([c for c in categories if c != primary_cat]),
            authors_text=_json_str(authors_text),
            abstract_excerpt=_json_str(abstract[:ABSTRACT_EXCERPT_CHARS]),
            authors=_author_slots_json(authors),
        )

    def _event(self, content: str, prev_event: str | None) -> BuiltEvent:
        digest = hashlib.sha256(content.encode("utf-8")).digest()
        signature = b2a_base64(self._sign(digest), newline=False).decode("ascii")
        return BuiltEvent(content, digest.hex(), self._signature(signature_b64=f'"{signature}"'), prev_event)

    def record(self, parts: PaperParts, *, version: int, submitted_at: str) -> RecordText:
        """One version's canonical record (``submitted_at`` is :func:`iso_seconds` of its time)."""
        canonical = self._record(
            arxiv_id=parts.arxiv_id,
            version=str(int(version)),
            license=parts.license,
            primary_cat=parts.primary_cat,
            submitted_at=_json_str(submitted_at),
            cross_cats_sorted=parts.cross_cats_sorted,
            title_canon_sha256=parts.title_canon_sha256,
            abstract_canon_sha256=parts.abstract_canon_sha256,
        )
        digest = hashlib.sha256(canonical.encode("utf-8")).digest()
        body = pith_body_of_digest(digest)
        year = submitted_at.partition("-")[0]  # the year of submitted_at, as int(year) prints it
        return RecordText(canonical, digest.hex(), digest, f"pith:{year}:{body}", body)

    def record_created(
        self, parts: PaperParts, record: RecordText, *, version: int, supersedes: Sequence[str] = ()
    ) -> tuple[str, BuiltEvent]:
        """The record's signed receipt (canonical JSON text) and its signed ``record_created``
        event, superseding the ``record_created`` ids in ``supersedes``."""
        signature = b2a_base64(self._sign(record.digest), newline=False).decode("ascii")
        receipt = self._receipt(sha256=f'"{record.sha256}"', signature_b64=f'"{signature}"')
        content = self._record_created(
            pith=_json_str(record.pith_number),
            supersedes=_id_list(supersedes),
            prev_event="null",
            record=record.canonical,
            sha256=f'"{record.sha256}"',
            receipt=receipt,
            arxiv_id=parts.arxiv_id,
            version=str(int(version)),
        )
        return receipt, self._event(content, None)

    def graph_snapshot(
        self,
        parts: PaperParts,
        *,
        pith_number: str,
        version: int,
        submitted_at: str,
        prev_event: str | None = None,
        supersedes: Sequence[str] = (),
    ) -> BuiltEvent:
        """A signed ``graph_snapshot`` event of one version (see :func:`graph_snapshot_payload`)."""
        content = self._graph_snapshot(
            pith=_json_str(pith_number),
            supersedes=_id_list(supersedes),
            prev_event="null" if prev_event is None else _json_str(prev_event),
            arxiv_id=parts.arxiv_id,
            version=str(int(version)),
            title=parts.title,
            license=parts.license,
            primary_cat=parts.primary_cat,
            cross_cats=parts.cross_cats,
            authors_text=parts.authors_text,
            authors=parts.authors,
            submitted_at=_json_str(submitted_at),
            abstract_excerpt=parts.abstract_excerpt,
        )
        return self._event(content, prev_event)
