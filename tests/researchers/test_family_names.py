"""Variant spellings of one family name: the other name blocks a written name may be filed under."""

import re

import pytest

from researchers.family_names import VARIANT_NAME_REGEX, family_variants


def blocks(name: str) -> dict[str, str]:
    return {v.block: v.why for v in family_variants(name)}


def test_compound_family_name_gives_each_part():
    assert blocks("M. Soler-Vidal") == {
        "m soler": "“Soler” is one part of the family name “Soler-Vidal”",
        "m vidal": "“Vidal” is one part of the family name “Soler-Vidal”",
    }
    assert [v.given for v in family_variants("M. C. Soler-Vidal")] == [("m", "c"), ("m", "c")]


def test_compound_written_without_hyphen_is_read_as_one_family_name():
    """Only the joined reading: a spelled-out word before the family name is more often a
    middle name, so its parts are not offered ("J. Marshall Ash" is not "J. Marshall")."""
    assert blocks("Juan Garcia Lopez") == {"j garcialopez": "“Garcia Lopez” read as one family name"}
    assert blocks("Mireia Soler Vidal") == {"m solervidal": "“Soler Vidal” read as one family name"}
    assert blocks("J. Marshall Ash") == {"j marshallash": "“Marshall Ash” read as one family name"}


def test_particles_written_as_one_word():
    assert blocks("J. de la Cruz") == {"j delacruz": "“de la Cruz” written as one word"}
    assert blocks("J. van der Berg") == {"j vanderberg": "“van der Berg” written as one word"}


@pytest.mark.parametrize(
    "name",
    [
        "M. Vidal",  # one family word: nothing else to file it under
        "Jian-Sheng Wang",  # a hyphenated given name stays a given name
        "Lucas A. Cieza",  # an initial before the family name is never part of it
        "Vidal",  # no given name, no block initial
    ],
)
def test_names_without_variants(name):
    assert family_variants(name) == ()


def test_short_parts_are_not_offered():
    """ "Zhang Li-Chun" (family-first order, a hyphenated given name) must not be filed under "z li"."""
    assert "z li" not in blocks("Zhang Li-Chun")


@pytest.mark.parametrize(
    ("name", "may_vary"),
    [
        ("M. Soler-Vidal", True),
        ("Juan Garcia Lopez", True),
        ("J. de la Cruz", True),
        ("M. Vidal", False),
        ("Vidal, M.", False),
    ],
)
def test_sql_prefilter_keeps_every_name_that_may_vary(name, may_vary):
    """The queue's SQL prefilter (PostgreSQL's ``~``, the same regex syntax here) keeps every
    name with variants and drops two-word names."""
    assert bool(re.search(VARIANT_NAME_REGEX, name)) == may_vary
    assert bool(family_variants(name)) <= may_vary
