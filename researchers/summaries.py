"""Researcher summaries: the aggregates of a researcher's page, computed by the pipeline and kept.

At a million papers the busiest researchers hold thousands of papers, and their page spent
over a second of every view counting positions, fields, citations, co-authors, years and
institutions over all of them (issue #11); a page with a few papers still spent six queries
on them (issue 28: a page's aggregates are kept, never computed on a request). Every
researcher with at least :data:`SUMMARY_MIN_PAPERS` paper gets a
:class:`researchers.models.ResearcherSummary` row:

- a page view reads it when its ``paper_count`` equals the researcher's (one indexed
  query); otherwise (no row yet, or the researcher gained or lost papers since the last
  run) the view computes the summary, stores it and shows it, so figures never lag a change
  of papers;
- the matcher refreshes the rows of researchers whose papers changed after each run
  (:func:`summaries_refresh` from ``researchers.match_authors``), and the pipeline's
  researcher-summaries stage those missing, computed before a change of one of their
  papers (a citation count, a hidden paper: the paper search log), or older than
  :data:`SUMMARY_MAX_AGE` (co-author names), in batches of
  :data:`researchers.summary_reads.BATCH` researchers read together
  (:func:`summaries_compute_many`), and drops rows of researchers merged away or left
  without papers.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from papers.selectors import search_log_last_id
from wove.backlog import Backlog
from wove.bulk import batched, batches_in_threads
from wove.summaries import summary_read, summary_store, summary_store_many

from . import summary_reads
from .blocks import INSTITUTIONS, researcher_block_rows_many
from .models import Researcher, ResearcherSummary
from .selectors import (
    authored_paper_rows_many,
    position_counts,
    year_rows,
)

logger = logging.getLogger(__name__)

SUMMARY_MIN_PAPERS = 1
# What no paper change records (a co-author renamed, an institution's name) is picked up
# within a day; paper changes are followed by the next sweep (summaries_stale). A full pass
# costs about 1.5 ms a researcher (24 min at a million papers, alone on two cores).
SUMMARY_MAX_AGE = timedelta(days=1)
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
    (:func:`researchers.summary_reads.coauthor_rows_many`); ``years``
    (:func:`researchers.selectors.year_rows`); ``institutions`` (the rows of the block the
    institutions app supplies, :mod:`researchers.blocks`); ``identity_sources`` (display
    names) and ``local`` (bool). Counts, positions, fields, citations and years come from
    one read of the researcher's authored papers; five queries in all: a batch of one of
    :func:`summaries_compute_many`.
    """
    return summaries_compute_many([researcher])[researcher.pk]


def summaries_compute_many(researchers: list[Researcher]) -> dict[int, dict[str, Any]]:
    """``{researcher pk: summary}``: :func:`summary_compute` of each of ``researchers``, from
    five queries for the whole list (:mod:`researchers.summary_reads`). Keep lists to about
    :data:`researchers.summary_reads.BATCH`."""
    ids = [r.pk for r in researchers]
    rows = authored_paper_rows_many(ids)
    coauthors = summary_reads.coauthor_rows_many(ids)
    sources = summary_reads.identity_sources_many(ids)
    institutions = researcher_block_rows_many(INSTITUTIONS, ids)
    local = summary_reads.with_local_authorships(ids)
    return {
        r.pk: _summary(
            r,
            rows.get(r.pk, []),
            coauthors.get(r.pk, ([], [])),
            sources.get(r.pk, []),
            institutions.get(r.pk, []),
            local=not sources.get(r.pk) and r.pk in local,
        )
        for r in researchers
    }


# The first page of a researcher's list, newest first, is read from these kept ids (two
# pages' worth, so papers hidden since still leave a full page): ordering a busy
# researcher's thousands of papers by date took 200 ms cold at a million papers.
NEWEST_KEPT = 48


def _newest_ids(papers: list) -> list[int]:
    """Ids of the :data:`NEWEST_KEPT` newest of ``papers`` (AuthoredPaper rows, one per paper)
    as the list sorts them (``-submitted_at``: PostgreSQL puts a missing date first), and
    every paper tied with the last one's date, so ties the list breaks by arXiv identifier
    cannot leave one out; at most 4 x :data:`NEWEST_KEPT`."""
    newest = sorted(
        papers, key=lambda r: (r.submitted_at is None, r.submitted_at or _EPOCH, r.paper_id), reverse=True
    )
    if len(newest) <= NEWEST_KEPT:
        return [r.paper_id for r in newest]
    edge = newest[NEWEST_KEPT - 1].submitted_at
    kept = newest[:NEWEST_KEPT] + [r for r in newest[NEWEST_KEPT:] if r.submitted_at == edge]
    return [r.paper_id for r in kept[: 4 * NEWEST_KEPT]]


_EPOCH = datetime.min.replace(tzinfo=UTC)


def _summary(
    researcher: Researcher,
    rows: list,
    coauthors_and_links: tuple[list, list],
    sources: list[str],
    institutions: list,
    *,
    local: bool,
) -> dict[str, Any]:
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
    coauthors, links = coauthors_and_links
    return {
        "newest_ids": _newest_ids(papers),
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
        "institutions": institutions,
        "identity_sources": sources,
        "local": local,
    }


def _store(researcher: Researcher, data: dict[str, Any], log_through: int) -> None:
    summary_store(
        ResearcherSummary,
        researcher.pk,
        stamp_field="paper_count",
        stamp=researcher.paper_count,
        data=data,
        extra={"log_through": log_through},
    )


