"""BUGS.md JCS-03: non-ASCII kept as UTF-8, escapes as RFC 8785 writes them, NFC at ingest.

The signer (``canonical_json``) and the verifier (``rfc8785_json``) must give the same bytes:
a verifier that re-serialises with ``\\u`` escapes (Python's ``ensure_ascii`` default)
rejects every record with a non-ASCII character. Harvested text is composed (NFC) once at
ingest; the canonicaliser itself never normalises. The harvest test edits the title of the
real record 0801.3673 ("Variational Functionals for Excited States", page 1 of the recorded
arXivRaw harvest) to the BUGS.md title, sent decomposed (the recorded pages write accents as
TeX, so an edit is needed).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata

import pytest

from papers import harvest as paper_harvest
from papers.models import Paper
from provenance import services
from provenance.bundles import bundle_build
from provenance.canonical import canonical_json, rfc8785_json, text_canon_sha256
from provenance.merge import event_content
from provenance.models import Record
from provenance.verify import verify_bundle

from .conftest import RAW_PAGE1

DOCUMENT = {"arxiv_id": "2401.01234", "title": "Schr\u00f6dinger bridges"}
CANONICAL_HEX = (
    "7b2261727869765f6964223a22323430312e3031323334222c227469746c65223a"
    "2253636872c3b664696e6765722062726964676573227d"
)
CANONICAL_SHA256 = "bce61656b2f7c5b49f77ace702f5af69e3fa8b811a26852dd366f83dd34de0b1"
NFD_TITLE = "Schro\u0308dinger bridges"
RECORDED_TITLE = "Variational Functionals for Excited States"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("canonical", [canonical_json, rfc8785_json], ids=["signer", "verifier"])
def test_non_ascii_bytes_and_digest(canonical):
    """BUGS.md JCS-03: ö as ``c3 b6``, the SHA-256 BUGS.md gives; not the two wrong outputs."""
    assert canonical(DOCUMENT).hex() == CANONICAL_HEX
    assert _sha(canonical(DOCUMENT)) == CANONICAL_SHA256
    escaped = json.dumps(DOCUMENT, sort_keys=True, separators=(",", ":")).encode()
    assert b"\\u00f6" in escaped
    assert _sha(escaped) == "e3698154f7a2ba893546bf16ce3929254a4994ee4f6d2e5886da06ec9f3590b6"
    spaced = json.dumps(DOCUMENT, sort_keys=True, ensure_ascii=False).encode()
    assert _sha(spaced) == "f69ae25f5e8bc949949567ea5c697b4cb6054a8ddf8874757c29953fac23ef1e"


@pytest.mark.parametrize("canonical", [canonical_json, rfc8785_json], ids=["signer", "verifier"])
def test_control_character_line_separator_and_quote(canonical):
    """BUGS.md JCS-03: U+001F as ``\\u001f`` (lower-case hex), U+2028 raw, ``"`` and ``\\`` escaped."""
    document = dict(DOCUMENT, ctl="a\u001fb", note="line\u2028sep", q='say "hi"\\')
    data = canonical(document)
    assert b'"ctl":"a\\u001fb"' in data
    assert '"note":"line\u2028sep"'.encode() in data  # e2 80 a8, not \u2028
    assert b'"q":"say \\"hi\\"\\\\"' in data
    assert _sha(data) == "3354369c0f84513ff35561e3505e3c6ae931e65a1558b4795ec6dbd17b81c11e"


def test_the_canonicaliser_never_normalises():
    """BUGS.md JCS-03: hashing the NFD document gives another digest (9f01f0ac…)."""
    decomposed = dict(DOCUMENT, title=NFD_TITLE)
    assert unicodedata.normalize("NFC", NFD_TITLE) == DOCUMENT["title"] != NFD_TITLE
    assert _sha(canonical_json(decomposed)).startswith("9f01f0ac")
    assert _sha(rfc8785_json(decomposed)).startswith("9f01f0ac")


def test_an_nfd_title_is_composed_at_ingest_and_signed_as_utf8(db, tmp_path):
    """BUGS.md JCS-03 through the harvest: the title sent as ``Schro\\u0308dinger bridges``
    is stored composed, so it gives the BUGS.md record (bce61656…), and the signed record
    and events hold it as UTF-8 ``c3 b6``; the bundle verifies."""
    recorded = RAW_PAGE1.read_text(encoding="utf-8")
    assert recorded.count(RECORDED_TITLE) == 1
    page = tmp_path / "edited_arXivRaw_ListRecords_page1_nfd_title.xml"
    page.write_text(recorded.replace(RECORDED_TITLE, NFD_TITLE), encoding="utf-8")
    assert NFD_TITLE.encode() in page.read_bytes()

    paper_harvest.harvest_files(paths=[page])
    paper = Paper.objects.get(arxiv_id="0801.3673")
    assert paper.title == "Schr\u00f6dinger bridges" and len(paper.title) == 19
    assert _sha(canonical_json({"arxiv_id": "2401.01234", "title": paper.title})) == CANONICAL_SHA256

    services.records_sign()
    record = Record.objects.get(source_id="0801.3673")
    assert record.canonical_record["metadata"]["title_canon_sha256"] == text_canon_sha256(
        "schr\u00f6dinger bridges"
    )
    snapshot = record.events.get(event_type="graph_snapshot")
    content = canonical_json(snapshot.content)
    assert b'"title":"Schr\xc3\xb6dinger bridges"' in content
    assert snapshot.content_sha256 == _sha(content)

    bundle = bundle_build(record=record)
    assert verify_bundle(json.dumps(bundle, ensure_ascii=False)).failed == []
    assert verify_bundle(json.dumps(bundle, ensure_ascii=True)).failed == []  # \u escapes read back
    assert all(rfc8785_json(event_content(e)) == canonical_json(event_content(e)) for e in bundle["events"])
