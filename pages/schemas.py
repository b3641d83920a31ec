"""API schemas of the combined paper API: the full record (author slots with researchers and
institutions, provenance links), list filters, batch lookup."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from ninja import Schema
from pydantic import BaseModel, Field, field_validator

from papers.schemas import PaperOut, VersionOut
from researchers.schemas import AuthorshipOut

PaperSort = Literal["newest", "oldest", "cited", "relevance"]
SearchMode = Literal["hybrid", "keyword", "semantic"]
MAX_BATCH = 500
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class SlotResearcher(BaseModel):
    """The researcher matched to an author slot: :class:`researchers.schemas.ResearcherRef`'s
    fields, as a plain pydantic model (see :class:`AuthorSlotOut`)."""

    id: int
    name: str
    url: str
    orcid: str | None = Field(description="ORCID iD, 0000-0002-5250-9277 form")


class MatchedRecord(BaseModel):
    """The ROR record an affiliation string or id named (see :class:`SlotInstitution`)."""

    id: int
    ror_id: str = Field(description="Bare ROR ID, 03yrm5c26 form", examples=["03z7kp760"])
    name: str
    status: Literal["active", "inactive", "withdrawn"]
    url: str


class SlotInstitution(BaseModel):
    """An institution matched to an author slot: :class:`institutions.schemas.InstitutionRef`'s
    fields, as a plain pydantic model (see :class:`AuthorSlotOut`), and how it was found."""

    id: int
    ror_id: str = Field(description="Bare ROR ID, 03yrm5c26 form", examples=["03yrm5c26"])
    name: str
    country_code: str
    url: str
    source: Literal["openalex", "ror-id", "string-match"] = Field(
        description="What linked the slot: an OpenAlex institution's ROR ID, a ROR ID given "
        "directly, or an affiliation string matched to one of the institution's ROR names"
    )
    matched_string: str = Field(description="The affiliation string matched (empty for id links)")
    matched: MatchedRecord | None = Field(
        description="The ROR record the string or id named: this institution itself, or an inactive "
        "or withdrawn record it succeeds; null on links made before it was kept"
    )
    resolution: Literal["direct", "via-successor"] | None = Field(
        description="How `matched` led to this institution: `direct`, or `via-successor` (the "
        "record's ROR successor relationships, followed to the active record); null when not kept"
    )


class AuthorSlotOut(BaseModel):
    """An author slot as written on the paper, with the researcher and institutions matched to it.

    Plain pydantic models built from dicts (``pages.paper_api._author_slots``), not ninja
    ``Schema``s: ninja wraps every nested object to read its attributes, which made a
    3,000-author paper's record cost about 100 ms in validation alone (issue 21)."""

    position: int = Field(description="1-based position in the author list")
    name: str
    author_position: Literal["first", "middle", "last"]
    affiliations: list[str] = Field(description="Affiliation strings as arXiv gives them")
    is_collaboration: bool
    researcher: SlotResearcher | None
    authorship: AuthorshipOut | None = Field(
        description="How the slot was linked to `researcher` and why (null while unmatched)"
    )
    institutions: list[SlotInstitution]


class PaperCollaborationOut(BaseModel):
    """A collaboration named in the paper's author list ("ATLAS Collaboration"): a group,
    never a researcher (issue 19), with the author slots written "for" it."""

    name: str = Field(description="The collaboration's name as first seen in the archive")
    url: str = Field(description="Its page, which lists its papers")
    position: int = Field(description="Position of the first author slot naming it or writing for it")
    members: list[int] = Field(
        description="Positions of this paper's person slots written for it "
        '("T. Onogi for the JLQCD Collaboration"); empty when the list names it alone'
    )


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
    collaborations: list[PaperCollaborationOut] = Field(
        description="Collaborations named in the author list, in author order"
    )
    provenance: ProvenanceLinks | None

    @staticmethod
    def resolve_collaborations(paper) -> list[dict]:
        # Set by the view (``pages.paper_api``): the model's own ``collaborations`` is its
        # related manager.
        return paper.collaboration_refs


class PaperFilter(Schema):
    """Filters and sort of paper lists.

    ``q`` is PostgreSQL full-text search (``websearch_to_tsquery`` syntax: words, "quoted
    phrases", ``-excluded``, ``or``). ``sort=relevance`` ranks by ``q`` and falls back to
    ``newest`` without it. ``cited`` puts papers without a citation count last.
    """

    q: str | None = Field(None, max_length=500, description="Full-text query")
    category: str | None = Field(
        None,
        max_length=32,
        description="arXiv category, primary or cross-list (cs.DC); an alias or retired archive "
        "filters by the code arXiv files it under (math.IT as cs.IT)",
    )
    researcher: int | None = Field(None, ge=1, le=2**62, description="Researcher id")
    institution: str | None = Field(None, max_length=100, description="Institution id or ROR ID")
    collaboration: int | None = Field(
        None,
        ge=1,
        le=2**62,
        description="Collaboration id (its papers: named among the authors, or written for)",
    )
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