def researcher_summary(researcher: Researcher) -> dict[str, Any]:
    """The page aggregates of ``researcher`` (shape: :func:`summary_compute`).

    The stored row when it is of this version and its ``paper_count`` equals the
    researcher's (one query), else computed, stored and returned; under
    :data:`SUMMARY_MIN_PAPERS` papers (nothing to count) computed and not stored.
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
        log_through = search_log_last_id()
        data = summary_compute(researcher)
        _store(researcher, data, log_through)
    return data


def _eligible():
    return Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=SUMMARY_MIN_PAPERS)


# Researchers with a summary computed before one of their papers changed (a citation count,
# a new version's date or categories, hidden or deleted, its authorships moved: what the
# paper search log records, papers.models.SearchChange), among the log's entries of the last
# ``max_age`` (older rows are stale anyway).
# The log is read from the oldest row's position on (its primary key; an index gives the
# minimum), so a sweep with every row current reads no entry.
_PAPERS_CHANGED_SINCE = """
    SELECT a.researcher_id
      FROM papers_searchchange c
      JOIN researchers_authorship a ON a.paper_id = c.paper_id
      JOIN researchers_researchersummary s ON s.researcher_id = a.researcher_id
     WHERE c.id > (SELECT coalesce(min(log_through), 0) FROM researchers_researchersummary)
       AND c.changed_at >= %s AND c.id > s.log_through
"""


def summaries_stale(*, max_age: timedelta = SUMMARY_MAX_AGE):
    """Active researchers at :data:`SUMMARY_MIN_PAPERS` papers or more whose summary row is
    missing, of another version or ``paper_count``, older than ``max_age``, or computed
    before one of their papers changed (a citation count, an editor hiding it: the paper
    search log, :class:`papers.models.SearchChange`)."""
    cutoff = timezone.now() - max_age
    fresh = ResearcherSummary.objects.filter(computed_at__gte=cutoff, data__version=SUMMARY_VERSION)
    # NOT EXISTS, an anti-join: NOT IN over a million summaries outgrows the hash PostgreSQL
    # keeps in work_mem and probes the list once per researcher (minutes at a million).
    current = fresh.filter(researcher_id=OuterRef("pk"), paper_count=OuterRef("paper_count"))
    changed = RawSQL(_PAPERS_CHANGED_SINCE, [cutoff])  # noqa: S611 (no user input)
    unlogged = Q(summary__log_through__isnull=True)  # computed before the log was read
    return _eligible().filter(~Exists(current) | unlogged | Q(pk__in=changed))


def summaries_backlog() -> Backlog:
    """Researchers :func:`summaries_stale` holds (the pipeline's researcher-summaries stage)."""
    return Backlog(waiting=summaries_stale().count(), unit="researchers")


def summaries_refresh(
    *, researcher_ids: list[int] | None = None, max_age: timedelta = SUMMARY_MAX_AGE, workers: int = 1
) -> int:
    """Bring the stored summaries up to date; returns how many were computed.

    With ``researcher_ids``: those researchers (when active with at least
    :data:`SUMMARY_MIN_PAPERS` papers), whatever their rows say. Without: every active
    researcher at the threshold whose row is missing, of another version or
    ``paper_count``, or older than ``max_age``. Rows of researchers merged away or under the
    threshold are deleted. Each batch of :data:`researchers.summary_reads.BATCH` is read
    together and written in its own short statement, so a long refresh holds no long lock
    and an interruption loses only the batch in hand (run it again). With ``workers`` above
    1, that many batches are computed at once, each on its own connection
    (:func:`wove.bulk.batches_in_threads`): for a first load, whose hundreds of thousands of
    researchers wait on PostgreSQL's reads (``generate_corpus``).
    """
    eligible = _eligible()
    # A join, not NOT IN (a million ids): rows of researchers merged away or without papers.
    gone = Q(researcher__merged_into__isnull=False) | Q(researcher__paper_count__lt=SUMMARY_MIN_PAPERS)
    deleted, _ = ResearcherSummary.objects.filter(gone).delete()
    if researcher_ids is not None:
        todo = eligible.filter(pk__in=researcher_ids)
    else:
        todo = summaries_stale(max_age=max_age)
    researchers = todo.order_by("-paper_count", "pk").iterator(chunk_size=summary_reads.BATCH)
    done = batches_in_threads(_store_many, batched(researchers, summary_reads.BATCH), workers=workers)
    if done or deleted:
        logger.info("researcher summaries: %d computed, %d dropped", done, deleted)
    return done


def _store_many(researchers: Sequence[Researcher]) -> int:
    """Compute and upsert the summaries of ``researchers`` (a batch of :func:`wove.bulk.batched`,
    never empty) in one statement; how many."""
    log_through = search_log_last_id()
    summaries = summaries_compute_many(researchers)
    summary_store_many(
        ResearcherSummary,
        [(r.pk, r.paper_count, summaries[r.pk]) for r in researchers],
        stamp_field="paper_count",
        extra={"log_through": log_through},
    )
    return len(researchers)


__all__ = [
    "SUMMARY_MAX_AGE",
    "SUMMARY_MIN_PAPERS",
    "researcher_summary",
    "summaries_refresh",
    "summaries_compute_many",
    "summary_compute",
]
