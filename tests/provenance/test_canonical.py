"""Canonical JSON (RFC 8785) edge cases, and its agreement with the rfc8785 package."""

from __future__ import annotations

import json

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from provenance.canonical import (
    CanonicalJsonError,
    canonical_json,
    pith_body,
    pith_number,
    text_canon_sha256,
)


def test_non_ascii_is_kept_as_utf8_not_escaped():
    assert canonical_json({"name": "Müller Ж 😀"}) == '{"name":"Müller Ж 😀"}'.encode()
    assert b"\\u" not in canonical_json({"name": "Müller"})


def test_keys_sorted_and_no_whitespace():
    assert (
        canonical_json({"b": [1, 2], "a": {"d": None, "c": True}}) == b'{"a":{"c":true,"d":null},"b":[1,2]}'
    )


def test_key_order_is_by_utf16_code_units_as_rfc8785_says():
    # RFC 8785 §3.2.3's example: U+1F600 (UTF-16 D83D DE00) sorts before U+FB33,
    # although its code point is larger, so Python's own sort would get this wrong.
    doc = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    keys = list(json.loads(canonical_json(doc), object_pairs_hook=lambda pairs: [k for k, _ in pairs]))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    assert canonical_json(doc) == rfc8785.dumps(doc)


def test_control_characters_escaped_like_rfc8785():
    assert canonical_json({"t": 'a\nb\x1fc"d\\'}) == b'{"t":"a\\nb\\u001fc\\"d\\\\"}'


def test_integers_only_floats_refused():
    assert canonical_json({"n": 2**53 - 1, "m": -7}) == b'{"m":-7,"n":9007199254740991}'
    with pytest.raises(CanonicalJsonError):
        canonical_json({"score": 0.5})
    with pytest.raises(CanonicalJsonError):
        canonical_json({"nested": [1, {"x": 1.0}]})
    with pytest.raises(rfc8785.IntegerDomainError):
        canonical_json({"n": 2**53})


def test_non_json_values_refused():
    with pytest.raises(CanonicalJsonError):
        canonical_json({"when": object()})
    with pytest.raises(CanonicalJsonError):
        canonical_json({1: "int key"})


def test_seed_documents_give_identical_bytes_by_both_rules(seed):
    """PROVENANCE.md's rule (sorted keys, no whitespace, UTF-8) = rfc8785 = ours, on the seed."""

    def rule(value):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    unsigned = {k: v for k, v in seed.items() if k != "bundle_signature"}
    documents = [seed["canonical_record"], seed["state"], unsigned] + seed["events"]
    for document in documents:
        assert canonical_json(document) == rfc8785.dumps(document) == rule(document)


def test_title_canon_hash_and_pith_number_of_the_seed():
    assert (
        text_canon_sha256("Zero  Bubble\nPipeline Parallelism ")
        == "658503bb13d8e47e87919bac743b250e47807757188c52b299a2aabb225fa8d8"
    )
    digest = "5f71cc04963b1aea01a447f5b4bb5906e1ba59bff32759fb8d840b89c4fa3ef6"
    assert pith_body(digest) == "L5Y4YBEWHMNOUANEI723JO2ZA3"
    assert pith_number(digest, 2023) == "pith:2023:L5Y4YBEWHMNOUANEI723JO2ZA3"


_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_fast_path_equals_rfc8785_on_strings_and_integers(value):
    assert canonical_json(value) == rfc8785.dumps(value)
