"""Properties of canonical JSON: byte-identical to the ``rfc8785`` reference for every JSON
value signed content may hold, and a lossless round trip through ``json.loads``."""

from __future__ import annotations

import json

import pytest
import rfc8785
from hypothesis import example, given, settings
from hypothesis import strategies as st

from provenance.canonical import MAX_SAFE_INTEGER, CanonicalJsonError, canonical_json, is_plain

PROPERTY = settings(max_examples=300, deadline=None)

# Strings as Python holds them after json.loads: any code point but a lone surrogate.
strings = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
scalars = st.none() | st.booleans() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER) | strings
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(strings, inner, max_size=5),
    max_leaves=25,
)


@PROPERTY
@given(json_values)
@example({"é": 1, "z": 2, "\U0001f600": 3, "\uffff": 4})  # UTF-16 order differs from code points
@example({"a": "\u2028\x7f\x1f\u00e9"})
@example([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0, True, None])
def test_canonical_bytes_equal_the_reference(value):
    assert canonical_json(value) == rfc8785.dumps(value)


@PROPERTY
@given(json_values)
def test_round_trip(value):
    assert json.loads(canonical_json(value)) == value


@PROPERTY
@given(json_values)
def test_fast_path_only_when_it_agrees(value):
    if is_plain(value):
        assert json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode() == rfc8785.dumps(value)


@PROPERTY
@given(
    st.floats(allow_nan=True)
    | st.integers().filter(lambda i: abs(i) > MAX_SAFE_INTEGER)
    | st.sets(st.integers(), max_size=2)
)
def test_values_outside_the_domain_raise_a_named_error(value):
    with pytest.raises((CanonicalJsonError, rfc8785.IntegerDomainError)):
        canonical_json({"k": [value]})
