"""Parsed arXiv records, independent of the format they came in (OAI arXiv, arXivRaw, Kaggle)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime

from wove.pickling import pickled_as_tuple

from .authors import AuthorSlot
from .identifiers import split_dois
from .text import clean_text

# arXiv's withdrawal notices, in the phrasings seen in comments and abstracts (issue 18):
# "withdrawn" after has/have/had/was/were/is/been ("this article had been withdrawn on Feb
# 06, 2013"), "withdrawn by the author(s)" (or by arXiv administrators), "paper withdrawn",
# a comment that starts with "withdrawn", and an "arXiv admin note: ... withdrawn".
_WITHDRAWN = re.compile(
    r"\b(?:has|have|had|was|were|is|been)\s+(?:been\s+)?withdrawn\b"
    r"|\bwithdrawn\s+by\b|\b(?:paper|article|submission|manuscript)\s+withdrawn\b"
    r"|^\s*withdrawn\b|\barxiv\s+admin\s+note\b[^\n]*\bwithdrawn\b",
    re.IGNORECASE,
)
# In an abstract only a notice that opens it counts (an abstract may discuss withdrawals).
_WITHDRAWN_ABSTRACT = re.compile(
    r"\s*(?:this\s+)?(?:paper|article|submission|manuscript)\s+(?:has|had|was|is)\s+(?:been\s+)?withdrawn\b"
    r"|\s*withdrawn\b|\s*arxiv\s+admin\s+note\b[^\n]*\bwithdrawn\b",
    re.IGNORECASE,
)
_SIZE = re.compile(r"^\s*(\d+)\s*kb\s*$", re.IGNORECASE)


class RecordError(ValueError):
    """A record that cannot be used; carries the arXiv identifier when one was readable."""

    def __init__(self, identifier: str | None, reason: str):
        super().__init__(f"{identifier or '<unknown id>'}: {reason}")
        self.identifier = identifier
        self.reason = reason

    def __reduce__(self):
        # Pickled with a page sent from the parsing process (papers.parse_ahead); the default
        # would call __init__ with the formatted message alone.
        return (type(self), (self.identifier, self.reason))


class FieldTooLong(ValueError):
    """A harvested field over its length limit. The record is refused rather than cut: a cut
    title or DOI would be silently wrong, and a category code over its column width would
    fail the whole page's write. The limits sit far above anything arXiv serves (titles run
    to a few hundred characters, abstracts to about 2,000)."""

    def __init__(self, name: str, length: int, limit: int):
        super().__init__(f"{name} is {length:,} characters long (limit {limit:,})")
        self.name = name
        self.length = length
        self.limit = limit


CATEGORY_MAX_LENGTH = 32  # Category.code and Paper.categories items
SET_SPEC_MAX_LENGTH = 64  # Paper.set_specs items
DOI_MAX_LENGTH = 200  # Paper.dois items


@pickled_as_tuple
@dataclass(slots=True)
class VersionInfo:
    """One version: number (1-based), UTC timestamp, size in kilobytes, arXiv source type."""

    version: int
    submitted_at: datetime | None
    size_kb: int | None = None
    source_type: str = ""


@pickled_as_tuple
@dataclass(slots=True)
class ArxivRecord:
    """A harvested paper record in one source's shape (see :class:`papers.models.Paper`).

    ``authors`` is ``None`` when the source carries no structured author list;
    ``versions`` empty when it carries no version history (the OAI arXiv format gives only
    ``created``/``updated`` days). ``deleted`` records carry only the identifier and
    datestamp.
    """

    arxiv_id: str
    source: str
    deleted: bool = False
    datestamp: date | None = None
    set_specs: list[str] = field(default_factory=list)
    title: str = ""
    abstract: str = ""
    authors: list[AuthorSlot] | None = None
    authors_text: str = ""
    categories: list[str] = field(default_factory=list)
    license: str = ""
    dois: list[str] = field(default_factory=list)
    journal_ref: str = ""
    report_no: str = ""
    comments: str = ""
    msc_class: str = ""
    acm_class: str = ""
    submitter: str = ""
    proxy: str = ""
    versions: list[VersionInfo] = field(default_factory=list)
    created: date | None = None
    updated: date | None = None
    # The paper's URL slug when already computed from ``title`` (by the parsing process of
    # a bulk load, papers.parse_ahead); None: the writer computes it. Not part of the record.
    slug: str | None = field(default=None, compare=False, repr=False)

    @property
    def withdrawn(self) -> bool:
        """arXiv marks withdrawals in the comments ("This paper has been withdrawn"), in the
        abstract of the withdrawal version, or as a last version of 0kb of source type I."""
        if _WITHDRAWN.search(self.comments or ""):
            return True
        if _WITHDRAWN_ABSTRACT.match(self.abstract or ""):
            return True
        if self.versions:
            last = self.versions[-1]
            if last.size_kb == 0 and last.source_type.upper() == "I":
                return True
        return False


def parse_rfc822(value: str | None) -> datetime | None:
    """Parse arXiv's version date (``Wed, 23 Jan 2008 21:06:41 GMT``) into an aware UTC
    datetime; ``None`` for an empty value. Raises ``ValueError`` on an unreadable date."""
    if not value or not value.strip():
        return None
    try:
        parsed = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"unreadable version date {value!r}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_day(value: str | None) -> date | None:
    """Parse an ISO day (``2007-04-30``); ``None`` for empty. Raises ``ValueError`` if bad."""
    if not value or not value.strip():
        return None
    return date.fromisoformat(value.strip()[:10])


def parse_size_kb(value: str | None) -> int | None:
    """``"121kb"`` gives 121; anything else gives ``None``."""
    match = _SIZE.match(value or "")
    return int(match.group(1)) if match else None


def parse_version_number(value: str | None) -> int:
    """``"v3"`` gives 3. Raises ``ValueError`` on anything else."""
    match = re.fullmatch(r"\s*v(\d+)\s*", value or "")
    if not match or int(match.group(1)) < 1:
        raise ValueError(f"bad version label {value!r}")
    return int(match.group(1))


def split_categories(value: str | None) -> list[str]:
    """Space-separated category codes, in order, without duplicates. Raises
    :class:`FieldTooLong` for a code over 32 characters (no arXiv code comes close)."""
    seen: list[str] = []
    for code in (value or "").split():
        if len(code) > CATEGORY_MAX_LENGTH:
            raise FieldTooLong("a category code", len(code), CATEGORY_MAX_LENGTH)
        if code not in seen:
            seen.append(code)
    return seen


_PARAGRAPH = re.compile(r"\n[ \t]+(?=\S)")


def clean_abstract(value: str | None, limit: int = 100_000) -> str:
    """An abstract as stored: arXiv starts a new paragraph with an indented line, so those
    breaks become one ``\n``; every other run of whitespace becomes one space. Raises
    :class:`FieldTooLong` when the result is over ``limit`` characters."""
    text = (value or "").strip()
    paragraphs = _PARAGRAPH.split(text)
    abstract = "\n".join(p for p in (clean_text(x) for x in paragraphs) if p)
    if len(abstract) > limit:
        raise FieldTooLong("abstract", len(abstract), limit)
    return abstract


def text_field(value: str | None, limit: int = 100_000, name: str = "a field") -> str:
    """A harvested text field as stored: control characters removed, whitespace collapsed.
    Raises :class:`FieldTooLong` (naming ``name``) when over ``limit`` characters."""
    text = clean_text(value)
    if len(text) > limit:
        raise FieldTooLong(name, len(text), limit)
    return text


def doi_field(value: str | None, name: str = "doi") -> list[str]:
    """A harvested DOI field as stored: cleaned as :func:`text_field`, then split into its
    DOIs by :func:`papers.identifiers.split_dois` (order kept, duplicates dropped). Raises
    :class:`FieldTooLong` (naming ``name``) when one DOI is over 200 characters or the
    field over 2,000."""
    dois = split_dois(text_field(value, 10 * DOI_MAX_LENGTH, name))
    for doi in dois:
        if len(doi) > DOI_MAX_LENGTH:
            raise FieldTooLong(name, len(doi), DOI_MAX_LENGTH)
    return dois
