"""Institution summaries: the aggregates of an institution's page, computed by the pipeline and kept.

At a million papers the largest institution holds over 100,000 author links, and its page
counted its papers, fields and researchers on every view (seconds). Every institution with
a link (:data:`SUMMARY_MIN_LINKS`) gets a :class:`institutions.models.InstitutionSummary`
row, read by the page as it stands (issue 28: pages from kept rows, never computed on a
request), refreshed by the pipeline's ``institutions.refresh_summaries`` stage when its
``link_count`` stamp differs from the institution's links or it is older than
:data:`SUMMARY_MAX_AGE`. An institution under :data:`SMALL_LINKS` links is computed in
two queries instead of five (its papers and researchers each read once: the same figures).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from papers.selectors import search_log_last_id
from wove.backlog import Backlog
from wove.summaries import summary_read, summary_read_kept, summary_store

from .models import AuthorAffiliation, Institution, InstitutionSummary
from .selectors import (
    fields_from_facts,
    institution_fields,
    institution_paper_facts,
    institution_papers,
    institution_researcher_count,
    institution_researcher_rows,
)

logger = logging.getLogger(__name__)

SUMMARY_MIN_LINKS = 1
# Under this many links the figures come from one read of the papers and one of the
# researchers (summary_compute(small=True)); above it, five aggregate queries.
SMALL_LINKS = 100
SUMMARY_MAX_AGE = timedelta(hours=6)
SUMMARY_VERSION = 3  # 3: researcher_count
# The first page's papers are kept as ids (two pages' worth, so papers hidden since the
# summary still leave a full first page).
NEWEST_KEPT = 48
RESEARCHERS_KEPT = 50


def link_count(institution: Institution) -> int:
    """Author slots linked to ``institution`` (the summary's stamp). One index-only count."""
    return AuthorAffiliation.objects.filter(institution=institution).count()


def summary_compute(institution: Institution, *, small: bool = False) -> dict[str, Any]:
    """The page aggregates of ``institution``, JSON-able: ``version``; ``paper_count``
    (public papers with a linked slot); ``fields`` (:func:`institutions.selectors.institution_fields`
    rows); ``researchers`` ``[[researcher_id, papers], ...]``
    (:func:`institutions.selectors.institution_researcher_rows`, at most 50) and
    ``researcher_count`` (all of them, :func:`institutions.selectors.institution_researcher_count`);
    ``newest_ids``: ids of the :data:`NEWEST_KEPT` newest papers, newest first (the first
    page of the list: sorting a small institution's papers by date walked the archive's date
    index). Five queries; with ``small`` (under :data:`SMALL_LINKS` links) two: the papers
    read once for their count, newest and fields, and every researcher row read once for
    the list and the count."""
    if small:
        facts = institution_paper_facts(institution)
        researchers = institution_researcher_rows(institution, limit=None)
        return {
            "version": SUMMARY_VERSION,
            "newest_ids": [pk for pk, _code, _name in facts[:NEWEST_KEPT]],
            "paper_count": len(facts),
            "fields": fields_from_facts(facts),
            "researchers": researchers[:RESEARCHERS_KEPT],
            "researcher_count": len(researchers),
        }
    return {
        "version": SUMMARY_VERSION,
        "newest_ids": list(institution_papers(institution).values_list("pk", flat=True)[:NEWEST_KEPT]),
        "paper_count": institution_papers(institution).order_by().count(),
        "fields": institution_fields(institution),
        "researchers": institution_researcher_rows(institution, limit=RESEARCHERS_KEPT),
        "researcher_count": institution_researcher_count(institution),
    }


def institution_summary(institution: Institution, *, links: int | None = None) -> dict[str, Any]:
    """The page aggregates of ``institution`` (shape: :func:`summary_compute`): the stored row
    when there is one of this version, as the pipeline's institution-summaries stage keeps it
    (:func:`summaries_refresh`, after every affiliations stage and sweep: a new link shows
    once it has run); else computed, and stored when the institution has a link.
    The row is read without counting the institution's links (issue 28: that count alone
    grew with the archive, 21 ms for an institution of 200,000 papers' links). ``links`` is
    :func:`link_count` when the caller has it (then the stamp is checked too)."""
    if links is None:
        kept = summary_read_kept(InstitutionSummary, institution.pk, version=SUMMARY_VERSION)
        if kept is not None:
            return kept
        links = link_count(institution)
    if links < SUMMARY_MIN_LINKS:
        return summary_compute(institution, small=True)
    data = summary_read(
        InstitutionSummary, institution.pk, stamp_field="link_count", stamp=links, version=SUMMARY_VERSION
    )
    if data is None:
        log_through = search_log_last_id()
        data = summary_compute(institution, small=links < SMALL_LINKS)
        _store(institution.pk, links, data, log_through)
    return data


def _store(pk: int, links: int, data: dict[str, Any], log_through: int) -> None:
    summary_store(
        InstitutionSummary,
        pk,
        stamp_field="link_count",
        stamp=links,
        data=data,
        extra={"log_through": log_through},
    )


# Institutions whose row was computed before a change of one of their linked papers: its
# authors matched (the researchers list), a paper hidden or its citations counted. The log
# is read from the oldest row's position on.
_PAPERS_CHANGED = """
    SELECT DISTINCT l.institution_id
      FROM papers_searchchange c
      JOIN papers_paperauthor s ON s.paper_id = c.paper_id
      JOIN institutions_authoraffiliation l ON l.slot_id = s.id
      JOIN institutions_institutionsummary i ON i.institution_id = l.institution_id
     WHERE c.id > (SELECT coalesce(min(log_through), 0) FROM institutions_institutionsummary)
       AND c.id > i.log_through
"""


def _changed_since_computed() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(_PAPERS_CHANGED)
        return {pk for (pk,) in cursor.fetchall()}


def _link_counts() -> dict[int, int]:
    """``{institution id: links}`` of institutions at :data:`SUMMARY_MIN_LINKS` links or more."""
    return dict(
        AuthorAffiliation.objects.values("institution_id")
        .annotate(n=Count("pk"))
        .filter(n__gte=SUMMARY_MIN_LINKS)
        .values_list("institution_id", "n")
    )


def summaries_stale(counts: dict[int, int], *, max_age: timedelta = SUMMARY_MAX_AGE) -> list[int]:
    """Ids (ascending) among ``counts`` (:func:`_link_counts`) whose row is missing, of another
    link count or version, older than ``max_age``, or computed before a change of one of
    their linked papers (the paper search log)."""
    rows = {
        r["institution_id"]: r
        for r in InstitutionSummary.objects.values(
            "institution_id", "link_count", "computed_at", "data__version", "log_through"
        )
    }
    oldest = timezone.now() - max_age
    changed = _changed_since_computed()
    stale = []
    for pk in sorted(counts):
        row = rows.get(pk)
        if (
            row is None
            or row["link_count"] != counts[pk]
            or row["computed_at"] < oldest
            or row["data__version"] != SUMMARY_VERSION
            or row["log_through"] is None
            or pk in changed
        ):
            stale.append(pk)
    return stale


def summaries_backlog() -> Backlog:
    """Institutions :func:`summaries_stale` holds (the pipeline's institution-summaries stage)."""
    return Backlog(waiting=len(summaries_stale(_link_counts())), unit="institutions")


def summaries_refresh(*, max_age: timedelta = SUMMARY_MAX_AGE) -> int:
    """Recompute the rows of institutions with :data:`SUMMARY_MIN_LINKS` link or more that are
    missing, stale (another link count or version) or older than ``max_age``; drop rows of
    institutions under the threshold. Returns how many were computed; idempotent."""
    counts = _link_counts()
    deleted, _ = InstitutionSummary.objects.exclude(institution_id__in=list(counts)).delete()
    done = 0
    # Read once, before any row is computed: a change logged meanwhile leaves its rows stale.
    log_through = search_log_last_id()
    for institution in Institution.objects.filter(pk__in=summaries_stale(counts, max_age=max_age)).order_by(
        "pk"
    ):
        links = counts[institution.pk]
        data = summary_compute(institution, small=links < SMALL_LINKS)
        _store(institution.pk, links, data, log_through)
        done += 1
    if done or deleted:
        logger.info("institution summaries: %d computed, %d dropped", done, deleted)
    return done
