"""BUGS.md B32-01: one base32 spelling emitted; case and padding read to the same bytes; the rest refused.

PROVENANCE.md fixes the spelling: RFC 4648 base32, upper case, no padding (pith numbers take
its first 26 characters). A whole digest in base32 is read by ``/pith/<ref>``: the spellings
of one digest lead to its record; a space, a character outside the alphabet, or non-zero pad
bits (``…CYR``, which Python's ``b32decode`` reads as ``…CYQ``) answer 400 with the reason.
"""

from __future__ import annotations

import base64
from urllib.parse import quote

import pytest

from provenance.canonical import Base32Error, b32, b32_digest_decode, pith_body
from provenance.models import Record

DIGEST = "bce61656b2f7c5b49f77ace702f5af69e3fa8b811a26852dd366f83dd34de0b1"  # JCS-03
PADDED = "XTTBMVVS67C3JH3XVTTQF5NPNHR7VC4BDITIKLOTM34D3U2N4CYQ===="
LOWER = "xttbmvvs67c3jh3xvttqf5npnhr7vc4bditiklotm34d3u2n4cyq"
SPACED = " ".join(LOWER[i : i + 4] for i in range(0, 52, 4))
TRAILING_BITS = "XTTBMVVS67C3JH3XVTTQF5NPNHR7VC4BDITIKLOTM34D3U2N4CYR===="
OUTSIDE = "XTTBMVVS67C3JH3XVTTQF5NPNHR7VC4BDITIKLOTM34D3U2N4CY1"


def test_one_spelling_is_emitted():
    """BUGS.md B32-01: the spelling PROVENANCE.md fixes (upper case, unpadded, 52 characters)."""
    emitted = b32(bytes.fromhex(DIGEST))
    assert emitted == PADDED.rstrip("=") == LOWER.upper()
    assert len(PADDED) == 56 and len(emitted) == 52
    assert pith_body(DIGEST) == emitted[:26] == "XTTBMVVS67C3JH3XVTTQF5NPNH"


@pytest.mark.parametrize("spelling", [PADDED, LOWER, LOWER.upper(), PADDED.lower(), "xTtBmVvS" + LOWER[8:]])
def test_case_and_padding_read_to_the_same_32_bytes(spelling):
    """BUGS.md B32-01: upper/lower and padded/unpadded give the same bytes, never others."""
    assert b32_digest_decode(spelling) == bytes.fromhex(DIGEST)


@pytest.mark.parametrize(
    ("spelling", "reason"),
    [
        (SPACED, "' ' at position 5 is not in the RFC 4648 alphabet"),
        (TRAILING_BITS, "pad bits are not zero"),
        (TRAILING_BITS.rstrip("="), "pad bits are not zero"),
        (OUTSIDE, "'1' at position 52 is not in the RFC 4648 alphabet"),
        ("1", "'1' at position 1"),
        (LOWER + "=", "padding must be exactly '===='"),
        (LOWER[:-1], "51 characters"),
    ],
)
def test_other_spellings_are_refused_saying_why(spelling, reason):
    """BUGS.md B32-01: spaced form and ``1`` refused; ``…CYR`` refused although the stdlib
    reads it as the same bytes as ``…CYQ`` (two ids for one record)."""
    with pytest.raises(Base32Error, match=reason.replace("(", r"\(")):
        b32_digest_decode(spelling)
    if spelling.startswith(TRAILING_BITS[:52]) and spelling.endswith("===="):
        assert base64.b32decode(TRAILING_BITS) == bytes.fromhex(DIGEST)


def test_stdlib_traps():
    """BUGS.md B32-01: what ``base64.b32decode`` does with the unpadded and lowercase spellings."""
    with pytest.raises(ValueError, match="Incorrect padding"):
        base64.b32decode(LOWER.upper())
    with pytest.raises(ValueError, match="Non-base32 digit found"):
        base64.b32decode(PADDED.lower())


@pytest.mark.parametrize(
    ("spelling", "reason"),
    [
        (SPACED, "not in the RFC 4648 alphabet"),
        (TRAILING_BITS, "pad bits are not zero"),
        (OUTSIDE, "'1' at position 52"),
    ],
)
def test_the_pith_url_refuses_a_misspelt_digest_with_400(client, db, spelling, reason):
    """BUGS.md B32-01 through ``/pith/<ref>``: the reason, not a 404 or another record."""
    for url in (f"/pith/{quote(spelling)}", f"/pith/{quote(spelling)}/bundle.json"):
        response = client.get(url)
        assert response.status_code == 400
        assert reason in response.content.decode()


@pytest.mark.parametrize("spelling", [PADDED, LOWER])
def test_the_pith_url_reads_the_bugs_spellings_as_a_digest_it_does_not_hold(client, db, spelling):
    assert client.get(f"/pith/{spelling}").status_code == 404


def test_every_spelling_of_a_signed_digest_leads_to_its_record(client, signed_raw_page):
    """A real signed record (0801.3673v1): its digest in each readable spelling redirects to
    the one page; the same digest with its pad bits set is refused."""
    record = Record.objects.get(source_id="0801.3673")
    emitted = b32(bytes.fromhex(record.canonical_sha256))
    assert emitted[:26] == record.pith_body
    page = f"/pith/{record.pith_body}"
    for spelling in (emitted, emitted + "====", emitted.lower(), emitted.lower() + "===="):
        response = client.get(f"/pith/{spelling}")
        assert (response.status_code, response["Location"]) == (302, page)
        bundle = client.get(f"/pith/{spelling}/bundle.json")
        assert (bundle.status_code, bundle["Location"]) == (302, f"{page}/bundle.json")
    assert client.get(page).status_code == 200
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".index(emitted[-1])
    assert last % 16 == 0  # the 4 pad bits of the emitted spelling are zero
    flipped = emitted[:-1] + "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[last + 1]
    assert base64.b32decode(flipped + "====") == bytes.fromhex(record.canonical_sha256)
    assert client.get(f"/pith/{flipped}").status_code == 400
