"""Registry clients (Semantic Scholar, OpenAlex) and the one entry point matching uses."""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from ..records import SourceWork
from . import openalex, semanticscholar
from .base import SourceClient, SourceError, SourceUnavailable

__all__ = ["SourceClient", "SourceError", "SourceUnavailable", "client_for", "fetch_works"]


def client_for(source: str, **kwargs) -> SourceClient:
    """A configured client for ``source`` (``semantic_scholar`` or ``openalex``) from settings.

    Raises ``ValueError`` for another source.
    """
    common = {"timeout": settings.RESEARCHER_SOURCE_TIMEOUT, "user_agent": settings.WOVE_USER_AGENT, **kwargs}
    if source == semanticscholar.SOURCE:
        return semanticscholar.SemanticScholarClient(
            settings.SEMANTIC_SCHOLAR_API_URL, api_key=settings.SEMANTIC_SCHOLAR_API_KEY, **common
        )
    if source == openalex.SOURCE:
        return openalex.OpenAlexClient(
            settings.OPENALEX_API_URL,
            mailto=settings.OPENALEX_MAILTO,
            api_key=settings.OPENALEX_API_KEY,
            **common,
        )
    raise ValueError(f"unknown researcher source {source!r}")


def fetch_works(source: str, arxiv_ids: list[str], **client_kwargs) -> Iterator[SourceWork]:
    """What ``source`` says about each of ``arxiv_ids`` (papers it does not know are absent).

    Network calls; raises :class:`SourceUnavailable` when the registry keeps failing.
    """
    with client_for(source, **client_kwargs) as client:
        if source == semanticscholar.SOURCE:
            yield from semanticscholar.fetch_works(client, arxiv_ids)
        else:
            yield from openalex.fetch_works(client, arxiv_ids)
