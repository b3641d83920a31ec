"""OpenAlex API: works by arXiv DOI (``10.48550/arxiv.<id>``) with their authorships.

API: https://docs.openalex.org. Limits: 10 requests per second and a daily budget; the
``X-RateLimit-*`` headers are honoured by :class:`researchers.clients.base.SourceClient`.
A ``mailto`` joins the polite pool; ``api_key`` is sent when configured. A filter takes up
to 50 DOIs joined by ``|``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator

from ..orcid import orcid_or_none
from ..records import SourceAuthor, SourceWork
from .base import SourceClient

logger = logging.getLogger(__name__)

SOURCE = "openalex"
DOI_PREFIX = "10.48550/arxiv."
FILTER_BATCH = 50
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)$", re.IGNORECASE)


def arxiv_doi(arxiv_id: str) -> str:
    """The DOI arXiv registers for a paper, in OpenAlex's lower-case form."""
    return f"{DOI_PREFIX}{arxiv_id}".lower()


def short_id(url: str | None) -> str | None:
    """``https://openalex.org/A5017898742`` gives ``A5017898742``; ``None`` stays ``None``."""
    if not url:
        return None
    return url.rstrip("/").rsplit("/", 1)[-1]


class OpenAlexClient(SourceClient):
    """Client for the OpenAlex REST API; see :class:`researchers.clients.base.SourceClient`."""

    def __init__(self, base_url: str, *, mailto: str = "", api_key: str = "", **kwargs) -> None:
        kwargs.setdefault("min_interval", 0.1)
        headers = {"User-Agent": kwargs.pop("user_agent", "wovepaper")}
        super().__init__(base_url, headers=headers, params={"mailto": mailto, "api_key": api_key}, **kwargs)

    def work_by_arxiv(self, arxiv_id: str) -> dict | None:
        """``GET /works/doi:10.48550/arxiv.<id>``: the work, or ``None`` when unknown."""
        return self.request("GET", f"works/doi:{arxiv_doi(arxiv_id)}")

    def works_by_arxiv(self, arxiv_ids: list[str]) -> list[dict]:
        """``GET /works?filter=doi:a|b|...`` in batches of 50; works OpenAlex knows, any order."""
        out: list[dict] = []
        for start in range(0, len(arxiv_ids), FILTER_BATCH):
            chunk = arxiv_ids[start : start + FILTER_BATCH]
            body = self.request(
                "GET",
                "works",
                params={"filter": "doi:" + "|".join(arxiv_doi(i) for i in chunk), "per-page": FILTER_BATCH},
            )
            out.extend((body or {}).get("results") or [])
        return out


def parse_work(data: dict) -> SourceWork | None:
    """An OpenAlex work as a :class:`SourceWork`; ``None`` when its DOI is not arXiv's.

    Authorships keep OpenAlex's order (``author_position`` first/middle/last follows it);
    the author's short id, ORCID (URL form normalised), ``raw_affiliation_strings``, the
    ``institutions[].ror`` ROR IDs and ``raw_author_name`` (as an alternative spelling) are
    kept.
    """
    match = _ARXIV_DOI.search(data.get("doi") or "")
    if not match:
        return None
    authors = []
    for i, authorship in enumerate(data.get("authorships") or [], start=1):
        author = authorship.get("author") or {}
        raw_name = authorship.get("raw_author_name") or ""
        orcid = orcid_or_none(author.get("orcid"))
        if author.get("orcid") and not orcid:
            logger.warning("OpenAlex author %s: invalid ORCID %r", author.get("id"), author["orcid"])
        authors.append(
            SourceAuthor(
                position=i,
                name=author.get("display_name") or raw_name,
                author_id=short_id(author.get("id")),
                orcid=orcid,
                affiliations=[a for a in authorship.get("raw_affiliation_strings") or [] if a],
                ror_ids=[i["ror"] for i in authorship.get("institutions") or [] if i and i.get("ror")],
                alt_names=[raw_name] if raw_name else [],
            )
        )
    return SourceWork(
        source=SOURCE, arxiv_id=match.group(1), authors=authors, cited_by_count=data.get("cited_by_count")
    )


def fetch_works(client: OpenAlexClient, arxiv_ids: Iterable[str]) -> Iterator[SourceWork]:
    """The works OpenAlex knows among ``arxiv_ids`` (one request per 50)."""
    wanted = {i.lower(): i for i in arxiv_ids}
    for data in client.works_by_arxiv(list(wanted.values())):
        try:
            work = parse_work(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            logger.warning("OpenAlex work %s: malformed (%s); skipped", data.get("id"), exc)
            continue
        if work and work.arxiv_id.lower() in wanted:
            work.arxiv_id = wanted[work.arxiv_id.lower()]
            yield work
