"""RFC 8785 §3.2.3 key order on the fast path (rurban/Cpanel-JSON-XS#248, issue 32).

RFC 8785 sorts object keys by their UTF-16 code units; Python (and ``json.dumps``) sorts by
code points. The two orders differ only when one key has a character in U+E000..U+FFFF where
another has one outside the Basic Multilingual Plane: U+1F600 is the code units D83D DE00,
so it sorts *before* U+FB01 (FB01) and U+FFFD (FFFD), though its code point is larger.
``canonical_json_trusted`` (signing's fast path) must give ``rfc8785``'s bytes for every
document it accepts: strings (any Unicode but a lone surrogate), booleans, nulls, integers
within ±(2**53-1), lists, and objects with string keys.
"""

from __future__ import annotations

import rfc8785
from hypothesis import example, given, settings
from hypothesis import strategies as st

from provenance.canonical import MAX_SAFE_INTEGER, canonical_json, canonical_json_trusted, rfc8785_json


def test_the_reported_pair_orders_by_utf16_code_units():
    """The report's keys: the emoji first, as every conforming verifier writes it."""
    document = {"\ufb01": 1, "\U0001f600": 2}
    expected = '{"\U0001f600":2,"\ufb01":1}'.encode()
    assert rfc8785.dumps(document) == expected
    assert canonical_json_trusted(document) == expected
    # Hex of the bytes, to check by hand: F0 9F 98 80 (U+1F600) before EF AC 81 (U+FB01).
    assert canonical_json_trusted(document).hex() == "7b22f09f9880223a322c22efac81223a317d"


def test_replacement_character_beside_an_emoji_nested_in_a_list():
    document = {"authors": [{"\ufffd": "a", "\U0001f600": "b", "z": "c"}]}
    assert (
        canonical_json_trusted(document) == '{"authors":[{"z":"c","\U0001f600":"b","\ufffd":"a"}]}'.encode()
    )
    assert canonical_json_trusted(document) == canonical_json(document) == rfc8785_json(document)


def test_astral_characters_only_in_values_keep_the_plain_order():
    document = {"b": "\U0001f600", "a": ["\ufffd", "\U00010000"]}
    assert canonical_json_trusted(document) == '{"a":["\ufffd","\U00010000"],"b":"\U0001f600"}'.encode()


# Any code point but a lone surrogate (json.loads never gives one in a str it accepts from
# UTF-8), weighted towards the characters that decide the order: U+E000..U+FFFF, the
# surrogates' neighbours U+D7FF and U+E000, and astral ones.
_edges = st.sampled_from(
    ["\ud7ff", "\ue000", "\ufb01", "\ufb33", "\ufffd", "\uffff", "\U00010000", "\U0001f600", "\U0010ffff"]
)
_chars = st.characters(exclude_categories=("Cs",)) | _edges
_strings = st.text(_chars, max_size=6)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER) | _strings,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_strings, inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(_values)
@example({"\ufb01": 1, "\U0001f600": 2})
@example({"\uffff": [{"\U00010000": 0, "\ue000": MAX_SAFE_INTEGER}], "\U0010ffff": -MAX_SAFE_INTEGER})
def test_fast_path_equals_rfc8785(value):
    assert canonical_json_trusted(value) == rfc8785.dumps(value)
