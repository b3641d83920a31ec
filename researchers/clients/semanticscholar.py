"""Semantic Scholar Academic Graph API (v1): papers by arXiv id, author batches.

API: https://api.semanticscholar.org/api-docs/graph. One request per second per API key
(the key goes in ``x-api-key``); batch endpoints take up to 500 papers / 1,000 authors.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from ..orcid import orcid_or_none
from ..records import SourceAuthor, SourceProfile, SourceWork
from .base import SourceClient

logger = logging.getLogger(__name__)

SOURCE = "semantic_scholar"
PAPER_FIELDS = "externalIds,citationCount,authors.name,authors.externalIds,authors.affiliations"
AUTHOR_FIELDS = "name,externalIds,affiliations"
# What the over-merged check reads of a profile (researchers.over_merged).
PROFILE_FIELDS = "paperCount"
PAPER_BATCH = 500
AUTHOR_BATCH = 1000


class SemanticScholarClient(SourceClient):
    """Client for the Graph API; see :class:`researchers.clients.base.SourceClient`."""

    def __init__(self, base_url: str, *, api_key: str = "", **kwargs) -> None:
        headers = {"x-api-key": api_key} if api_key else {}
        headers["User-Agent"] = kwargs.pop("user_agent", "wovepaper")
        kwargs.setdefault("min_interval", 1.0)
        super().__init__(base_url, headers=headers, **kwargs)

    def paper(self, arxiv_id: str, *, fields: str = PAPER_FIELDS) -> dict | None:
        """``GET /paper/arXiv:<id>``: the paper object, or ``None`` when unknown (404)."""
        return self.request("GET", f"paper/arXiv:{arxiv_id}", params={"fields": fields})

    def papers(self, arxiv_ids: list[str], *, fields: str = PAPER_FIELDS) -> list[dict | None]:
        """``POST /paper/batch`` for arXiv ids: one entry per id in order, ``None`` where unknown."""
        out: list[dict | None] = []
        for start in range(0, len(arxiv_ids), PAPER_BATCH):
            chunk = arxiv_ids[start : start + PAPER_BATCH]
            body = self.request(
                "POST", "paper/batch", params={"fields": fields}, json={"ids": [f"arXiv:{i}" for i in chunk]}
            )
            out.extend(body if isinstance(body, list) else [None] * len(chunk))
        return out

    def authors(self, author_ids: list[str], *, fields: str = AUTHOR_FIELDS) -> list[dict | None]:
        """``POST /author/batch``: one entry per id in order, ``None`` where unknown."""
        out: list[dict | None] = []
        for start in range(0, len(author_ids), AUTHOR_BATCH):
            chunk = author_ids[start : start + AUTHOR_BATCH]
            body = self.request("POST", "author/batch", params={"fields": fields}, json={"ids": chunk})
            out.extend(body if isinstance(body, list) else [None] * len(chunk))
        return out


def parse_author(position: int, data: dict) -> SourceAuthor:
    """A Semantic Scholar author object (from a paper's ``authors`` or the author batch).

    ``externalIds.ORCID`` becomes ``orcid`` (invalid iDs dropped), ``externalIds.DBLP``
    (a list of DBLP person names, first kept) becomes ``other_ids["dblp"]``.
    """
    external = data.get("externalIds") or {}
    other: dict[str, str] = {}
    dblp = external.get("DBLP")
    if isinstance(dblp, list):
        dblp = dblp[0] if dblp else None
    if dblp:
        other["dblp"] = str(dblp)
    orcid = orcid_or_none(external.get("ORCID"))
    if external.get("ORCID") and not orcid:
        logger.warning(
            "Semantic Scholar author %s: invalid ORCID %r", data.get("authorId"), external["ORCID"]
        )
    return SourceAuthor(
        position=position,
        name=data.get("name") or "",
        author_id=str(data["authorId"]) if data.get("authorId") else None,
        orcid=orcid,
        other_ids=other,
        affiliations=[a for a in data.get("affiliations") or [] if a],
    )


def parse_paper(data: dict, arxiv_id: str | None = None) -> SourceWork | None:
    """A Semantic Scholar paper object as a :class:`SourceWork`; ``None`` without an arXiv id.

    ``arxiv_id`` overrides ``externalIds.ArXiv`` (the id we asked for). Authors keep their
    order; ``citationCount`` becomes ``cited_by_count``.
    """
    arxiv = arxiv_id or (data.get("externalIds") or {}).get("ArXiv")
    if not arxiv:
        return None
    authors = [parse_author(i, a) for i, a in enumerate(data.get("authors") or [], start=1)]
    count = data.get("citationCount")
    return SourceWork(source=SOURCE, arxiv_id=arxiv, authors=authors, cited_by_count=count)


def fetch_profiles(client: SemanticScholarClient, author_ids: Iterable[str]) -> dict[str, SourceProfile]:
    """``{author id: SourceProfile}`` from the author batch (``paperCount``; Semantic Scholar
    gives no institutions by year), one request per 1,000 authors."""
    ids = sorted(set(author_ids))
    out: dict[str, SourceProfile] = {}
    for author_id, data in zip(ids, client.authors(ids, fields=PROFILE_FIELDS), strict=True):
        count = (data or {}).get("paperCount")
        if isinstance(count, int):
            out[author_id] = SourceProfile(source=SOURCE, author_id=author_id, works_count=count)
    return out


def fetch_works(client: SemanticScholarClient, arxiv_ids: Iterable[str]) -> Iterator[SourceWork]:
    """The works Semantic Scholar knows among ``arxiv_ids`` (one batch request per 500), each
    with its authors' profiles (:func:`fetch_profiles`)."""
    ids = list(arxiv_ids)
    works: list[SourceWork] = []
    for arxiv_id, data in zip(ids, client.papers(ids), strict=True):
        if not data:
            continue
        try:
            work = parse_paper(data, arxiv_id)
        except (KeyError, TypeError, ValueError) as exc:
            logger.warning("Semantic Scholar paper arXiv:%s: malformed (%s); skipped", arxiv_id, exc)
            continue
        if work:
            works.append(work)
    profiles = fetch_profiles(client, (a.author_id for w in works for a in w.authors if a.author_id))
    for work in works:
        work.profiles = {a.author_id: profiles[a.author_id] for a in work.authors if a.author_id in profiles}
        yield work
