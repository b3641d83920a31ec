"""API schemas of what papers serve alone: list items, versions, a page of papers."""

from __future__ import annotations

from datetime import date, datetime

from django.conf import settings
from ninja import Schema
from pydantic import Field

from papers.text import byline
from wove.pagination import PageMeta


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
    doi: str = Field(
        description="The first of `dois` (the journal article; later DOIs are usually errata), "
        "or an empty string when the paper has none",
        examples=["10.1103/PhysRevD.75.124007"],
    )
    dois: list[str] = Field(
        description="Every DOI arXiv lists for the paper, in its order (arXiv's own DOI is `arxiv_doi`)",
        examples=[["10.1103/PhysRevD.75.124007", "10.1103/PhysRevD.82.029901"]],
    )
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


def paper_out(paper, base: str) -> dict:
    """``paper`` (a :class:`papers.models.Paper`) as :class:`PaperOut` dumps it: the same keys
    in the same order and the same Python types, so the API's renderer writes the bytes
    ninja's validation would; ``base`` is ``settings.SITE_URL``. For lists and records
    written without the schema's validation, whose per-field getters were about a fifth of a
    20-paper list's time (issue 28; ``tests/api/test_paper_lists.py``)."""
    return {
        "arxiv_id": paper.arxiv_id,
        "slug": paper.slug,
        "title": paper.title,
        "authors": byline(paper.authors_text),
        "abstract": paper.abstract,
        "categories": list(paper.categories),
        "primary_category": paper.primary_category_id,
        "published": paper.submitted_at,
        "updated": paper.updated_date,
        "latest_version": paper.latest_version,
        "cited_by_count": paper.cited_by_count,
        "withdrawn": paper.withdrawn,
        "doi": paper.doi,
        "dois": list(paper.dois),
        "url": base + paper.get_absolute_url(),
        "abs_url": paper.abs_url,
        "pdf_url": paper.pdf_url,
    }


class VersionOut(Schema):
    """One arXiv version: number, submission time (UTC), size in kilobytes."""

    version: int
    submitted_at: datetime | None
    size_kb: int | None


class PaperPage(PageMeta):
    """A page of papers."""

    items: list[PaperOut]
