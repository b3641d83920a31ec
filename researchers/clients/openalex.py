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
from ..records import SourceAuthor, SourceProfile, SourceWork
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

    def authors_by_id(self, author_ids: list[str]) -> list[dict]:
        """``GET /authors?filter=openalex:A1|A2|...`` in batches of 50: the author profiles
        OpenAlex knows among ``author_ids`` (short ids), any order."""
        out: list[dict] = []
        for start in range(0, len(author_ids), FILTER_BATCH):
            chunk = author_ids[start : start + FILTER_BATCH]
            body = self.request(
                "GET", "authors", params={"filter": "openalex:" + "|".join(chunk), "per-page": FILTER_BATCH}
            )
            out.extend((body or {}).get("results") or [])
        return out


def parse_profile(data: dict) -> SourceProfile | None:
    """An OpenAlex author object as a :class:`SourceProfile`: ``works_count`` and each
    ``affiliations[]`` institution (short id) with its ``years``; ``None`` without an id."""
    author_id = short_id(data.get("id"))
    if not author_id:
        return None
    institutions: dict[str, tuple[int, ...]] = {}
    for affiliation in data.get("affiliations") or []:
        institution = short_id((affiliation.get("institution") or {}).get("id"))
        if institution:
            years = {int(y) for y in affiliation.get("years") or [] if isinstance(y, int)}
            institutions[institution] = tuple(sorted(years | set(institutions.get(institution, ()))))
    count = data.get("works_count")
    return SourceProfile(
        source=SOURCE,
        author_id=author_id,
        works_count=count if isinstance(count, int) else None,
        institutions=institutions,
    )


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


def fetch_profiles(client: OpenAlexClient, author_ids: Iterable[str]) -> dict[str, SourceProfile]:
    """``{author id: SourceProfile}`` of the profiles OpenAlex knows among ``author_ids`` (one
    request per 50); a malformed profile is logged and left out (its author is then taken as
    plausible, as before profiles were read)."""
    out: dict[str, SourceProfile] = {}
    for data in client.authors_by_id(sorted(set(author_ids))):
        try:
            profile = parse_profile(data)
        except (TypeError, ValueError, AttributeError) as exc:
            logger.warning("OpenAlex author %s: malformed (%s); skipped", data.get("id"), exc)
            continue
        if profile:
            out[profile.author_id] = profile
    return out


def fetch_works(client: OpenAlexClient, arxiv_ids: Iterable[str]) -> Iterator[SourceWork]:
    """The works OpenAlex knows among ``arxiv_ids`` (one request per 50), each with the
    profiles of its authors (:func:`fetch_profiles`: one request per 50 authors of the batch)."""
    wanted = {i.lower(): i for i in arxiv_ids}
    works: list[SourceWork] = []
    for data in client.works_by_arxiv(list(wanted.values())):
        try:
            work = parse_work(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            logger.warning("OpenAlex work %s: malformed (%s); skipped", data.get("id"), exc)
            continue
        if work and work.arxiv_id.lower() in wanted:
            work.arxiv_id = wanted[work.arxiv_id.lower()]
            works.append(work)
    profiles = fetch_profiles(client, (a.author_id for w in works for a in w.authors if a.author_id))
    for work in works:
        work.profiles = {a.author_id: profiles[a.author_id] for a in work.authors if a.author_id in profiles}
        yield work
