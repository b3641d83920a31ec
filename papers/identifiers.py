"""arXiv identifiers and DOIs: parse any accepted arXiv form into one key; split a DOI field.

Follows arXiv's identifier scheme (https://info.arxiv.org/help/arxiv_identifier.html):
new style ``YYMM.NNNN`` (April 2007 to December 2014) and ``YYMM.NNNNN`` (from January
2015), old style ``archive/YYMMNNN`` where the archive (``hep-th``, ``cond-mat``) is part of
the identity and a subject class (``math.GT/0309136``) is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

# Archives that existed with old-style identifiers (arXiv_archives table, plus the archives
# that later became groups). The subject class after a dot is dropped from the identity.
_OLD_ARCHIVE = r"[a-z]+(?:-[a-z]+)?"
# re.ASCII: ``\d`` is [0-9] only (it otherwise matches Arabic-Indic or full-width digits,
# which int() accepts but which are not arXiv identifiers).
_OLD_RE = re.compile(
    rf"^(?P<archive>{_OLD_ARCHIVE})(?:\.(?P<subject>[A-Za-z-]+))?/(?P<number>\d{{7}})"
    r"(?:v(?P<version>\d+))?$",
    re.ASCII,
)
_NEW_RE = re.compile(r"^(?P<yymm>\d{4})\.(?P<number>\d{4,5})(?:v(?P<version>\d+))?$", re.ASCII)
# Versions are stored in a PositiveSmallIntegerField; arXiv's highest is in the dozens.
MAX_VERSION = 32767
_PREFIX_RE = re.compile(
    r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html|format)/", re.IGNORECASE
)


class InvalidArxivId(ValueError):
    """Raised when a string is not a possible arXiv identifier; the message says why."""


@dataclass(frozen=True, slots=True)
class ArxivId:
    """A parsed arXiv identifier.

    ``id`` is the normalised key without version (``2401.10241``, ``hep-th/9504118``);
    ``version`` is the version number when the input named one (``2401.10241v2`` gives 2),
    else ``None``.
    """

    id: str
    version: int | None = None

    @property
    def is_old_style(self) -> bool:
        """True for ``archive/YYMMNNN`` identifiers."""
        return "/" in self.id

    @property
    def versioned(self) -> str:
        """The identifier with its version suffix, or the bare id when no version is known."""
        return f"{self.id}v{self.version}" if self.version else self.id

    @property
    def yymm(self) -> str:
        """The ``YYMM`` part (year and month of submission) as a string."""
        return self.id.split("/")[-1][:4]

    def __str__(self) -> str:
        return self.id


def parse_arxiv_id(raw: str) -> ArxivId:
    """Parse an arXiv identifier in any accepted form.

    Accepts ``2401.10241``, ``2401.10241v2``, ``arXiv:2401.10241``, ``arxiv.org/abs/...``,
    ``https://arxiv.org/pdf/2401.10241v1.pdf``, ``oai:arXiv.org:2401.10241``, old style
    ``hep-th/9504118`` and ``math.GT/0309136`` (the subject class is dropped).

    Returns an :class:`ArxivId`. Raises :class:`InvalidArxivId` for anything that cannot be
    an arXiv identifier (wrong shape, month 13, a four-digit number after 2014, non-ASCII
    digits, a version above v32767, ...).
    """
    if not isinstance(raw, str):
        raise InvalidArxivId("an arXiv identifier must be a string")
    text = raw.strip()
    if len(text) > 200:
        raise InvalidArxivId("too long to be an arXiv identifier")
    text = _PREFIX_RE.sub("", text)
    for prefix in ("oai:arxiv.org:", "arxiv:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix) :]
    if text.lower().endswith(".pdf"):
        text = text[:-4]
    text = text.strip().strip("/")

    match = _NEW_RE.match(text)
    if match:
        yymm, number = match["yymm"], match["number"]
        year, month = int(yymm[:2]), int(yymm[2:])
        if not 1 <= month <= 12:
            raise InvalidArxivId(f"{raw!r}: month {month:02d} does not exist")
        if (year, month) < (7, 4):
            raise InvalidArxivId(f"{raw!r}: new-style identifiers start in April 2007 (0704)")
        if year < 15 and len(number) != 4:
            raise InvalidArxivId(f"{raw!r}: identifiers before 1501 have a four-digit number")
        if year >= 15 and len(number) != 5:
            raise InvalidArxivId(f"{raw!r}: identifiers from 1501 have a five-digit number")
        return ArxivId(f"{yymm}.{number}", _version(match["version"], raw))

    match = _OLD_RE.match(text)
    if match:
        number = match["number"]
        year, month = int(number[:2]), int(number[2:4])
        if not 1 <= month <= 12:
            raise InvalidArxivId(f"{raw!r}: month {month:02d} does not exist")
        # Old-style numbering ran from 1991 (91xx) to March 2007 (0703).
        if 7 < year < 91 or (year == 7 and month > 3):
            raise InvalidArxivId(f"{raw!r}: old-style identifiers ran from 1991 to March 2007")
        return ArxivId(f"{match['archive'].lower()}/{number}", _version(match["version"], raw))

    raise InvalidArxivId(f"{raw!r} is not an arXiv identifier")


def _version(value: str | None, raw: str) -> int | None:
    if value is None:
        return None
    if len(value) > 5 or int(value) > MAX_VERSION:
        raise InvalidArxivId(f"{raw!r}: version above v{MAX_VERSION}")
    version = int(value)
    if version < 1:
        raise InvalidArxivId(f"{raw!r}: versions start at v1")
    return version


def try_parse_arxiv_id(raw: str) -> ArxivId | None:
    """Like :func:`parse_arxiv_id` but returns ``None`` instead of raising."""
    try:
        return parse_arxiv_id(raw)
    except InvalidArxivId:
        return None


# DOI syntax (DOI Handbook, section 2.2 "Syntax"):
# a prefix "10." followed by a registrant code (digits, possibly subdivided by dots:
# 10.1000.10), a "/", and a suffix of any printable characters, which may itself hold
# "/", "," or ";" (Wiley's SICI suffixes do: 10.1002/(SICI)...3.0.CO;2-1). So a separator
# only separates when a new DOI starts after it.
_DOI_START = r"(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?10\.\d+(?:\.\d+)*/"
_DOI_SEPARATOR = re.compile(rf"[\s,;]+(?={_DOI_START})", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
# Characters a DOI keeps unencoded in a URL path: RFC 3986 ``pchar`` minus "+", which the
# DOI Handbook's "DOI Name Encoding Rules for URL Presentation" (appendix) recommends
# encoding; everything it lists as mandatory ("%", '"', "#", space, "?") or recommended
# ("<", ">", "{", "}", ...) is percent-encoded, and so is non-ASCII text (UTF-8).
_DOI_PATH_SAFE = "/:@!$&'()*,;="


def split_dois(value: str) -> list[str]:
    """The DOIs of one metadata field, in the order written, each as written.

    arXiv's ``doi`` field holds one DOI or several separated by spaces (a journal article
    and its errata: ``10.1103/PhysRevD.75.124007 10.1103/PhysRevD.82.029901``). DOIs
    follow the DOI Handbook's syntax: prefix ``10.`` + registrant code, ``/``, suffix.
    Whitespace, commas or semicolons separate two DOIs only where the next DOI starts
    (``10.<digits>/``, optionally after ``doi:`` or ``https://doi.org/``), so a suffix
    holding a comma or semicolon stays whole. A ``doi:``, ``https://doi.org/`` or
    ``http://dx.doi.org/`` prefix is removed; separators trailing a DOI are dropped; the
    first of duplicates wins (DOIs compare case-insensitively, as the Handbook says); text
    that does not start like a DOI is kept as written, never dropped. ``value`` should be
    cleaned already (:func:`papers.text.clean_text`); ``""`` gives ``[]``.
    """
    out: list[str] = []
    seen: set[str] = set()
    for part in _DOI_SEPARATOR.split(value.strip()):
        doi = _DOI_PREFIX.sub("", part.strip()).rstrip(" ,;")
        if doi and doi.casefold() not in seen:
            seen.add(doi.casefold())
            out.append(doi)
    return out


def doi_url(doi: str) -> str:
    """``https://doi.org/<doi>`` with the DOI made path-safe by the DOI Handbook's URL
    encoding rules (``#``, ``?``, ``%``, space, ``<>``, ``+`` percent-encoded; ``/``, ``;``
    and ``()`` kept, as RFC 3986 paths allow)."""
    return "https://doi.org/" + quote(doi, safe=_DOI_PATH_SAFE)
