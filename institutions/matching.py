"""Affiliation strings matched to ROR names: country hints and the in-memory index.

Strings and names are compared as :func:`papers.affiliations.tokens` reads them (the one
affiliation normaliser, its ``NAME_RULES``).

The matcher is deliberately conservative (precision over recall): a name must appear in
the string as a whole sequence of words after normalisation; the longest name found at a
place wins over names inside it; a name shared by several institutions is resolved only
when the country named in the string leaves exactly one, and is otherwise left unmatched;
an inactive or withdrawn record's names match its active successor, and a retired record
never makes an active namesake ambiguous; acronyms (3+ characters) match only as a word
written in capitals and are refused when the string names a country the institution is
not in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from papers.affiliations import BREAK, DASH, normalize, tokens

_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")

MAX_NAME_WORDS = 16


# Country names and common variants seen in affiliations → ISO 3166-1 alpha-2. Loaded
# institutions add their own country names (see :class:`AffiliationMatcher`). Names that
# are also parts of other names ("Georgia", "Jersey") are left out on purpose.
COUNTRY_VARIANTS: dict[str, str] = {
    "usa": "US",
    "u s a": "US",
    "us": "US",
    "united states": "US",
    "united states of america": "US",
    "uk": "GB",
    "u k": "GB",
    "united kingdom": "GB",
    "great britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "china": "CN",
    "pr china": "CN",
    "p r china": "CN",
    "peoples republic of china": "CN",
    "people s republic of china": "CN",
    "japan": "JP",
    "germany": "DE",
    "deutschland": "DE",
    "france": "FR",
    "switzerland": "CH",
    "schweiz": "CH",
    "suisse": "CH",
    "svizzera": "CH",
    "canada": "CA",
    "italy": "IT",
    "italia": "IT",
    "spain": "ES",
    "espana": "ES",
    "netherlands": "NL",
    "the netherlands": "NL",
    "belgium": "BE",
    "austria": "AT",
    "sweden": "SE",
    "norway": "NO",
    "denmark": "DK",
    "finland": "FI",
    "poland": "PL",
    "russia": "RU",
    "russian federation": "RU",
    "india": "IN",
    "korea": "KR",
    "south korea": "KR",
    "republic of korea": "KR",
    "taiwan": "TW",
    "australia": "AU",
    "new zealand": "NZ",
    "brazil": "BR",
    "mexico": "MX",
    "argentina": "AR",
    "chile": "CL",
    "israel": "IL",
    "iran": "IR",
    "turkey": "TR",
    "portugal": "PT",
    "greece": "GR",
    "ireland": "IE",
    "singapore": "SG",
    "hong kong": "HK",
    "south africa": "ZA",
    "egypt": "EG",
    "nigeria": "NG",
    "czech republic": "CZ",
    "hungary": "HU",
    # US states and Canadian provinces often end an address without the country.
    "new mexico": "US",
    "new jersey": "US",
    "new south wales": "AU",
}
# Uppercase forms that only count as a country when written that way ("US", not "us").
_CASE_SENSITIVE_COUNTRIES = {"us", "uk"}


# A word right after a name that makes it another institution: "Université Paris 7",
# "University of Montpellier II", "Université de Paris Sud". Names ending in a generic word
# are exempt ("Stanford University 1, Stanford" carries a footnote mark).
_QUALIFIERS = {
    "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii",
    "sud", "nord", "est", "ouest", "north", "south", "east", "west",
}  # fmt: skip
_GENERIC_ENDINGS = {
    "university", "universite", "universitat", "universidad", "universita", "institute",
    "college", "school", "technology", "sciences", "academy", "center", "laboratory",
    "hospital", "society", "research", "foundation", "company",
}  # fmt: skip


# "<head> of <name>" names another institution after it (University of Chinese Academy
# of Sciences, Graduate School of the Chinese Academy of Sciences).
_OF = {"of", "de", "du", "des", "di", "der"}
_HEADS = {"university", "universite", "universidad", "universita", "universitat", "college", "school"}


def _qualified(name_key: str, next_word: str, after: list[str]) -> bool:
    """True when ``next_word`` (then ``after``) turns the name before it into another one."""
    if next_word == DASH:
        return True
    last = name_key.rsplit(" ", 1)[-1]
    if last in _GENERIC_ENDINGS:
        return False
    if next_word in _QUALIFIERS:
        return True
    # "Paris 6, France" numbers a university; "Michigan 1 Department" is a footnote mark.
    return next_word.isdigit() and len(next_word) <= 2 and (not after or after[0] in (BREAK, DASH))


@dataclass(frozen=True)
class NameEntry:
    """One indexed name: institution id, name kind and country code of the institution;
    ``active`` is false for an inactive or withdrawn record (one without an active successor).
    ``record_id`` is the ROR record that carries the name: ``institution_id`` itself, or an
    inactive or withdrawn record whose names match its successor ``institution_id``
    (``None`` means the same as ``institution_id``)."""

    institution_id: int
    kind: str
    country_code: str
    active: bool = True
    record_id: int | None = None

    @property
    def via_successor(self) -> bool:
        """True when the name is a retired record's, matched as its successor's."""
        return self.record_id is not None and self.record_id != self.institution_id

    def outranks(self, other: NameEntry) -> bool:
        """True when this entry should stand for the institution instead of ``other``: a
        stronger name kind, or the same kind carried by the institution's own record (a
        match says "direct" whenever the active record carries the name itself)."""
        mine, theirs = _CONFIDENCE.get(self.kind, 0), _CONFIDENCE.get(other.kind, 0)
        return mine > theirs or (mine == theirs and other.via_successor and not self.via_successor)


def _prefer_active(entries: list[NameEntry]) -> list[NameEntry]:
    """The active entries when there are any: a retired record never makes its active
    namesake ambiguous (ROR keeps withdrawn duplicates under the same name)."""
    return [e for e in entries if e.active] or entries


@dataclass(frozen=True)
class Match:
    """A match of one affiliation string: institution id, the name found, how, and confidence.

    ``matched_id`` is the ROR record whose name was found: ``institution_id`` for a direct
    match, or the inactive or withdrawn record the institution succeeds (allenai/S2AFF#35:
    keep which record matched, not only where it led).
    """

    institution_id: int
    name: str
    kind: str
    confidence: float
    matched_id: int | None = None

    @property
    def record_id(self) -> int:
        """The record whose name was found (``institution_id`` when it is the same)."""
        return self.matched_id if self.matched_id is not None else self.institution_id

    @property
    def direct(self) -> bool:
        """True when the name found is the institution's own record's."""
        return self.record_id == self.institution_id

    def outranks(self, other: Match) -> bool:
        """True when this match should stand for the institution instead of ``other`` (two
        names of one string, or two strings of one author slot): higher confidence, then a
        direct match over one via successor."""
        if self.confidence != other.confidence:
            return self.confidence > other.confidence
        return self.direct and not other.direct


# Confidence by the kind of name found; a country in the string that agrees adds a little.
_CONFIDENCE = {"ror_display": 0.95, "label": 0.9, "alias": 0.85, "acronym": 0.7}
_COUNTRY_BONUS = 0.04


class AffiliationMatcher:
    """An in-memory index of institution names, built once per run, that matches strings.

    ``names`` are ``(institution_id, value, kind, country_code)`` tuples (kind as in
    :class:`institutions.models.InstitutionName`). ``superseded`` maps the id of an inactive
    or withdrawn record to ``(successor id, successor country code)``: its names are
    indexed as the successor's (``Institution.superseded_by``, successors followed to the
    end of a chain). ``retired``: ids of other inactive or withdrawn records, which match
    only when no active record has the same name. Lookup is by word n-grams of the
    normalised string against a dict of normalised names, so a string costs
    O(words × MAX_NAME_WORDS) dict lookups whatever the size of the registry.
    """

    def __init__(
        self,
        names: Iterable[tuple[int, str, str, str]],
        *,
        superseded: Mapping[int, tuple[int, str]] | None = None,
        retired: Collection[int] = (),
    ) -> None:
        superseded = superseded or {}
        self.by_name: dict[str, dict[int, NameEntry]] = {}
        self.acronyms: dict[str, dict[int, NameEntry]] = {}
        self.countries: dict[str, str] = dict(COUNTRY_VARIANTS)
        self.max_words = 1
        # Every word-prefix of every name key: lets the n-gram scan stop as soon as the
        # words so far begin no name.
        self.prefixes: set[str] = set()
        for record_id, value, kind, country in names:
            institution_id = record_id
            if record_id in superseded:
                institution_id, country = superseded[record_id]
            entry = NameEntry(institution_id, kind, country or "", institution_id not in retired, record_id)
            if kind == "acronym":
                key = value.strip()
                # Two-letter acronyms (UT, UM, SU) are far too common in strings to trust.
                if len(key) >= 3 and any(c.isalpha() for c in key):
                    bucket = self.acronyms.setdefault(key.upper(), {})
                    old = bucket.get(institution_id)
                    if old is None or entry.outranks(old):
                        bucket[institution_id] = entry
                continue
            forms = [value]
            # "Google (United States)": ROR disambiguates display names with a parenthetical.
            stripped = _PARENTHETICAL.sub("", value)
            if stripped and stripped != value:
                forms.append(stripped)
            # With and without its field breaks: "University of California, Berkeley" is
            # found in "…University of California Berkeley…" too, never the reverse.
            variants = {" ".join(tokens(f, breaks=True)) for f in forms} | {normalize(f) for f in forms}
            for key in variants:
                if not key or len(key) < 3:
                    continue
                bucket = self.by_name.setdefault(key, {})
                # Keep the strongest kind when one institution has a name twice.
                old = bucket.get(institution_id)
                if old is None or entry.outranks(old):
                    bucket[institution_id] = entry
                parts = key.split(" ")
                self.max_words = max(self.max_words, min(len(parts), MAX_NAME_WORDS))
                for size in range(1, len(parts) + 1):
                    self.prefixes.add(" ".join(parts[:size]))

    def add_country_names(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Add ``(country_name, country_code)`` pairs (from loaded institutions) to the hints."""
        for name, code in pairs:
            key = normalize(name or "")
            if key and code:
                self.countries.setdefault(key, code.upper())

    def countries_in(self, text: str, words: list[str] | None = None) -> set[str]:
        """ISO codes of the countries ``text`` names (a hint; empty when it names none).
        ``words``: ``tokens(text, breaks=True)`` when the caller has them already."""
        if words is None:
            words = tokens(text, breaks=True)
        raw_words = set(re.findall(r"\b[A-Z]{2}\b", text))
        found: set[str] = set()
        for size in (4, 3, 2, 1):
            for start in range(len(words) - size + 1):
                key = " ".join(words[start : start + size])
                code = self.countries.get(key)
                if code is None:
                    continue
                if key in _CASE_SENSITIVE_COUNTRIES and key.upper() not in raw_words:
                    continue
                found.add(code)
        return found

    def match(self, text: str) -> list[Match]:
        """Institutions named in one affiliation string, best first; ``[]`` when none or when
        the only names found are ambiguous."""
        words = tokens(text, breaks=True)
        if not words:
            return []
        countries = self.countries_in(text, words)
        spans: list[tuple[int, int, str, dict[int, NameEntry]]] = []
        for start in range(len(words)):
            key = ""
            longest = None
            for end in range(start, min(start + self.max_words, len(words))):
                key = f"{key} {words[end]}" if key else words[end]
                if key not in self.prefixes:
                    break
                bucket = self.by_name.get(key)
                if bucket:
                    longest = (start, end + 1, key, bucket)  # keep extending: longest wins
            if longest:
                spans.append(longest)
        # Drop names that sit inside a longer name found elsewhere ("University of Paris"
        # inside "University of Paris-Sud").
        kept = [s for s in spans if not any(o is not s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]
        results: dict[int, Match] = {}
        for start, end, key, bucket in kept:
            if end < len(words) and _qualified(key, words[end], words[end + 1 : end + 2]):
                continue  # "University of Paris 6" is not "University of Paris"
            if start >= 2 and words[start - 1] in _OF and words[start - 2] in _HEADS:
                continue  # "University of Chinese Academy of Sciences" is another university
            entries = _prefer_active(list(bucket.values()))
            if len(entries) > 1 and countries:
                entries = [e for e in entries if e.country_code in countries]
            if len(entries) != 1:
                continue  # ambiguous: leave unmatched rather than guess
            entry = entries[0]
            confidence = _CONFIDENCE.get(entry.kind, 0.8)
            if countries and entry.country_code in countries:
                confidence += _COUNTRY_BONUS
            self._keep(
                results, Match(entry.institution_id, key, entry.kind, round(confidence, 3), entry.record_id)
            )
        for word in set(re.findall(r"[^\W_]{3,}", html.unescape(text))):
            bucket = self.acronyms.get(word.upper())
            # Written in capitals (INRIA, CNRS) or, for 4+ letters, capitalised (Inria).
            if not bucket or not (word.isupper() or (len(word) >= 4 and word[0].isupper())):
                continue
            entries = _prefer_active(list(bucket.values()))
            if countries:
                entries = [e for e in entries if e.country_code in countries]
            if len(entries) != 1:
                continue
            entry = entries[0]
            confidence = _CONFIDENCE["acronym"] + (_COUNTRY_BONUS if countries else 0)
            self._keep(
                results, Match(entry.institution_id, word, "acronym", round(confidence, 3), entry.record_id)
            )
        return sorted(results.values(), key=lambda m: (-m.confidence, m.institution_id))

    @staticmethod
    def _keep(results: dict[int, Match], match: Match) -> None:
        old = results.get(match.institution_id)
        if old is None or match.outranks(old):
            results[match.institution_id] = match
