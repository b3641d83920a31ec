"""Author lists: parse arXiv's free-text author strings and split names into parts.

arXivRaw and the Kaggle dump give one string per paper (``"A. Smith (MIT), B. Jones and
C. Doe ((1) Inst A, (2) Inst B)"``, TeX accents included); the OAI arXiv format gives
keyname/forenames/suffix/affiliation per author. Both end up as :class:`AuthorSlot`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .text import collapse_whitespace, tex_to_unicode

_COLLABORATION = re.compile(
    r"\b(collaboration|collaborations|consortium|collab\.|working group|team|"
    r"observatory|experiment|project|group|survey)\b",
    re.IGNORECASE,
)
# A word strongly marking a collaboration even in a name of two words ("ATLAS Collaboration").
_STRONG_COLLABORATION = re.compile(r"\b(collaboration|consortium|collab\.)\b", re.IGNORECASE)
_ET_AL = re.compile(r"^(et\.? al\.?|and others|others)$", re.IGNORECASE)
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v", "2nd", "3rd"}
# A suffix written as its own comma-separated item ("Fernando Alexanderson, Jr.") or as an
# author of its own (a keyname "Jr." without forenames): it belongs to the person before it.
# "V" is left out: alone after a comma it is as likely an initial as a suffix.
_DETACHED_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
# Lower-case particles that belong to a family name ("van der Berg", "de la Cruz").
NAME_PARTICLES = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "du",
        "dos",
        "das",
        "do",
        "le",
        "la",
        "ter",
        "ten",
        "zu",
        "af",
        "av",
        "y",
        "el",
        "al",
        "bin",
        "ibn",
        "st.",
        "st",
    }
)
_SPLIT_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
_FOOTNOTE = re.compile(r"^\(?\s*([0-9]+|[a-z]|[*†‡§]+)\s*\)\s*")


@dataclass(slots=True)
class AuthorSlot:
    """One author slot as harvested.

    ``name`` is the display name in Unicode (TeX decoded); ``keyname`` the family name with
    its particles (``van der Berg``); ``affiliations`` raw strings in source order.
    """

    name: str
    keyname: str = ""
    forenames: str = ""
    suffix: str = ""
    affiliations: list[str] = field(default_factory=list)
    is_collaboration: bool = False


def is_collaboration_name(name: str) -> bool:
    """True when ``name`` names a collaboration ("the ATLAS Collaboration", "LIGO Team")
    rather than a person. A long name with a generic word ("Group") must also lack the
    shape of a personal name (initials) to count."""
    if _STRONG_COLLABORATION.search(name):
        return True
    if _COLLABORATION.search(name):
        words = name.split()
        has_initial = any(re.fullmatch(r"[A-Z]\.(-?[A-Z]\.)*", w) for w in words)
        return not has_initial
    return False


def split_name(name: str) -> tuple[str, str, str]:
    """Split a personal name into ``(keyname, forenames, suffix)``.

    Handles ``"Last, First"``, suffixes (``Jr.``, ``III``, also ``"First Last, Jr."``) and
    lower-case particles (``Ludwig van Beethoven`` gives ``("van Beethoven", "Ludwig", "")``).
    A single word is a keyname alone.
    """
    name = collapse_whitespace(name)
    if not name:
        return "", "", ""
    if "," in name:
        parts = [p.strip() for p in name.split(",") if p.strip()]
        if len(parts) == 2 and parts[1].lower() in _DETACHED_SUFFIXES:
            # "Marcus T. Hale, Jr.": a suffix after the comma, not "Last, First" (AUTH-01).
            keyname, forenames, _none = split_name(parts[0])
            return keyname, forenames, parts[1]
        if len(parts) >= 2:
            suffix = ""
            if len(parts) >= 3 and parts[2].lower() in _SUFFIXES:
                suffix = parts[2]
            elif parts[1].lower() in _SUFFIXES and len(parts) >= 3:
                return parts[0], parts[2], parts[1]
            return parts[0], parts[1], suffix
    words = name.split(" ")
    suffix = ""
    if len(words) > 1 and words[-1].lower().rstrip(",") in _SUFFIXES:
        suffix = words.pop().rstrip(",")
    if len(words) == 1:
        return words[0], "", suffix
    start = len(words) - 1
    # Walk back over lower-case particles ("van der", "de la") that belong to the keyname.
    while start > 1 and words[start - 1].lower() in NAME_PARTICLES and words[start - 1][0].islower():
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start]), suffix


def join_suffixes(slots: list[AuthorSlot]) -> list[AuthorSlot]:
    """Fold a slot that is only a name suffix into the person slot before it (BUGS.md AUTH-01).

    ``[Fernando Alexanderson, Jr.]`` as two slots gives one, ``Fernando Alexanderson Jr.``
    with suffix ``Jr.`` (the display form the OAI arXiv format gives), its affiliations
    appended. A suffix slot with nothing to join (first, or after a collaboration or a
    person who has a suffix already) is kept as it is. ``Jr-Hung`` is a given name, not a
    suffix. Returns a new list; the slots are changed in place.
    """
    out: list[AuthorSlot] = []
    for slot in slots:
        suffix = slot.name.strip(" ,;")
        is_suffix = not slot.forenames and suffix.lower() in _DETACHED_SUFFIXES
        previous = out[-1] if out else None
        if is_suffix and previous is not None and not previous.is_collaboration and not previous.suffix:
            previous.suffix = suffix
            previous.name = f"{previous.name} {suffix}"
            previous.affiliations.extend(slot.affiliations)
            continue
        out.append(slot)
    return out


def _split_top_level(text: str) -> list[str]:
    """Split on commas and ``and``/``&`` that sit outside parentheses and braces."""
    pieces: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth = max(0, depth - 1)
        if (char == "," or char == ";") and depth == 0:
            pieces.append("".join(current))
            current = []
            continue
        current.append(char)
    pieces.append("".join(current))
    result: list[str] = []
    for piece in pieces:
        # " and " outside parentheses separates the last two names.
        result.extend(_split_and_outside_parens(piece))
    return [p.strip() for p in result if p.strip()]


def _split_and_outside_parens(piece: str) -> list[str]:
    out: list[str] = []
    depth = 0
    last = 0
    i = 0
    lowered = piece.lower()
    while i < len(piece):
        char = piece[i]
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth = max(0, depth - 1)
        elif depth == 0:
            for sep in (" and ", " & "):
                if lowered.startswith(sep, i):
                    out.append(piece[last:i])
                    last = i + len(sep)
                    i = last - 1
                    break
        i += 1
    out.append(piece[last:])
    return out


def _pull_parentheses(token: str) -> tuple[str, list[str]]:
    """Separate ``"Name (Aff 1) (Aff 2)"`` into the name and its top-level groups."""
    groups: list[str] = []
    name_chars: list[str] = []
    depth = 0
    current: list[str] = []
    for char in token:
        if char == "(":
            if depth > 0:
                current.append(char)
            depth += 1
            continue
        if char == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append("".join(current).strip())
                current = []
            else:
                current.append(char)
            continue
        (current if depth > 0 else name_chars).append(char)
    if current:  # unbalanced "(": keep the text as affiliation rather than lose it
        groups.append("".join(current).strip())
    return collapse_whitespace("".join(name_chars)), [g for g in groups if g]


def _parse_legend(group: str) -> dict[str, str] | None:
    """Parse an affiliation legend; ``None`` when ``group`` is not one.

    Two shapes occur in arXiv author strings: ``"(1) Inst A, (2) Inst B"`` and, without
    the inner parentheses, ``"1 Inst A; 2 Inst B, 3 Inst C"``. The second is only taken as
    a legend when its keys run 1, 2, 3, ... (at least two), since an address such as
    ``"1 Cyclotron Road"`` also starts with a number.
    """
    if group.startswith("("):
        entries = re.split(r"(?:^|[,;]?\s*)\(\s*([0-9]+|[a-z])\s*\)\s*", group)
    elif re.match(r"1\s+\S", group):
        entries = re.split(r"(?:^|[,;]\s*)([0-9]+)\s+(?=\S)", group)
        keys = entries[1::2]
        if len(keys) < 2 or keys != [str(n) for n in range(1, len(keys) + 1)]:
            return None
    else:
        return None
    # re.split yields ["", "1", "Inst A", "2", "Inst B"]
    if len(entries) < 3 or entries[0].strip():
        return None
    legend = {}
    for key, value in zip(entries[1::2], entries[2::2], strict=False):
        value = value.strip().rstrip(",;").strip()
        if value:
            legend[key] = value
    return legend or None


def parse_author_string(raw: str) -> list[AuthorSlot]:
    """Parse an arXiv author string into ordered author slots.

    ``raw`` is the ``<authors>`` text of arXivRaw or the Kaggle ``authors`` field (TeX kept).
    Returns the slots in order; affiliations in parentheses are attached to their author,
    numbered affiliations (``A (1), B (2) ((1) X, (2) Y)``) resolved through the legend,
    ``et al`` dropped, a ``", Jr."`` item kept with the person before it
    (:func:`join_suffixes`), and a ``"CDF Collaboration: T. Aaltonen"`` prefix kept as its own
    collaboration slot; ``and`` separates names only as a whole word between spaces.
    Never raises on odd input; an empty string gives ``[]``.
    """
    text = collapse_whitespace(raw.replace("\\&", "&") if raw else "")
    if not text:
        return []
    # "CDF Collaboration: T. Aaltonen, et al" names the collaboration, then persons.
    prefix_slots: list[AuthorSlot] = []
    head, sep, tail = text.partition(":")
    if sep and is_collaboration_name(head) and "(" not in head:
        prefix_slots.append(_collaboration_slot(head))
        text = tail.strip()

    tokens = _split_top_level(text)
    legend: dict[str, str] = {}
    parsed: list[tuple[str, list[str]]] = []
    for token in tokens:
        name, groups = _pull_parentheses(token)
        plain_groups = []
        for group in groups:
            found = _parse_legend(group)
            if found:
                legend.update(found)
            else:
                plain_groups.append(group)
        parsed.append((name, plain_groups))

    slots = list(prefix_slots)
    for name, groups in parsed:
        if not name:
            # An affiliation group alone after a comma belongs to the previous author.
            if slots and groups:
                slots[-1].affiliations.extend(_resolve(groups, legend))
            continue
        if _ET_AL.match(name.strip(" .")) or name.lower().strip(" .") in {"et al", "al"}:
            continue
        name = tex_to_unicode(name).strip(" ,;")
        if not name:
            continue
        affiliations = [tex_to_unicode(a) for a in _resolve(groups, legend)]
        if is_collaboration_name(name):
            slot = _collaboration_slot(name)
            slot.affiliations = affiliations
        else:
            keyname, forenames, suffix = split_name(name)
            slot = AuthorSlot(name, keyname, forenames, suffix, affiliations)
        slots.append(slot)
    return join_suffixes(slots)


def _resolve(groups: list[str], legend: dict[str, str]) -> list[str]:
    out: list[str] = []
    for group in groups:
        # Marks come as "1", "1,2", "1;2", "1 and 2" or "1 & 2".
        keys = [k for k in re.split(r"[,;&\s]+|\band\b", group) if k.strip()]
        if keys and all(k in legend for k in keys):
            out.extend(legend[k] for k in keys)
        elif keys and all(re.fullmatch(r"[0-9]+|[a-z]", k) for k in keys):
            continue  # a footnote mark whose legend is missing: nothing to attach
        else:
            out.append(collapse_whitespace(group))
    return out


def _collaboration_slot(name: str) -> AuthorSlot:
    name = collapse_whitespace(tex_to_unicode(name))
    return AuthorSlot(name=name, keyname=name, is_collaboration=True)


def slot_from_parts(
    keyname: str, forenames: str = "", suffix: str = "", affiliations: list[str] | None = None
) -> AuthorSlot:
    """Build a slot from the OAI arXiv format's (or Kaggle's ``authors_parsed``) parts.

    The display name is ``forenames keyname suffix``; the OAI arXiv format writes a
    collaboration as ``<keyname>Collaboration</keyname><forenames>for the ATLAS</forenames>``,
    which gives the slot ``"for the ATLAS Collaboration"`` marked as a collaboration.
    """
    keyname = tex_to_unicode(keyname)
    forenames = tex_to_unicode(forenames)
    suffix = tex_to_unicode(suffix)
    name = collapse_whitespace(" ".join(p for p in (forenames, keyname, suffix) if p))
    affiliations = [tex_to_unicode(a) for a in (affiliations or []) if a and a.strip()]
    if is_collaboration_name(name) and (not forenames or _STRONG_COLLABORATION.search(name)):
        return AuthorSlot(name, name, "", "", affiliations, True)
    return AuthorSlot(name, keyname, forenames, suffix, affiliations, False)
