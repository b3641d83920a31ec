"""Signing's fast path: records, receipts and events filled into pre-serialised templates.

``records_sign`` builds, for every paper version, a record, a receipt and two events. Made
as dicts and serialised with ``json.dumps(sort_keys=True)``, the receipt would be
serialised twice (alone and inside ``record_created``), the record twice, the author list
and the paper's fields once per version, and every envelope's keys sorted again each time.
:class:`SigningTemplates` instead serialises each shape once per run (the documents of
:mod:`provenance.builders`, with holes) and each paper's invariant parts once per paper, then
fills the holes with ``str.format``. C(x) of a document is the splice of C(x) of its values, so
the bytes are those of the dict builders (tests/provenance/test_signing_golden.py pins them).
"""

from __future__ import annotations

import hashlib
import json
import re
from binascii import b2a_base64
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from .builders import (
    ABSTRACT_EXCERPT_CHARS,
    EVENT_SIGNED_MESSAGE,
    EVENT_TARGETS,
    author_slots,
    canonical_record_document,
    cross_cats_sorted,
    event_document,
    graph_snapshot_document,
    iso_micro,
    iso_seconds,
    receipt_document,
    record_created_document,
    signature_document,
    signer_block,
)
from .canonical import canonical_json, canonical_json_trusted, pith_body_of_digest, text_canon_sha256
from .keys import Signer

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
    :meth:`graph_snapshot` per version, :meth:`authorship_matched` per authorship. Output is
    byte for byte that of :func:`canonical_record_build`, :func:`receipt_build` and
    :func:`event_build` with :func:`record_created_payload`, :func:`graph_snapshot_payload`
    and :func:`authorship_matched_payload` (same signer, same moment). Strings with lone
    surrogates raise ``UnicodeEncodeError``, as there.
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
            "abstract_excerpt", "authors", "target", "payload",
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

        self._authorship_matched = _template(
            event_document(
                event_type="authorship_matched", target=h["target"], payload=h["payload"], **envelope
            ),
            ["pith", "supersedes", "prev_event", "target", "payload"],
        )

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

    def authorship_matched(
        self,
        payload: dict,
        *,
        pith_number: str,
        target: str,
        prev_event: str | None = None,
        supersedes: Sequence[str] = (),
    ) -> BuiltEvent:
        """A signed ``authorship_matched`` event on chain ``target`` of the record
        ``pith_number`` (``payload`` from :func:`provenance.builders.authorship_matched_payload`):
        :func:`event_build`'s bytes. Raises :class:`provenance.canonical.CanonicalJsonError` on a
        float or a non-JSON value in ``payload``, as there."""
        content = self._authorship_matched(
            pith=_json_str(pith_number),
            supersedes=_id_list(supersedes),
            prev_event="null" if prev_event is None else _json_str(prev_event),
            target=_json_str(target),
            payload=canonical_json(payload).decode("utf-8"),
        )
        return self._event(content, prev_event)
