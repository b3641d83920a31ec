"""Person-name normalisation and comparison for matching authors across sources."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from papers.authors import NAME_PARTICLES, split_name
from papers.text import fold, tex_to_unicode

# Lower-case particles that belong to a family name but are written, dropped or capitalised
# inconsistently ("van der Berg", "Van der Berg", "Berg"): they are left out of the name key.
PARTICLES = (NAME_PARTICLES - {"st."}) | {"dei", "des"}
# Honorifics some sources keep in the given name ("Dr A'bdul Sattar").
_TITLES = frozenset(["dr", "prof", "mr", "mrs", "ms", "sir"])
_SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv"])
# German transliteration (ü written "ue") must meet the plain fold (ü to "u"): "Mueller",
# "Müller" and "Muller" share one key; "Joerg", "Jörg" and "Jorg" are compatible given names.
# One folding for both parts (BUGS.md DIS-03): family keys are stored collapsed, given names
# are compared both as written and collapsed (:func:`umlaut_key`).
_GLUED_INITIALS = re.compile(r"^((?:[A-Z]\.\s*-?)+)\s*([^.]{2,})$")
_UMLAUT_DIGRAPH = re.compile(r"(?<=[a-z])(ae|oe|ue)(?=[a-z])")


def _is_cjk(char: str) -> bool:
    return "CJK" in unicodedata.name(char, "") or "HANGUL" in unicodedata.name(char, "")


def umlaut_key(folded: str) -> str:
    """A folded name part with German digraphs collapsed (``joerg`` and ``jorg`` give
    ``jorg``): ``ae``/``oe``/``ue`` between letters become ``a``/``o``/``u``, as
    :func:`papers.text.fold` turns ``ä``/``ö``/``ü``."""
    return _UMLAUT_DIGRAPH.sub(lambda m: m.group(1)[0], folded)


def family_key(family: str) -> str:
    """Family-name key: folded, particles and spaces dropped, German digraphs collapsed.

    ``van der Berg`` gives ``berg``; ``García-López`` gives ``garcialopez``; ``Mueller``,
    ``Müller`` and ``M{\\"u}ller`` all give ``muller``.
    """
    words = [w for w in fold(family).split() if w not in _SUFFIXES]
    kept = [w for w in words if w not in PARTICLES] or words
    return umlaut_key("".join(kept))


@dataclass(frozen=True, slots=True)
class PersonName:
    """A person name split into folded parts.

    ``given`` is the tuple of folded given-name tokens (``("jean", "pierre")``; an initial is
    one letter); ``family`` the folded family name as written and ``key`` its
    :func:`family_key`. ``raw`` keeps the display form.
    """

    raw: str
    given: tuple[str, ...]
    family: str
    key: str
    block: str = ""  # "<first initial> <family key>" (S2AND's block shape), set by parse_name

    @property
    def first_initial(self) -> str:
        """First letter of the first given name, or ``""`` for a family name alone."""
        return self.given[0][0] if self.given else ""

    @property
    def has_full_given(self) -> bool:
        """True when the first given name is spelled out (more than an initial)."""
        return bool(self.given) and len(self.given[0]) > 1

    @property
    def given_form(self) -> str:
        """The given names as one folded string (``"jean pierre"``); ``""`` when absent."""
        return " ".join(self.given)


def _given_tokens(given: str) -> tuple[str, ...]:
    text = given or ""
    # "J.-P." and "JP" style initials: split dotted initials before folding.
    text = re.sub(r"([A-Z])\.\s*-?\s*(?=[A-Z])", r"\1 ", text)
    tokens = [t for t in fold(text).split() if t not in _TITLES]
    # An all-capitals run of two or three letters written without dots ("JP Smith") is initials.
    raw_words = re.findall(r"[^\s.\-]+", given or "")
    if len(raw_words) == 1 and raw_words[0].isupper() and 2 <= len(raw_words[0]) <= 3:
        tokens = list(fold(raw_words[0]))
    return tuple(tokens)


# Sized for the matcher's chunks, which parse the names of every co-author of their papers:
# a 100,000-paper first load spells 102,471 distinct names.
@lru_cache(maxsize=1 << 18)
def parse_name(name: str, family: str = "", given: str = "") -> PersonName:
    """Parse a person name, optionally with its parts already split.

    ``name`` may be ``"First Last"``, ``"Last, First"`` or a name in CJK script (family name
    first: ``"王伟"`` gives family ``wang``, given ``wei``). When ``family`` is given
    (arXiv's keyname, S2AND's ``last``), ``given`` holds the forenames and ``name`` is only
    the display form. Never raises; an empty name gives empty parts.
    """
    raw = tex_to_unicode(name or "")
    if family:
        fam, giv = tex_to_unicode(family), tex_to_unicode(given or "")
        glued = _GLUED_INITIALS.match(fam) if not giv else None
        if glued:  # "J.P.Hague" written as one keyname
            giv, fam = glued.group(1), glued.group(2)
    else:
        compact = raw.replace(" ", "")
        if compact and all(_is_cjk(c) for c in compact):
            # CJK script writes the family name first; most family names are one character.
            fam, giv = compact[0], compact[1:]
        else:
            fam, giv, _suffix = split_name(raw)
    giv_tokens = _given_tokens(giv)
    fam_folded = fold(fam)
    key = family_key(fam)
    block = f"{giv_tokens[0][0]} {key}" if giv_tokens else key
    return PersonName(raw=raw, given=giv_tokens, family=fam_folded, key=key, block=block)


def _token_compatible(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) == 1 or len(b) == 1:
        return a[0] == b[0]
    if umlaut_key(a) == umlaut_key(b):  # "joerg" (Jörg written out) and "jorg" (Jörg folded)
        return True
    # Short forms written as a prefix ("Alex"/"Alexander"); at least three letters shared.
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 3 and long_.startswith(short)


# Clustering asks about the same pairs of given names again and again (every pair of a name
# block, every shared co-author): 5.3 million calls for a 100,000-paper first load.
@lru_cache(maxsize=1 << 18)
def given_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two folded given-name tuples can belong to one person.

    Initials match names with that letter (``j`` ~ ``john``), a missing middle name is no
    conflict, spelled-out names must agree (``john`` vs ``james`` conflict), and a
    fused or split given name (``xinyi`` vs ``xin yi``, ``jeanpierre`` vs ``jean pierre``)
    agrees with itself. German digraphs meet their folded umlaut (``joerg`` ~ ``jorg``).
    """
    if not a or not b:
        return True
    if umlaut_key("".join(a)) == umlaut_key("".join(b)):
        return True
    if not _token_compatible(a[0], b[0]):
        # "Xin Yi" vs "Xinyi" was caught above; "J. P." vs "Jean-Pierre" share first letters.
        return False
    for x, y in zip(a[1:], b[1:], strict=False):
        if x[0] != y[0]:
            return False
        if len(x) > 1 and len(y) > 1 and not _token_compatible(x, y):
            return False
    return True


def names_compatible(a: PersonName, b: PersonName) -> bool:
    """Same family key (or one family name a fused/reordered form of the other, or a
    two-word family name split differently: ``Mireia Soler Vidal`` ~ ``Mireia C. Soler-Vidal``)
    and compatible given names; also tries the swapped order so ``"Wei Wang"`` meets
    ``"Wang Wei"`` (CJK order in a Western-order list)."""
    if a.key == b.key:
        return given_compatible(a.given, b.given)
    # A two-word family name read as a given name and a family name ("Mireia Soler Vidal"
    # against keyname "Soler Vidal" or "Soler-Vidal"): the last given name joins the family.
    for x, y in ((a, b), (b, a)):
        if (
            len(x.given) >= 2
            and len(x.given[-1]) > 1
            and family_key(x.given[-1]) + x.key == y.key
            and given_compatible(x.given[:-1], y.given)
        ):
            return True
    # Reversed order: family and a single given name swapped.
    return (
        len(a.given) == 1
        and len(b.given) == 1
        and family_key(a.given[0]) == b.key
        and family_key(b.given[0]) == a.key
    )


def name_similarity(a: PersonName, b: PersonName) -> float:
    """A 0..1 score for aligning two names of the same author list.

    1.0 for the same family key with equal given names, 0.9 with compatible given names
    (initials), 0.8 for swapped order, else a fuzzy ratio of the folded full names scaled
    to at most 0.7 (typos, transliteration differences).
    """
    if a.key and a.key == b.key:
        if a.given == b.given:
            return 1.0
        if given_compatible(a.given, b.given):
            return 0.9
        return 0.4
    if names_compatible(a, b):
        return 0.8
    left = f"{a.given_form} {a.family}".strip()
    right = f"{b.given_form} {b.family}".strip()
    return 0.7 * fuzz.token_sort_ratio(left, right) / 100.0


def display_quality(name: str) -> tuple[int, int]:
    """Sort key preferring spelled-out given names, then longer names, for display."""
    parsed = parse_name(name)
    full = sum(1 for t in parsed.given if len(t) > 1)
    return (full, len(name))


def best_name(names: Iterable[str]) -> str:
    """The display name the matcher gives a researcher from its slots' spellings: the most
    spelled-out one (:func:`display_quality`), then the most frequent; ``"Unknown"`` for none."""
    counts = Counter(n for n in names if n)
    if not counts:
        return "Unknown"
    if len(counts) == 1:  # the common case; skips re-parsing the name
        return next(iter(counts))
    return max(counts, key=lambda n: (display_quality(n), counts[n], n))


# --------------------------------------------------------------------------- source names checked

# What registries write where a person's name was removed or never known (folded): a
# tombstone profile names no one, so it is neither identity evidence nor a display name.
# ORCID shows a deactivated record as "Given Names Deactivated" / "Family Name Deactivated".
_TOMBSTONE_NAMES = frozenset(
    [
        "deleted",
        "deleted author",
        "deleted user",
        "deleted profile",
        "removed",
        "unknown",
        "unknown author",
        "anonymous",
        "anonymous author",
        "author",
        "name withheld",
        "not available",
        "n a",
        "none",
        "null",
        "given names deactivated family name deactivated",
    ]
)
# Words that join two people's names ("Downward and Mearman"): never inside one person's name.
_JOINING_WORDS = frozenset(["and", "und", "&", "with"])
# More words than any person's written name plausibly has (given names, particles, family).
_MAX_NAME_WORDS = 7


def is_tombstone_name(name: str) -> bool:
    """True when ``name`` is a registry's placeholder for a deleted or unknown person
    (``"Deleted Author"``, ``"[deleted]"``, ``"Anonymous"``, ORCID's deactivated-record
    names), compared after :func:`papers.text.fold`; also for an empty name."""
    return fold(name or "") in _TOMBSTONE_NAMES | {""}


def is_junk_name(name: str) -> bool:
    """True when ``name`` cannot be one person's written name: a tombstone
    (:func:`is_tombstone_name`), a digit or ``@`` in it, a word that joins names (``and``,
    ``&``, ``et al``: ``"Downward and Mearman Tony Lawson"`` is two bylines run together) or
    more than seven words. Such a name is never shown as a researcher's name."""
    if is_tombstone_name(name):
        return True
    if any(char.isdigit() for char in name) or "@" in name:
        return True
    text = tex_to_unicode(name).lower()
    words = text.replace(",", " ").split()
    return len(words) > _MAX_NAME_WORDS or "et al" in text or any(w in _JOINING_WORDS for w in words)


def _readings(name: PersonName) -> list[tuple[tuple[str, ...], str]]:
    """``(given tokens, family key)`` readings of a name: as parsed, then with trailing
    spelled-out given words moved into the family name (``"Mireia Soler Vidal"`` also reads
    as given ``mireia``, family ``solervidal``: a compound family name written without its
    hyphen)."""
    out = [(name.given, name.key)]
    for cut in range(len(name.given) - 1, 0, -1):
        moved = name.given[cut:]
        if any(len(word) == 1 for word in moved):
            break  # an initial is a given name, never part of a family name
        out.append((name.given[:cut], family_key(" ".join([*moved, name.family]))))
    return out


def person_names_compatible(a: PersonName, b: PersonName) -> bool:
    """Whether two written names can be one person: the check a registry's name must pass
    before its ids or spelling are taken for an arXiv author slot (S2AND-like rules).

    - Family names must be equal after folding and transliteration (:func:`family_key`:
      accents, TeX, ü/ue, particles, hyphen and space variants: ``García-López`` ~
      ``Garcia Lopez``; a compound family name may be written with its first part among the
      given names: ``Mireia Soler Vidal`` ~ ``Mireia C. Soler-Vidal``).
    - Given names must be compatible (:func:`given_compatible`): equal after folding, one an
      initial of the other (``J.`` ~ ``John``), fused or split (``Xinyi`` ~ ``Xin Yi``,
      ``Jean-Pierre`` ~ ``J.-P.``); a missing given name conflicts with nothing, two
      different initials or spelled-out names conflict (``J.`` vs ``M.``, ``John`` vs
      ``James``).
    - Family-first order (CJK) is allowed only when both parts match swapped: ``Zhao
      Yuqing`` ~ ``Yu-Qing Zhao``, never ``Zhao Yuqing`` ~ ``Y. Zhao``.

    A name without a family name (empty, or punctuation only) is compatible with nothing:
    it cannot be checked. Symmetric; no database access.
    """
    if not a.key or not b.key:
        return False
    for given_a, key_a in _readings(a):
        for given_b, key_b in _readings(b):
            if key_a == key_b and given_compatible(given_a, given_b):
                return True
    return bool(
        a.given
        and b.given
        and family_key("".join(a.given)) == b.key
        and family_key("".join(b.given)) == a.key
    )
