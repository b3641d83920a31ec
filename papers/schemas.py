"""API schemas for papers: list items, the full record, filters, batch lookup."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Literal

from django.conf import settings
from ninja import Schema
from pydantic import Field, field_validator

from institutions.schemas import InstitutionRef
from papers.text import byline
from researchers.schemas import ResearcherRef
from wove.pagination import PageMeta

PaperSort = Literal["newest", "oldest", "cited", "relevance"]
SearchMode = Literal["hybrid", "keyword", "semantic"]
MAX_BATCH = 500
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class PaperOut(Schema):
    """One paper as lists show it (the live site's list item, without the analysis fields).

    ``published`` is the v1 submission time (UTC), ``updated`` the date of the latest
    version; ``url`` is the page here, ``abs_url``/``pdf_url`` point at arXiv.
    """

    arxiv_id: str = Field(examples=["2401.10241"])
    slug: str
    title: str
    authors: str = Field(
        description="The author list as one display string: names only, affiliations and "
        "their marks removed (the full string as harvested is `authors_as_written` on the record)"
    )
    abstract: str
    categories: list[str] = Field(examples=[["cs.DC", "cs.LG"]])
    primary_category: str | None = Field(examples=["cs.DC"])
    published: datetime | None
    updated: date | None
    latest_version: int
    cited_by_count: int | None
    withdrawn: bool
    doi: str
    url: str
    abs_url: str
    pdf_url: str

    @staticmethod
    def resolve_authors(obj) -> str:
        return byline(obj.authors_text)

    @staticmethod
    def resolve_authors_as_written(obj) -> str:
        return obj.authors_text

    @staticmethod
    def resolve_primary_category(obj) -> str | None:
        return obj.primary_category_id

    @staticmethod
    def resolve_published(obj) -> datetime | None:
        return obj.submitted_at

    @staticmethod
    def resolve_updated(obj) -> date | None:
        return obj.updated_date

    @staticmethod
    def resolve_url(obj) -> str:
        return settings.SITE_URL + obj.get_absolute_url()


class VersionOut(Schema):
    """One arXiv version: number, submission time (UTC), size in kilobytes."""

    version: int
    submitted_at: datetime | None
    size_kb: int | None


class AuthorSlotOut(Schema):
    """An author slot as written on the paper, with the researcher and institutions matched to it."""

    position: int = Field(description="1-based position in the author list")
    name: str
    author_position: Literal["first", "middle", "last"]
    affiliations: list[str] = Field(description="Affiliation strings as arXiv gives them")
    is_collaboration: bool
    researcher: ResearcherRef | None
    institutions: list[InstitutionRef]


class ProvenanceLinks(Schema):
    """The paper's current signed provenance record (see /papers/{arxiv_id}/provenance)."""

    pith_number: str = Field(examples=["pith:2024:L5Y4YBEWBIXPMBCPHRX2LPRGYS"])
    bundle: str
    state: str


class PaperDetailOut(PaperOut):
    """The full record of one paper: source fields, versions, author slots, provenance."""

    authors_as_written: str = Field(description="The arXiv author string as harvested (TeX kept)")
    journal_ref: str
    comments: str
    license: str
    report_no: str
    msc_class: str
    acm_class: str
    arxiv_doi: str
    versions: list[VersionOut]
    author_slots: list[AuthorSlotOut]
    provenance: ProvenanceLinks | None


class PaperFilter(Schema):
    """Filters and sort of paper lists.

    ``q`` is PostgreSQL full-text search (``websearch_to_tsquery`` syntax: words, "quoted
    phrases", ``-excluded``, ``or``). ``sort=relevance`` ranks by ``q`` and falls back to
    ``newest`` without it. ``cited`` puts papers without a citation count last.
    """

    q: str | None = Field(None, max_length=500, description="Full-text query")
    category: str | None = Field(
        None, max_length=32, description="arXiv category, primary or cross-list (cs.DC)"
    )
    researcher: int | None = Field(None, ge=1, le=2**62, description="Researcher id")
    institution: str | None = Field(None, max_length=100, description="Institution id or ROR ID")
    submitted_from: date | None = Field(None, description="First submission on or after (UTC date)")
    submitted_until: date | None = Field(None, description="First submission on or before (UTC date)")
    sort: PaperSort = "newest"
    mode: SearchMode = Field(
        "hybrid",
        description="With q and sort=relevance: hybrid (full-text and vector ranks fused), keyword "
        "or semantic. Runs as keyword where semantic search is unavailable; the X-Search-Mode "
        "header says which ran.",
    )

    @field_validator("submitted_from", "submitted_until", mode="before")
    @classmethod
    def _iso_date_only(cls, value: object) -> object:
        # Pydantic would read "0" as a Unix timestamp; only YYYY-MM-DD dates are meant here.
        if isinstance(value, str) and not _ISO_DATE.fullmatch(value):
            raise ValueError("expected a date as YYYY-MM-DD")
        return value


class PaperPage(PageMeta):
    """A page of papers."""

    items: list[PaperOut]


class BatchIn(Schema):
    """Up to 500 arXiv identifiers in any form (new or old style, versioned, ``arXiv:``)."""

    ids: list[str] = Field(min_length=1, max_length=MAX_BATCH, examples=[["2401.10241", "hep-th/9901001"]])


class BatchItem(Schema):
    """The answer for one requested identifier, in the order asked.

    ``status``: ``found``, ``not_found`` (a valid identifier this archive lacks),
    ``invalid`` (not an arXiv identifier) or ``deleted`` (arXiv withdrew the record).
    """

    id: str = Field(description="The identifier as sent")
    arxiv_id: str | None = Field(description="Normalised identifier, null when invalid")
    status: Literal["found", "not_found", "invalid", "deleted"]
    paper: PaperOut | None


class BatchOut(Schema):
    """Batch lookup answer: one result per requested id, the count found, the ids not found."""

    results: list[BatchItem]
    found: int = Field(description="Distinct papers found (one paper asked for in two forms counts once)")
    unknown: list[str] = Field(
        description="Requested ids (as sent) with no paper: not_found, invalid, deleted"
    )
