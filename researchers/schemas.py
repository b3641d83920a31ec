"""API schemas for researchers: references, list items, the full profile, co-authors."""

from __future__ import annotations

from django.conf import settings
from ninja import Schema
from pydantic import Field

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
