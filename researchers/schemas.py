"""API schemas for researchers: references, list items, the full profile, co-authors."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from ninja import Schema
from pydantic import BaseModel, ConfigDict, Field

from papers.schemas import PaperOut
from wove.pagination import PageMeta

EXTERNAL_URLS = {
    "semantic_scholar": "https://www.semanticscholar.org/author/{}",
    "openalex": "https://openalex.org/{}",
    "dblp": "https://dblp.org/pid/{}",
    "orcid": "https://orcid.org/{}",
}


def _url(obj) -> str:
    return f"{settings.SITE_URL}/researchers/{obj.pk}-{obj.slug}"


class ResearcherRef(Schema):
    """A researcher named from another record (an author slot, a co-author)."""

    id: int
    name: str
    url: str
    orcid: str | None = Field(description="ORCID iD, 0000-0002-5250-9277 form")

    @staticmethod
    def resolve_name(obj) -> str:
        return obj.display_name

    @staticmethod
    def resolve_url(obj) -> str:
        return _url(obj)


CONFIDENCE_SCALE = (
    "How sure the link is, 0..1: 0.98 the person's own ORCID iD as a registry gave it (method "
    "`orcid`); 0.9 a registry's author id (`external_id`); 0.6 this archive's own evidence, the "
    "slot joined other slots of the researcher (`local`); 0.5 local, the researcher's only slot; "
    "1.0 an editor's decision (`editor`). It ranks how the link was made, not a calibrated probability."
)


class AuthorshipOut(BaseModel):
    """Why an author slot belongs to its researcher (issue 20): how it was matched, how sure,
    and the signals that decided it (shapes per ``kind``: ``researchers.evidence``).

    A plain pydantic model reading attributes or dict keys: it sits inside every author slot
    of a paper record, where ninja's per-object wrapper costs too much on 3,000 authors."""

    model_config = ConfigDict(from_attributes=True)

    method: str = Field(description="`orcid`, `external_id`, `local` or `editor`")
    source: str = Field(
        description="The registry that answered (`openalex`, `semantic_scholar`); empty for local"
    )
    confidence: float = Field(description=CONFIDENCE_SCALE)
    evidence: list[dict[str, Any]] = Field(
        description="The signals, strongest first, each an object with a `kind`: `orcid` {orcid, source}, "
        "`external_id` {source, id}, `coauthors`/`affiliation`/`categories` {count, values}, "
        "`institution` {count, values, ror_ids}, `years` {first, last, papers}, `name` {name, block}, "
        "`editor` (curation's). Empty for links recorded before evidence was kept.",
        examples=[[{"kind": "coauthors", "count": 1, "values": ["Alberto Torchinsky"]}]],
    )
    unconfirmed: bool = Field(
        description="True when the name alone decided the link while two or more researchers share its "
        "name block: a guess an editor has not checked"
    )


class ResearcherOut(Schema):
    """A researcher as lists show it; ``paper_count`` counts distinct papers attached."""

    id: int
    name: str
    slug: str
    url: str
    orcid: str | None
    name_variants: list[str]
    paper_count: int

    @staticmethod
    def resolve_name(obj) -> str:
        return obj.display_name

    @staticmethod
    def resolve_url(obj) -> str:
        return _url(obj)


class ExternalIdOut(Schema):
    """The researcher's id in a registry (``semantic_scholar``, ``openalex``, ``dblp``, ``orcid``)."""

    source: str
    external_id: str
    name: str = Field(description="The name as the registry spells it")
    url: str


class PositionCounts(Schema):
    """Author-position counts over the ``known_papers`` (K) of ``total_papers`` (N) papers
    where every person slot was matched, so the position is known. A sole author is first."""

    first: int
    middle: int
    last: int
    known_papers: int
    total_papers: int


class FieldCount(Schema):
    """An arXiv primary category and how many of the papers are filed under it."""

    code: str = Field(examples=["cs.DC"])
    name: str
    count: int


class ResearcherInstitution(Schema):
    """An institution the researcher's author slots are linked to, with the years seen."""

    id: int
    ror_id: str
    name: str
    country_code: str
    first_year: int | None
    last_year: int | None
    papers: int


class ResearcherDetailOut(ResearcherOut):
    """The full profile of a researcher.

    When the requested id was merged away by an editor, this is the survivor's profile:
    ``requested_id`` is the id asked for and ``merged_into`` the survivor's id (= ``id``);
    otherwise ``merged_into`` is ``null``.
    """

    requested_id: int
    merged_into: int | None
    orcid_url: str
    external_ids: list[ExternalIdOut]
    identity_sources: list[str] = Field(
        description="Registries behind the identity (Semantic Scholar, OpenAlex)"
    )
    positions: PositionCounts
    fields: list[FieldCount]
    institutions: list[ResearcherInstitution]

    @staticmethod
    def resolve_merged_into(obj) -> int | None:
        return getattr(obj, "api_merged_into", None)


class ResearcherPaperOut(PaperOut):
    """One of a researcher's papers, with how the researcher's slot on it was linked."""

    authorship: AuthorshipOut | None = Field(
        description="The researcher's authorship on the paper (the first by position if an editor joined two)"
    )


class ResearcherPaperPage(PageMeta):
    """A page of a researcher's papers."""

    items: list[ResearcherPaperOut]


class ResearcherPage(PageMeta):
    """A page of researchers."""

    items: list[ResearcherOut]


class CoauthorOut(Schema):
    """A co-author and the number of papers they share with the researcher."""

    researcher: ResearcherRef
    shared_papers: int


class CoauthorPage(PageMeta):
    """A page of co-authors, most shared papers first."""

    items: list[CoauthorOut]
