"""What a registry says about one arXiv paper, in the shape matching consumes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class SourceAuthor:
    """One author of a paper as a registry lists it.

    ``position`` is 1-based in the source's list; ``author_id`` the source's author id
    (Semantic Scholar ``authorId``, OpenAlex ``A...`` short id); ``orcid`` normalised or
    ``None``; ``other_ids`` further ids as ``{IdentitySource: id}`` (DBLP from Semantic
    Scholar); ``affiliations`` raw strings; ``ror_ids`` the ROR IDs of the author's
    institutions as the source writes them (OpenAlex ``institutions[].ror``, any form,
    unchecked); ``alt_names`` other spellings of this authorship (OpenAlex
    ``raw_author_name``), also tried when aligning; ``deleted`` marks a profile the source
    says was deleted (a tombstone: neither its ids nor its name are taken).
    """

    position: int
    name: str
    author_id: str | None = None
    orcid: str | None = None
    other_ids: dict[str, str] = field(default_factory=dict)
    affiliations: list[str] = field(default_factory=list)
    ror_ids: list[str] = field(default_factory=list)
    alt_names: list[str] = field(default_factory=list)
    deleted: bool = False


@dataclass(slots=True)
class SourceProfile:
    """What a registry says about one author profile as a whole (not one paper's authorship):
    how many works it holds and where, so that a profile too large to be one person is
    never taken for one (:mod:`researchers.over_merged`).

    ``works_count`` is the registry's count (OpenAlex ``works_count``, Semantic Scholar
    ``paperCount``), ``None`` when not given; ``institutions`` maps an institution id
    (OpenAlex ``affiliations[].institution.id``, short form) to the years the profile's works
    name it (``affiliations[].years``), empty when the registry gives none.
    """

    source: str
    author_id: str
    works_count: int | None = None
    institutions: dict[str, tuple[int, ...]] = field(default_factory=dict)


@dataclass(slots=True)
class SourceWork:
    """A registry's record of one arXiv paper: its authors and citation count, and the
    profiles of its authors as far as they were fetched (``profiles``: ``{author id:
    SourceProfile}``; an author without one is taken as plausible)."""

    source: str
    arxiv_id: str
    authors: list[SourceAuthor]
    cited_by_count: int | None = None
    profiles: dict[str, SourceProfile] = field(default_factory=dict)
