"""One entry point for pages and the API: rank by meaning when semantic search can run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db.models import QuerySet

from papers.models import Paper

from . import services
from .models import PaperEmbedding
from .schema import vector_column_exists


@dataclass
class Ranking:
    """``results``: ``[(paper_id, score)]`` best first, or ``None`` when keyword search
    must run instead; ``note`` then says why (for a page), ``mode`` what ran."""

    results: list[tuple[int, float]] | None = None
    mode: str = "keyword"
    note: str = ""
    ids: list[int] = field(default_factory=list)
    # False when more papers qualify than ``results`` holds: a count is then "at least".
    complete: bool = True


_OPERATORS = re.compile(r'"|(?:^|\s)-\S|\sOR\s')


def uses_operators(query: str) -> bool:
    """True when ``query`` uses web-search operators (``"phrase"``, ``-word``, ``OR``), which
    only full-text search can honour (PostgreSQL ``websearch_to_tsquery``)."""
    return bool(_OPERATORS.search(query))


def rank_if_ready(
    *,
    query: str,
    mode: str,
    within: QuerySet[Paper],
    limit: int = 200,
    coverage: tuple[int, int] | None = None,
) -> Ranking:
    """Hybrid or semantic ranking of ``within`` for ``query`` (``semantic.services.rank_papers``),
    or a :class:`Ranking` without results when ``mode`` is ``keyword``, the query is empty,
    or semantic search cannot run: the model or pgvector is missing, no paper has a vector
    yet (hybrid would equal keyword; checked before any model load), or the model fails.
    While the embeddings stage is behind, ``note`` says how many papers meaning can find
    ("2,100 of 2,800 papers are searchable by meaning so far"): ``coverage`` is ``(papers
    with a vector, public papers)`` when the caller holds them (the kept archive facts), else
    :func:`semantic.services.embedding_coverage` counts them."""
    if mode == "keyword" or not query.strip():
        return Ranking()
    if uses_operators(query):
        return Ranking(note="Phrases, OR and -word need keyword search: showing keyword results.")
    if not vector_column_exists():
        return Ranking(
            note="Semantic search is unavailable (the database has no pgvector extension); "
            "these are keyword results."
        )
    if not PaperEmbedding.objects.exists():
        return Ranking(note="Semantic search is not ready yet (no paper vectors); these are keyword results.")
    status = services.semantic_status()
    if not status.available:
        return Ranking(note=f"Semantic search is unavailable ({status.reason}); these are keyword results.")
    found = services.rank_papers(query=query, mode=mode, limit=limit, within=within)
    embedded, public = coverage or services.embedding_coverage()
    note = ""
    if embedded < public:
        note = (
            f"{embedded:,} of {public:,} papers are searchable by meaning so far "
            "(the rest are being embedded)"
            + ("; keyword matches among them are listed too." if found.mode == "hybrid" else ".")
        )
    return Ranking(
        results=found.hits,
        mode=found.mode,
        note=note,
        ids=[pk for pk, _ in found.hits],
        complete=found.complete,
    )
