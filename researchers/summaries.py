"""Researcher summaries: the aggregates of a busy researcher's page, computed once and kept.

At a million papers the busiest researchers hold thousands of papers, and their page spent
over a second of every view counting positions, fields, citations, co-authors, years and
institutions over all of them (issue #11). A researcher with at least
:data:`SUMMARY_MIN_PAPERS` papers gets a :class:`researchers.models.ResearcherSummary` row:

- a page view reads it when its ``paper_count`` equals the researcher's (one indexed
  query); otherwise (no row yet, or the researcher gained or lost papers) the view computes
  the summary, stores it and shows it, so figures never lag a change of papers;
- the matcher refreshes the rows of researchers whose papers changed after each run
  (:func:`summaries_refresh` from ``researchers.match_authors``), so views rarely compute;
- the ``researchers.refresh_summaries`` task (Celery beat, every 15 minutes) refreshes rows
  older than :data:`SUMMARY_MAX_AGE` (citation counts, co-author names, hidden papers do not
  change ``paper_count``) and drops rows of researchers merged away or under the threshold.

Smaller researchers' pages compute the same aggregates on every view (each is a few ms).
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import F
from django.utils import timezone

from wove.backlog import Backlog
from wove.summaries import summary_read, summary_store

from .blocks import INSTITUTIONS, researcher_block_rows
from .models import MatchMethod, Researcher, ResearcherSummary
from .selectors import authored_paper_rows, coauthor_rows, identity_sources, position_counts, year_rows

logger = logging.getLogger(__name__)

SUMMARY_MIN_PAPERS = 100
SUMMARY_MAX_AGE = timedelta(hours=6)
# Bump when the shape of ``data`` changes: rows of another version are recomputed on view.
SUMMARY_VERSION = 2  # 2: co-author links over the researcher's own papers


def summary_compute(researcher: Researcher) -> dict[str, Any]:
    """The page aggregates of ``researcher`` over their public papers, JSON-able.

    Keys: ``version`` (:data:`SUMMARY_VERSION`); ``paper_count`` (public papers);
    ``fields`` ``[[primary_category, papers], ...]`` most first, then by code; ``positions``
    ``[[label, papers], ...]`` in first/middle/last order, ``positions_known`` and
    ``positions_total`` (see :func:`researchers.selectors.position_counts`);
    ``citations_total`` (sum of ``cited_by_count``), ``cited_papers`` (papers with a count),
    ``most_cited_id`` (paper pk or ``None``); ``coauthors``/``coauthor_links``
    (:func:`researchers.selectors.coauthor_rows`); ``years``
    (:func:`researchers.selectors.year_rows`); ``institutions`` (the rows of the block the
    institutions app supplies, :mod:`researchers.blocks`); ``identity_sources`` (display
    names) and ``local`` (bool). Counts, positions, fields, citations and years come from
    one read of the researcher's authored papers (:func:`authored_paper_rows`); about six
    queries in all (there were ten, one per aggregate).
    """
    rows = authored_paper_rows(researcher)
    bars, known, total = position_counts(researcher, rows)
    papers = list({row.paper_id: row for row in rows}.values())  # one row per paper
    field_counts = Counter(row.primary_category for row in papers if row.primary_category)
    cited = [row for row in papers if row.cited_by_count is not None]
    # Most citations, then the newest; then the highest id, so that ties are stable.
    most_cited = max(
        cited,
        key=lambda r: (r.cited_by_count, r.submitted_at or datetime.min.replace(tzinfo=UTC), r.paper_id),
        default=None,
    )
    coauthors, links = coauthor_rows(researcher)
    sources = identity_sources(researcher)
    return {
        "version": SUMMARY_VERSION,
        "paper_count": len(papers),
        "fields": sorted(([code, n] for code, n in field_counts.items()), key=lambda kv: (-kv[1], kv[0])),
        "positions": [[bar.label, bar.count] for bar in bars],
        "positions_known": known,
        "positions_total": total,
        "citations_total": sum(row.cited_by_count for row in cited),
        "cited_papers": len(cited),
        "most_cited_id": most_cited.paper_id if most_cited else None,
        "coauthors": coauthors,
        "coauthor_links": links,
        "years": year_rows((row.submitted_at, row.cited_by_count) for row in papers),
        "institutions": researcher_block_rows(INSTITUTIONS, researcher),
        "identity_sources": sources,
        "local": not sources and researcher.authorships.filter(method=MatchMethod.LOCAL).exists(),
    }


def _store(researcher: Researcher, data: dict[str, Any]) -> None:
    summary_store(
        ResearcherSummary, researcher.pk, stamp_field="paper_count", stamp=researcher.paper_count, data=data
    )


def researcher_summary(researcher: Researcher) -> dict[str, Any]:
    """The page aggregates of ``researcher`` (shape: :func:`summary_compute`).

    Under :data:`SUMMARY_MIN_PAPERS` papers: computed afresh. Otherwise the stored row when
    it is of this version and its ``paper_count`` equals the researcher's (one query), else
    computed, stored and returned.
    """
    if researcher.paper_count < SUMMARY_MIN_PAPERS:
        return summary_compute(researcher)
    data = summary_read(
        ResearcherSummary,
        researcher.pk,
        stamp_field="paper_count",
        stamp=researcher.paper_count,
        version=SUMMARY_VERSION,
    )
    if data is None:
        data = summary_compute(researcher)
        _store(researcher, data)
    return data


def _eligible():
    return Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=SUMMARY_MIN_PAPERS)


def summaries_stale(*, max_age: timedelta = SUMMARY_MAX_AGE):
    """Active researchers at :data:`SUMMARY_MIN_PAPERS` papers or more whose summary row is
    missing, of another version or ``paper_count``, or older than ``max_age``."""
    fresh = ResearcherSummary.objects.filter(
        computed_at__gte=timezone.now() - max_age, data__version=SUMMARY_VERSION
    )
    current = fresh.filter(paper_count=F("researcher__paper_count")).values("researcher_id")
    return _eligible().exclude(pk__in=current)


def summaries_backlog() -> Backlog:
    """Researchers :func:`summaries_stale` holds (the pipeline's researcher-summaries stage)."""
    return Backlog(waiting=summaries_stale().count(), unit="researchers")


def summaries_refresh(
    *, researcher_ids: list[int] | None = None, max_age: timedelta = SUMMARY_MAX_AGE
) -> int:
    """Bring the stored summaries up to date; returns how many were computed.

    With ``researcher_ids``: those researchers (when active with at least
    :data:`SUMMARY_MIN_PAPERS` papers), whatever their rows say. Without: every active
    researcher at the threshold whose row is missing, of another version or
    ``paper_count``, or older than ``max_age``. Rows of researchers merged away or under the
    threshold are deleted. Each summary is written in its own short statement, so a long
    refresh holds no lock and an interruption loses nothing (run it again).
    """
    eligible = _eligible()
    deleted, _ = ResearcherSummary.objects.exclude(researcher__in=eligible).delete()
    if researcher_ids is not None:
        todo = eligible.filter(pk__in=researcher_ids)
    else:
        todo = summaries_stale(max_age=max_age)
    done = 0
    for researcher in todo.order_by("-paper_count", "pk").iterator(chunk_size=200):
        _store(researcher, summary_compute(researcher))
        done += 1
    if done or deleted:
        logger.info("researcher summaries: %d computed, %d dropped", done, deleted)
    return done


__all__ = [
    "SUMMARY_MAX_AGE",
    "SUMMARY_MIN_PAPERS",
    "researcher_summary",
    "summaries_refresh",
    "summary_compute",
]
