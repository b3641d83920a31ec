"""Canonical JSON (RFC 8785) and the digests, base32 forms and pith numbers built on it."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import rfc8785

from papers.text import canon_text

# I-JSON (RFC 7493) integer range: RFC 8785 serialises numbers as IEEE 754 doubles, so only
# integers of magnitude below 2**53 survive every JSON reader unchanged.
MAX_SAFE_INTEGER = 2**53 - 1


class CanonicalJsonError(TypeError):
    """A value that signed content may not hold (a float, a huge integer, a non-string key)."""


def _plain(value: Any, *, floats: bool = False) -> bool:
    """True when ``value`` is in the subset where ``json.dumps`` equals RFC 8785 byte for byte.

    The subset: ``str``, ``bool``, ``None``, integers within the I-JSON range, lists and
    dicts with ASCII string keys (RFC 8785 orders keys by UTF-16 code units and Python by
    code points; the two orders agree on ASCII). Floats raise :class:`CanonicalJsonError`
    here, because signed content holds integers and strings only (PROVENANCE.md); with
    ``floats`` (a verifier reading others' documents) a float only leaves the subset.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if kind is dict:
        plain = True
        for key, item in value.items():
            if type(key) is not str:
                raise CanonicalJsonError(f"object key {key!r} is not a string")
            if not key.isascii():
                plain = False
            if not _plain(item, floats=floats):
                plain = False
        return plain
    if kind is list or kind is tuple:
        plain = True
        for item in value:
            if not _plain(item, floats=floats):
                plain = False
        return plain
    if kind is float and floats:
        return False
    if kind is float:
        raise CanonicalJsonError(f"float {value!r} in signed content: use an integer or a string")
    raise CanonicalJsonError(f"{kind.__name__} is not a JSON value")


def canonical_json(value: Any) -> bytes:
    """Serialise ``value`` as RFC 8785 canonical JSON (UTF-8 bytes).

    Keys sorted, no whitespace, non-ASCII kept as UTF-8 (not ``\\u`` escaped): the ``C(x)``
    of PROVENANCE.md. Documents of strings, integers, booleans, nulls, lists and ASCII-keyed
    objects take the C-accelerated ``json.dumps`` path, which yields the same bytes as RFC
    8785 for them (asserted against the ``rfc8785`` package in the tests); anything else
    goes through ``rfc8785.dumps``. Raises :class:`CanonicalJsonError` on floats and on
    non-JSON types, ``rfc8785.IntegerDomainError`` on integers outside ±(2**53-1), and
    ``UnicodeEncodeError``/``rfc8785.CanonicalizationError`` on lone surrogates.
    """
    if _plain(value):
        return _ENCODER.encode(value).encode("utf-8")  # json.dumps's bytes, its encoder built once
    return rfc8785.dumps(value)


def canonical_json_trusted(value: Any) -> bytes:
    """:func:`canonical_json` without the type walk, for documents this package builds itself.

    Gives ``rfc8785.dumps(value)``'s bytes for every document of strings (any Unicode but a
    lone surrogate), booleans, nulls, integers within ±(2**53-1), lists and objects with
    string keys (tests/provenance/test_key_order_utf16.py checks it against ``rfc8785``).
    Nothing is checked: floats, larger integers and non-string keys are the caller's to keep
    out (:mod:`provenance.builders` checks caller payloads with :func:`is_plain` first).

    Object keys in RFC 8785 §3.2.3's order, by UTF-16 code units. Python sorts by code
    points; without lone surrogates the two orders differ only when a key holds a character
    outside the Basic Multilingual Plane (U+1F600 is D83D DE00, so it sorts before U+FB01),
    so only a document holding one is sorted again (rurban/Cpanel-JSON-XS#248). Raises
    ``UnicodeEncodeError`` on a lone surrogate.
    """
    text = _ENCODER.encode(value)
    data = text.encode("utf-8")
    # isascii() reads a flag CPython keeps on the string, so ASCII documents pay nothing
    # more; in UTF-8 an astral character, and only one, starts with a byte F0..F4.
    if not text.isascii() and data.translate(None, _ALL_BUT_UTF8_4_BYTE_LEADS):
        data = _ENCODER_AS_GIVEN.encode(_utf16_sorted(value)).encode("utf-8")
    return data


def _utf16_sorted(value: Any) -> Any:
    """``value`` with every object's keys re-inserted in UTF-16 code unit order (RFC 8785 §3.2.3)."""
    kind = type(value)
    if kind is dict:
        items = sorted(value.items(), key=lambda item: item[0].encode("utf-16-be"))
        return {key: _utf16_sorted(item) for key, item in items}
    if kind is list or kind is tuple:
        return [_utf16_sorted(item) for item in value]
    return value


# json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) without
# building an encoder per call (a third of a small document's serialisation time).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# The same, keeping the order :func:`_utf16_sorted` gave.
_ENCODER_AS_GIVEN = json.JSONEncoder(sort_keys=False, separators=(",", ":"), ensure_ascii=False)
# Deleting these from UTF-8 leaves the lead bytes of characters outside the Basic
# Multilingual Plane (two UTF-16 code units each): 0.3 us for a 200-character document,
# a third of a regular expression's scan.
_ALL_BUT_UTF8_4_BYTE_LEADS = bytes(byte for byte in range(256) if not 0xF0 <= byte <= 0xF4)


def is_plain(value: Any) -> bool:
    """True when ``value`` may take the fast path; raises :class:`CanonicalJsonError` on floats
    and non-JSON values (see :func:`canonical_json`)."""
    return _plain(value)


def rfc8785_json(value: Any) -> bytes:
    """The verifier's ``C(x)``: RFC 8785 canonical JSON of any I-JSON document (UTF-8 bytes).

    We sign strings and integers only (:func:`canonical_json` refuses floats), but a verifier
    must accept every RFC 8785 document another signer may send (BUGS.md JCS-02), so numbers
    that are not integers are written as RFC 8785 §3.2.2.3 says, by ECMAScript's
    Number::toString: ``1.0`` → ``1``, ``-0.0`` → ``0``, ``1e-7`` → ``1e-7``, ``1e20`` →
    ``100000000000000000000``, ``1e21`` → ``1e+21``, ``1.5e-6`` → ``0.0000015``. That part is
    the ``rfc8785`` package's (already our reference in the tests); the plain subset keeps
    the fast path. Raises ``rfc8785.FloatDomainError`` for NaN and ±Infinity,
    ``rfc8785.IntegerDomainError`` for integers outside ±(2**53-1) (both ``ValueError``),
    :class:`CanonicalJsonError` for non-JSON types and non-string keys: never rounded, never
    written as text.
    """
    if _plain(value, floats=True):
        return _ENCODER.encode(value).encode("utf-8")
    return rfc8785.dumps(value)


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data`` as 64 lower-case hex characters."""
    return hashlib.sha256(data).hexdigest()


def canonical_sha256(value: Any) -> str:
    """SHA-256 hex of ``canonical_json(value)``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def b32(data: bytes) -> str:
    """RFC 4648 base32, upper case, padding removed."""
    return base64.b32encode(data).decode("ascii").rstrip("=")


class Base32Error(ValueError):
    """A base32 spelling of a digest that :func:`b32_digest_decode` does not read, and why."""


# 32 bytes are 256 bits: 51 characters of 5 bits and one more holding the last bit and 4
# pad bits, so 52 characters, or 56 with RFC 4648's padding ("====").
B32_DIGEST_LENGTH = 52
_B32_VALUE = {char: index for index, char in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}


def b32_digest_decode(text: str) -> bytes:
    """The 32 bytes of a SHA-256 digest written in RFC 4648 base32, read strictly.

    PROVENANCE.md fixes the one spelling this project emits, :func:`b32`: upper case, no
    padding, 52 characters. Read back are that spelling, the same in lower or mixed case, and
    RFC 4648's padded form (exactly ``====``); all give the same bytes. Everything else
    raises :class:`Base32Error` saying why, so no two strings name one digest by accident and
    none names another (BUGS.md B32-01): a space or other separator inside, a character
    outside the RFC 4648 §6 alphabet (``0``, ``1``, ``8``, ``9``, punctuation), a wrong
    length or padding, and non-zero pad bits in the last character (RFC 4648 §3.5: Python's
    ``b32decode`` ignores them, so ``…CYQ`` and ``…CYR`` would give the same digest).
    Surrounding whitespace is the caller's to strip.
    """
    body = text.upper()
    if body.endswith("="):
        if len(body) != B32_DIGEST_LENGTH + 4 or not body.endswith("===="):
            raise Base32Error(f"base32 digest {text!r}: padding must be exactly '====' after 52 characters")
        body = body[:B32_DIGEST_LENGTH]
    value = 0
    for position, char in enumerate(body, start=1):
        digit = _B32_VALUE.get(char)
        if digit is None:
            raise Base32Error(
                f"base32 digest {text!r}: {char!r} at position {position} is not in the RFC 4648 "
                "alphabet A-Z 2-7 (no separators)"
            )
        value = value * 32 + digit
    if len(body) != B32_DIGEST_LENGTH:
        raise Base32Error(f"base32 digest {text!r}: {len(body)} characters, a SHA-256 digest has 52")
    if value & 0xF:
        raise Base32Error(
            f"base32 digest {text!r}: the last character's 4 pad bits are not zero "
            f"(the digest's spelling ends in {b32((value >> 4).to_bytes(32, 'big'))[-1]!r})"
        )
    return (value >> 4).to_bytes(32, "big")


def text_canon_sha256(text: str | None) -> str:
    """``title_canon_sha256``/``abstract_canon_sha256``: SHA-256 hex of the lower-cased text
    with whitespace runs collapsed to one space and the ends trimmed (PROVENANCE.md)."""
    return sha256_hex(canon_text(text).encode("utf-8"))


PITH_BODY_LENGTH = 26
SHORT_LENGTHS = (8, 12, 16)


_B32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648 §6
_B32_PAIRS = [a + b for a in _B32_ALPHABET for b in _B32_ALPHABET]  # 10 bits -> 2 characters


def pith_body_of_digest(digest: bytes) -> str:
    """The 26-character body of a pith number from the 32 raw digest bytes.

    Equal to ``b32(digest)[:26]``: 26 base32 characters are the first 130 bits, read here
    10 at a time (``base64.b32encode`` is pure Python before 3.13 and cost a tenth of a
    signature per record).
    """
    bits = int.from_bytes(digest[:17], "big") >> 6  # 136 bits, of which the first 130
    return "".join([_B32_PAIRS[(bits >> shift) & 1023] for shift in range(120, -1, -10)])


def pith_body(digest_hex: str) -> str:
    """The 26-character body of a pith number: base32 of the 32 digest bytes, truncated."""
    return pith_body_of_digest(bytes.fromhex(digest_hex))


def pith_number(digest_hex: str, year: int) -> str:
    """``pith:<year>:<body>``, e.g. ``pith:2023:L5Y4YBEWHMNOUANEI723JO2ZA3``."""
    return f"pith:{year}:{pith_body(digest_hex)}"


def pith_short(body: str, length: int = 8) -> str:
    """The first ``length`` (8, 12 or 16) characters of a pith body."""
    return body[:length]
