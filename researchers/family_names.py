"""Variant spellings of one family name: the other name blocks a written name may be filed under."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from papers.authors import split_name
from papers.text import fold, tex_to_unicode

from .names import PARTICLES, family_key, parse_name

# A name that can be filed under another family key has a hyphen or at least three words
# ("M. Soler-Vidal", "Juan Garcia Lopez", "J. van der Berg"); "M. Vidal" has none. The same
# test in SQL (:data:`VARIANT_NAME_REGEX`) keeps the queue from parsing every name of the archive.
VARIANT_NAME_REGEX = r"-|\S\s+\S+\s+\S"
_PART_SPLIT = re.compile(r"[-\s]+")
# A shorter part of a compound family name is too often a syllable of a name written in
# family-first order ("Zhang Li-Chun") to be offered alone ("Li").
MIN_PART = 3


@dataclass(frozen=True, slots=True)
class FamilyVariant:
    """One other way a written name may be filed: folded given-name tokens, a family key
    (:func:`researchers.names.family_key`) and why (a short English phrase naming the parts
    as written: ``"“Vidal” is one part of the family name “Soler-Vidal”"``)."""

    given: tuple[str, ...]
    key: str
    why: str

    @property
    def block(self) -> str:
        """The name block this form falls in (``"m vidal"``), as :class:`Authorship` stores it."""
        return f"{self.given[0][0]} {self.key}"


def _is_spelled_out(word: str) -> bool:
    # An initial ("M.", "JP") or a hyphenated given name ("Jian-Sheng") stays a given name.
    bare = word.strip(".,")
    return len(bare) > 1 and "." not in word and "-" not in word and not (bare.isupper() and len(bare) <= 3)


def _family_readings(name: str) -> list[tuple[str, str]]:
    """``(family as written, forenames as written)``: the name as split, then with trailing
    spelled-out given words moved into the family name (``"Mireia Soler Vidal"`` also reads
    as family ``Soler Vidal``, forenames ``Mireia``). One given word always stays."""
    family, forenames, _suffix = split_name(tex_to_unicode(name or ""))
    readings = [(family, forenames)]
    words = forenames.split()
    for cut in range(len(words) - 1, 0, -1):
        if not _is_spelled_out(words[cut]):
            break
        readings.append((" ".join([*words[cut:], family]), " ".join(words[:cut])))
    return readings


def _forms(family: str, own_key: str, *, written: bool) -> list[tuple[str, str]]:
    """``(family key, why)`` forms of one reading of a name besides ``own_key``: the family
    name read as one (``Soler Vidal``), its particles run together (``de la Cruz``), and, for
    the family name as written (``written``), each part of a compound of at least three
    letters. Parts of a guessed reading are not offered: a middle name is more often just a
    middle name (``J. Marshall Ash`` is not ``J. Marshall``)."""
    out: list[tuple[str, str]] = []
    key = family_key(family)
    words = _PART_SPLIT.split(family.strip())
    parts = [p for p in words if p and fold(p) not in PARTICLES]
    if key != own_key:
        out.append((key, f"“{family}” read as one family name"))
    if written and len(parts) >= 2:
        out.extend(
            (family_key(p), f"“{p}” is one part of the family name “{family}”")
            for p in parts
            if len(family_key(p)) >= MIN_PART
        )
    if len(parts) < len(words):
        # "de la Cruz" written "Delacruz": the particles kept and the words run together.
        out.append((fold(family).replace(" ", ""), f"“{family}” written as one word"))
    return out


@lru_cache(maxsize=65536)
def family_variants(name: str) -> tuple[FamilyVariant, ...]:
    """The other name blocks a written name may be filed under, with why.

    One person may write one family name in several ways that fall in different name blocks
    (``"m vidal"`` and ``"m solervidal"``): a compound family name shortened to one of its
    parts (``M. Soler-Vidal`` ~ ``M. Vidal`` or ``M. Soler``), a compound family name
    written without its hyphen and so read as a given name plus a family name (``Juan
    Garcia Lopez`` ~ ``J. Garcia-Lopez``), particles run together (``de la Cruz`` ~
    ``Delacruz``). Particles dropped or kept (``van der Berg`` ~ ``Berg``) need no variant:
    :func:`researchers.names.family_key` drops them, so both fall in one block already.

    Only a compound written as one (``Soler-Vidal``, or a keyname ``Garcia Lopez``) is cut
    into parts (of three letters or more): ``Mireia Soler Vidal`` gives ``"m solervidal"``,
    not ``"m soler"``, since a spelled-out word before the family name is more often a
    middle name.

    Returns each block once (first reason kept), never a form without given names (it has
    no block initial). The caller drops the blocks the person is already filed under (a
    slot's block comes from its keyname, so it may be any of these). Empty for a name
    without a hyphen and with fewer than three words. No database access; cached.
    """
    own = parse_name(name)
    if not own.key:
        return ()
    seen: set[str] = set()
    out = []
    for index, (family, forenames) in enumerate(_family_readings(name)):
        given = parse_name(name, family, forenames).given or own.given
        if not given:
            continue
        for key, why in _forms(family, own.key, written=index == 0):
            variant = FamilyVariant(given, key, why)
            if key and variant.block not in seen:
                seen.add(variant.block)
                out.append(variant)
    return tuple(out)
