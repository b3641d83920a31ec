"""API schemas for institutions (ROR records): references, list items, the full record."""

from __future__ import annotations

from django.conf import settings
from ninja import Schema
from pydantic import Field

from researchers.schemas import ResearcherRef
from wove.pagination import PageMeta


def _url(obj) -> str:
    return f"{settings.SITE_URL}/institutions/{obj.pk}-{obj.slug}"


class InstitutionRef(Schema):
    """An institution named from another record (an author slot)."""

    id: int
    ror_id: str = Field(description="Bare ROR ID, 03yrm5c26 form", examples=["03yrm5c26"])
    name: str
    country_code: str
    url: str

    @staticmethod
    def resolve_url(obj) -> str:
        return _url(obj)


class InstitutionOut(Schema):
    """An institution as lists show it (ROR schema v2 fields)."""

    id: int
    ror_id: str
    ror_url: str
    name: str
    slug: str
    url: str
    status: str = Field(description="active, inactive or withdrawn (ROR)")
    types: list[str] = Field(examples=[["education", "funder"]])
    country_code: str = Field(description="ISO 3166-1 alpha-2")
    country_name: str
    city: str
    established: int | None
    website: str
    successor_ror_id: str | None = Field(
        None,
        description="For an inactive or withdrawn record: the ROR ID of the active record it "
        "leads to, which the site lists in its place (/institutions lists active records and "
        "these successors; this list holds every ROR record loaded)",
    )

    @staticmethod
    def resolve_url(obj) -> str:
        return _url(obj)

    @staticmethod
    def resolve_successor_ror_id(obj) -> str | None:
        successor = obj.superseded_by if obj.superseded_by_id else None
        return successor.ror_id if successor is not None else None


class RelationshipOut(Schema):
    """A relationship the ROR record states; ``institution_id`` when the target is loaded here."""

    type: str
    ror_id: str
    label: str
    institution_id: int | None


class CategoryCount(Schema):
    """An arXiv primary category of the institution's papers and its count."""

    code: str
    name: str
    count: int


class InstitutionDetailOut(InstitutionOut):
    """The full record: names, identifiers, relationships, the active successor of a
    withdrawn or inactive record, and the papers' fields."""

    aliases: list[str]
    acronyms: list[str]
    labels: list[str]
    domains: list[str]
    links: list[str]
    wikipedia_url: str
    external_ids: dict[str, dict] = Field(description='ROR external ids: {"grid": {"preferred", "all"}, ...}')
    relationships: list[RelationshipOut]
    successor: InstitutionRef | None = Field(
        description=(
            "For an inactive or withdrawn record: the active institution its ROR successor "
            "(and predecessor) relationships lead to, followed to the end of a chain; null for "
            "an active record, and where no single active successor is loaded (a split, a cycle)."
            " The pages' ROR-ID and name URLs of such a record redirect there."
        )
    )
    fields: list[CategoryCount]

    @staticmethod
    def resolve_successor(obj):
        return obj.superseded_by

    @staticmethod
    def resolve_relationships(obj) -> list[dict]:
        # The model's ``relationships`` is the related manager; the API reads the joined list.
        return getattr(obj, "relationships_out", [])


class InstitutionPage(PageMeta):
    """A page of institutions."""

    items: list[InstitutionOut]


class InstitutionResearcherOut(Schema):
    """A researcher linked to the institution and how many distinct papers show the link."""

    researcher: ResearcherRef
    papers: int


class InstitutionResearcherPage(PageMeta):
    """A page of an institution's researchers, most papers first."""

    items: list[InstitutionResearcherOut]
