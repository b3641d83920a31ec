"""Author lists: parse arXiv's free-text author strings and split names into parts.

arXivRaw and the Kaggle dump give one string per paper (``"A. Smith (MIT), B. Jones and
C. Doe ((1) Inst A, (2) Inst B)"``, TeX accents included); the OAI arXiv format gives
keyname/forenames/suffix/affiliation per author. Both end up as :class:`AuthorSlot`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from wove.pickling import pickled_as_tuple

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


@pickled_as_tuple
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
    # The collaborations this slot names (a collaboration slot) or writes "for" (a person
    # slot: "T. Onogi for the JLQCD Collaboration"), as written, one name each.
    groups: list[str] = field(default_factory=list)


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
        # " and " outside parentheses separates the last two names, but not the names of
        # one plural group word ("for the RBC and UKQCD Collaborations", issue 19).
        if _PLURAL_GROUP.match(piece.strip().rstrip(".")):
            result.append(piece)
            continue
        result.extend(_split_and_outside_parens(piece))
    return [p.strip() for p in result if p.strip()]


# " and " in any case, or " & ", matched on the string itself: indices into ``piece.lower()``
# drifted after a letter whose lower case is longer ("İ" is two code points lowered), and the
# next name lost its first letter ("Ali İnce and Bob Smith" gave "ob Smith").
_AND_SEPARATOR = re.compile(r" and | & ", re.IGNORECASE)


def _split_and_outside_parens(piece: str) -> list[str]:
    out: list[str] = []
    depth = 0
    last = 0
    i = 0
    while i < len(piece):
        char = piece[i]
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth = max(0, depth - 1)
        elif depth == 0 and char == " " and (separator := _AND_SEPARATOR.match(piece, i)):
            out.append(piece[last:i])
            last = separator.end()
            i = last - 1
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
    if sep and "(" not in head and (is_collaboration_name(head) or is_group_text(head)):
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
        name = _TRAILING_ET_AL.sub("", name)
        if _ET_AL.match(name.strip(" .")) or name.lower().strip(" .") in {"et al", "al"}:
            continue
        name = tex_to_unicode(name).strip(" ,;")
        if not name:
            continue
        affiliations = [tex_to_unicode(a) for a in _resolve(groups, legend)]
        slots.append(classify_slot(name, None, affiliations))
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
    return AuthorSlot(name=name, keyname=name, is_collaboration=True, groups=group_names(name))


def slot_from_parts(
    keyname: str, forenames: str = "", suffix: str = "", affiliations: list[str] | None = None
) -> AuthorSlot:
    """Build a slot from the OAI arXiv format's (or Kaggle's ``authors_parsed``) parts.

    The display name is ``forenames keyname suffix`` less a trailing ``et al.`` or ``and
    others`` (the parts then read again from it: keyname ``al.`` with forenames ``H. O. Back
    et`` gives ``H. O. Back``, keyname ``Back``); the OAI arXiv format writes a
    collaboration as ``<keyname>Collaboration</keyname><forenames>for the ATLAS</forenames>``,
    which gives the slot ``"for the ATLAS Collaboration"`` marked as a collaboration;
    :func:`classify_slot` decides person, member or collaboration.
    """
    keyname = tex_to_unicode(keyname)
    forenames = tex_to_unicode(forenames)
    suffix = tex_to_unicode(suffix)
    name = collapse_whitespace(" ".join(p for p in (forenames, keyname, suffix) if p))
    bare = _TRAILING_ET_AL.sub("", name)
    if bare != name:
        # "et al." written into the last author's parts names no one: 0705.0239 writes
        # keyname "al.", forenames "H. O. Back et". The parts are read again without it,
        # the keyname kept as given when it held the whole marker ("Back et al.").
        without = _TRAILING_ET_AL.sub("", collapse_whitespace(keyname))
        if without != collapse_whitespace(keyname) and without and not suffix:
            keyname = without
        else:
            keyname, forenames, suffix = split_name(bare)
        name = bare
    affiliations = [tex_to_unicode(a) for a in (affiliations or []) if a and a.strip()]
    return classify_slot(name, (keyname, forenames, suffix), affiliations)


# --- Collaborations (issue 19): a slot names a group, a person writing "for" one, or junk. ---

# Words naming a group of people, singular and plural (issue 19's list).
_GROUP_WORDS = (
    r"collaborations?|consortium|consortia|collab\.|teams?|groups?|arrays?|projects?|"
    r"experiments?|observatory|observatories|surveys?"
)
_GROUP = re.compile(rf"(?<!\w)(?:{_GROUP_WORDS})(?!\w)", re.IGNORECASE)
_STRONG_GROUP = re.compile(r"(?<!\w)(?:collaborations?|consortium|consortia|collab\.)(?!\w)", re.IGNORECASE)
# "X and Y Collaborations": the names before one plural group word.
_PLURAL_GROUP = re.compile(
    r"^(?P<names>.+?)\s+(?P<word>collaborations|consortia|teams|groups|experiments|arrays|projects|surveys)$",
    re.IGNORECASE,
)
_SINGULAR = {"consortia": "consortium", "observatories": "observatory"}
# "<person> for the X", "<person> on behalf of the X"; the person part may be empty.
_FOR = re.compile(
    r"^(?P<person>.*?)[\s,;]*(?<!\w)(?:for|on behalf of)\s+(?P<the>the\s+)?(?P<groups>\S.*)$", re.IGNORECASE
)
# A name with no forenames made of capitals and digits: CDF, CMS, D0, BICEP2, NA61/SHINE.
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]*[A-Z0-9](?:[-/][A-Z0-9]+)*")
_INITIALS = re.compile(r"(?:[A-Z]\.?(?:-[A-Z]\.?)?\s*)+")
# "et al." / "et al" / "and others" ending a name (the last author's, in either source form).
_TRAILING_ET_AL = re.compile(r"[\s,]+(?:et\.?\s+al\.?|and\s+others)$", re.IGNORECASE)
_LEADING_THE = re.compile(r"^(?:the|for the|for)\s+", re.IGNORECASE)
# What comes before a group's name and is not part of it: "for the", a lower-case "the",
# "the team of the" (a capital "The" is kept: "The KESTREL Collaboration", BUGS.md AUTH-03).
_GROUP_LEAD = re.compile(
    r"^(?:(?:for|on behalf of)\s+)?(?:(?:the\s+)?(?:team|members)\s+of\s+)?(?:the\s+)?(?=\S)"
)


def is_group_text(text: str) -> bool:
    """True when ``text`` names a group: it holds one of issue 19's group words
    (collaboration, consortium, team, group, array, project, experiment, observatory,
    survey, or a plural), or is a bare acronym (``CDF``, ``D0``, ``BICEP2``)."""
    text = text.strip()
    return bool(_GROUP.search(text) or _ACRONYM.fullmatch(text))


def is_junk_name(text: str) -> bool:
    """True when ``text`` has no letter or digit at all (arXiv's ``<keyname>:</keyname>``)."""
    return not any(char.isalnum() for char in text)


def group_names(text: str) -> list[str]:
    """The collaborations one written piece names, as written, one name each.

    ``"the D0 and CDF Collaborations"`` gives ``["D0 Collaboration", "CDF Collaboration"]``
    (one group word in the plural after several names means several groups);
    ``"for the ATLAS Collaboration"`` gives ``["ATLAS Collaboration"]``, ``"the team of the
    LOFAR Magnetism Key Science Project"`` its project; a capital ``The`` is kept; a single name with
    a plural word (``"BICEP2 Collaborations"``) stays as written. Junk gives ``[]``.
    """
    text = collapse_whitespace(text).strip(" ,;:.")
    text = _GROUP_LEAD.sub("", text, count=1).strip()
    if is_junk_name(text):
        return []
    match = _PLURAL_GROUP.match(text)
    if match:
        names = [n.strip() for n in re.split(r"\s*(?:,|\band\b|&)\s*", match["names"]) if n.strip()]
        if len(names) > 1:
            word = match["word"]
            singular = _SINGULAR.get(word.lower(), word[:-1])
            singular = singular.capitalize() if word[0].isupper() else singular
            # A name holding its own group word ("Keck Array") is whole already.
            return [n if _GROUP.search(n) else f"{n} {singular}" for n in names]
    return [text]


def collaboration_key(name: str) -> str:
    """The key that makes one collaboration of its spellings across papers.

    Case and accents folded, a leading ``the`` and the word ``collaboration(s)`` dropped,
    punctuation to spaces: ``"The BABAR Collaboration"``, ``"BaBar collaboration"`` and
    ``"BABAR"`` all give ``"babar"``; ``"Keck Array"`` gives ``"keck array"`` (a group
    word other than collaboration is part of the name). Never empty for a non-empty name.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    folded = _LEADING_THE.sub("", folded.strip())
    words = re.sub(r"[^a-z0-9]+", " ", re.sub(r"\bcollab(?:oration)?s?\b\.?", " ", folded)).split()
    return " ".join(words) or " ".join(re.sub(r"[^a-z0-9]+", " ", folded).split())


def _membership(affiliation: str) -> list[str]:
    """Groups an affiliation string really names as membership ("for the Belle
    Collaboration", "on behalf of Planck Collaboration"); ``[]`` for a real affiliation."""
    match = _FOR.match(affiliation.strip(" ()"))
    if match and not match["person"].strip() and _GROUP.search(match["groups"]):
        return group_names(match["groups"])
    return []


def _names_group(groups: str, the: bool) -> bool:
    # "for the X": X names a group even without a group word ("Mark Scott for the NuPRISM").
    return bool(_GROUP.search(groups) or _ACRONYM.fullmatch(groups.strip()) or (the and groups[:1].isupper()))


def classify_slot(name: str, parts: tuple[str, str, str] | None, affiliations: list[str]) -> AuthorSlot:
    """Decide what one written author slot is (issue 19): a person, a person writing for
    a collaboration, a collaboration, or junk.

    ``name`` is the whole written name (Unicode); ``parts`` the OAI arXiv format's
    ``(keyname, forenames, suffix)`` or ``None`` for a piece of an author string (then
    split with :func:`split_name`). Returns an :class:`AuthorSlot`:

    - punctuation only (``":"``): ``is_collaboration`` with no ``groups`` (no person, no group);
    - ``"Name for the X Collaboration"`` anywhere in the name: the person ``Name``, ``groups``
      holding X (membership on this paper); with no ``Name``, the collaboration X;
    - a group word (:func:`is_group_text`), or no forenames and an acronym keyname: a
      collaboration. A weaker word (team, group, array, ...) beside forenames made only of
      initials (``"Group, J."``) stays a person: a family name Group or Team with initials
      is kept a person, one with a full given name ("Anna Team") is taken for a group;
    - otherwise a person. Affiliations of the form ``"for the Belle Collaboration"`` become
      ``groups`` (membership), not affiliations.
    """
    kept = [a for a in affiliations if not _membership(a)]
    members = [g for a in affiliations for g in _membership(a)]
    keyname, forenames, suffix = parts if parts is not None else ("", "", "")
    if is_junk_name(name):
        return AuthorSlot(name, name, "", "", kept, True, [])
    match = _FOR.match(name)
    if match and _names_group(match["groups"], bool(match["the"])):
        groups = group_names(match["groups"])
        person = match["person"].strip(" ,;")
        if person and not is_group_text(person):
            key, fore, suf = split_name(person)
            return AuthorSlot(person, key, fore, suf, kept, False, groups + members)
        return AuthorSlot(name, name, "", "", kept, True, group_names(name) if not person else groups)
    if _is_group_slot(name, keyname, forenames, parts is not None):
        return AuthorSlot(name, name, "", "", kept, True, group_names(name))
    if parts is None:
        keyname, forenames, suffix = split_name(name)
    return AuthorSlot(name, keyname, forenames, suffix, kept, False, members)


def _is_group_slot(name: str, keyname: str, forenames: str, has_parts: bool) -> bool:
    if _STRONG_GROUP.search(name):
        return True
    if has_parts:
        if not forenames.strip():
            return bool(_GROUP.search(keyname) or _ACRONYM.fullmatch(keyname.strip()))
        return bool(_GROUP.search(name)) and not _INITIALS.fullmatch(forenames.strip())
    if " " not in name.strip() and _ACRONYM.fullmatch(name.strip()):
        return True
    return is_collaboration_name(name)
