"""Matching author slots to researchers, the whole run (registries, then local evidence) and its upkeep."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, Min, OuterRef

from papers.models import Paper, PaperAuthor
from wove.backlog import Backlog
from wove.locks import advisory_xact_lock
from wove.statistics import tables_settle

from .clients import fetch_works
from .clients.base import SourceUnavailable
from .evidence import (
    authorships_evidence_write,
    authorships_unconfirmed_refresh,
    cluster_evidence,
    researcher_clusters,
)
from .matching_common import MATCH_LOCK, MATCHED_TABLES, MatchSummary
from .matching_local import pending_by_block, researchers_match_local
from .matching_sources import researchers_attach_from_source
from .models import (
    Authorship,
    ExternalIdentity,
    MatchMethod,
    Researcher,
    SlotReview,
)
from .orcid import normalize_orcid
from .records import SourceWork

logger = logging.getLogger(__name__)


def unmatched_slots():
    """Person slots of visible papers without an authorship, newest paper first; slots left
    for an editor (:class:`SlotReview`) are not waiting for the matcher."""
    has = Authorship.objects.filter(slot=OuterRef("pk"))
    in_review = SlotReview.objects.filter(slot=OuterRef("pk"))
    return (
        PaperAuthor.objects.filter(is_collaboration=False, paper__deleted=False)
        .exclude(Exists(has))
        .exclude(Exists(in_review))
        .order_by("-paper__submitted_at", "-paper__arxiv_id", "position")
    )


def authors_backlog() -> Backlog:
    """Papers with a person slot :func:`unmatched_slots` holds, and the oldest one's change
    time (the pipeline's authors stage)."""
    row = (
        unmatched_slots()
        .order_by()
        .aggregate(n=Count("paper_id", distinct=True), oldest=Min("paper__modified_at"))
    )
    return Backlog(waiting=row["n"], oldest=row["oldest"])


def researchers_match_authors(
    *,
    sources: list[str] | None = None,
    fetch: Callable[[str, list[str]], Iterable[SourceWork]] | None = None,
    batch_size: int = 100,
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> MatchSummary:
    """Match every unmatched author slot, newest paper first: sources, then local evidence.

    ``sources`` lists enabled registries (``IdentitySource`` values; default
    ``settings.RESEARCHER_SOURCES``, empty in local runs so the demo never touches the
    network). ``fetch(source, arxiv_ids)`` yields :class:`SourceWork` records for a batch
    of papers (default: :func:`researchers.clients.fetch_works`, network calls made outside
    any transaction). Papers no source answers for fall back to
    :func:`researchers_match_local`. Returns a :class:`MatchSummary`.
    """
    started = time.perf_counter()
    summary = MatchSummary()
    summary.collaborations_skipped = PaperAuthor.objects.filter(
        is_collaboration=True, paper__deleted=False
    ).count()
    sources = list(settings.RESEARCHER_SOURCES if sources is None else sources)
    if sources:
        if fetch is None:
            fetch = fetch_works
        paper_ids = list(
            Paper.objects.filter(deleted=False)
            .filter(Exists(unmatched_slots().filter(paper=OuterRef("pk"))))
            .order_by("-submitted_at", "-arxiv_id")
            .values_list("arxiv_id", flat=True)[: limit or None]
        )
        failed: set[str] = set()
        for start in range(0, len(paper_ids), batch_size):
            batch = paper_ids[start : start + batch_size]
            for source in sources:
                if source in failed:
                    continue
                try:
                    works = list(fetch(source, batch))  # network, outside any transaction
                except SourceUnavailable as exc:
                    # Local matching still covers these papers; the source is retried next run.
                    logger.warning("%s unavailable, not consulted for the rest of this run: %s", source, exc)
                    failed.add(source)
                    continue
                for work in works:
                    try:
                        summary.matched_by_source += researchers_attach_from_source(
                            work=work, summary=summary
                        )
                        if work.cited_by_count is not None:
                            summary.papers_with_citations += 1
                    except Paper.DoesNotExist:
                        logger.warning("%s answered for unknown paper %s", source, work.arxiv_id)
            if progress:
                progress(len(batch))
    _match_local_in_chunks(summary, limit=limit, progress=progress)
    summary.papers = len(summary.paper_ids)
    summary.slots += summary.matched_by_source
    summary.evidence_backfilled = authorships_evidence_backfill()  # links older than issue 20
    # Vacuumed once, after every chunk and the backfill: their updates would clear the
    # visibility map a vacuum per chunk set (half the authorships' pages at 100 k papers).
    tables_settle(
        MATCHED_TABLES, summary.matched_locally + summary.matched_by_source + summary.evidence_backfilled
    )
    summary.seconds = time.perf_counter() - started
    return summary


def _match_local_in_chunks(
    summary: MatchSummary, *, limit: int | None, progress: Callable[[int], None] | None
) -> None:
    """Local matching (:func:`researchers_match_local`) of the pending slots (at most
    ``limit``, the newest) in chunks of about ``settings.RESEARCHER_MATCH_CHUNK`` slots
    (50,000) that never split a name block (:func:`pending_by_block`), the counts added to
    ``summary``: memory stays bounded on a large archive, and a first load is clustered as
    one run would cluster it."""
    chunk = max(1, int(getattr(settings, "RESEARCHER_MATCH_CHUNK", 50_000)))
    for number, slot_ids in enumerate(pending_by_block(chunk, limit=limit)):
        # Statistics after the first chunk only (tables that were empty look empty to the
        # planner); the planner scales them by the tables' size, and the stage refreshes them
        # after the last chunk: an ANALYZE per chunk cost 7 of 73 s at 100 k papers.
        local = researchers_match_local(slot_ids=slot_ids, settle=number == 0, progress=progress)
        summary.paper_ids |= local.paper_ids
        summary.slots += local.slots
        summary.matched_locally += local.matched_locally
        summary.researchers_created += local.researchers_created
        summary.left_for_review += local.left_for_review


# Authorships per backfill transaction: each reads the whole of its researchers' slots.
EVIDENCE_BACKFILL_BATCH = 5_000


def _registry_evidence(rows: list[tuple]) -> dict[int, list[dict]]:
    """Evidence of registry and editor links written before issue 20, rebuilt from what the
    researcher holds: its ORCID iD (method ``orcid``), its id in the authorship's source
    (``external_id``), ``{"kind": "editor"}`` (``editor``). ``rows`` are ``(slot id,
    researcher id, method, source, block, name)``; a link whose id is gone keeps its name."""
    researcher_ids = {row[1] for row in rows}
    orcids = dict(Researcher.objects.filter(pk__in=researcher_ids).values_list("pk", "orcid"))
    ids: dict[tuple[int, str], str] = {}
    for rid, src, ext in (
        ExternalIdentity.objects.filter(researcher_id__in=researcher_ids)
        .order_by("researcher_id", "source", "external_id")
        .values_list("researcher_id", "source", "external_id")
    ):
        ids.setdefault((rid, src), ext)
    out: dict[int, list[dict]] = {}
    for slot_id, rid, method, source, block, name in rows:
        if method == MatchMethod.EDITOR:
            out[slot_id] = [{"kind": "editor"}]
        elif method == MatchMethod.ORCID and orcids.get(rid):
            out[slot_id] = [{"kind": "orcid", "orcid": orcids[rid], "source": source}]
        elif (rid, source) in ids:
            out[slot_id] = [{"kind": "external_id", "source": source, "id": ids[(rid, source)]}]
        else:
            out[slot_id] = [{"kind": "name", "name": name, "block": block}]
    return out


_NO_EVIDENCE_SQL = """
    SELECT a.slot_id, a.researcher_id, a.method, a.source, a.block, s.name
      FROM researchers_authorship a JOIN papers_paperauthor s ON s.id = a.slot_id
     WHERE a.evidence = '[]'::jsonb
     ORDER BY a.researcher_id, a.slot_id
     LIMIT %s
"""


def authorships_evidence_backfill(*, batch_size: int = EVIDENCE_BACKFILL_BATCH) -> int:
    """Fill ``evidence`` (and then ``unconfirmed``) of authorships written before issue 20,
    ``batch_size`` at a time, each batch its own transaction under the matcher's lock, until
    none is left; :func:`researchers_match_authors` runs it after every match, so an archive
    fills itself unattended and a fresh one has nothing to do (one indexed query).

    Local links are explained by the researcher's slots as they are now
    (:func:`researchers.evidence.researcher_clusters`, :func:`~researchers.evidence.cluster_evidence`),
    registry links by the ids the researcher holds (:func:`_registry_evidence`): the ids the
    registry gave then are not stored. Returns the number of authorships filled.
    """
    filled = 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            advisory_xact_lock(MATCH_LOCK)
            cursor.execute(_NO_EVIDENCE_SQL, [batch_size])
            rows = cursor.fetchall()
            if not rows:
                return filled
            local = [row for row in rows if row[2] == MatchMethod.LOCAL]
            signals = _registry_evidence([row for row in rows if row[2] != MatchMethod.LOCAL])
            wanted = {row[0] for row in local}
            for members in researcher_clusters(row[1] for row in local).values():
                signals.update(cluster_evidence(members, wanted.intersection(m.slot_id for m in members)))
            for slot_id, _rid, _method, _source, block, name in local:
                signals.setdefault(slot_id, [{"kind": "name", "name": name, "block": block}])
            authorships_evidence_write(signals)
            authorships_unconfirmed_refresh(blocks={row[4] for row in rows})
        filled += len(rows)
        if len(rows) < batch_size:
            return filled


def researcher_set_orcid(*, researcher: Researcher, orcid: str) -> Researcher:
    """Give a researcher its ORCID iD (any accepted input form), validated and normalised.

    Raises :class:`researchers.orcid.InvalidOrcid` for a bad iD and ``ValueError`` when the
    researcher already has a different iD or another researcher holds this one.
    """
    value = normalize_orcid(orcid)
    if researcher.orcid and researcher.orcid != value:
        raise ValueError(f"researcher {researcher.pk} already has ORCID iD {researcher.orcid}")
    if Researcher.objects.filter(orcid=value).exclude(pk=researcher.pk).exists():
        raise ValueError(f"ORCID iD {value} belongs to another researcher")
    researcher.orcid = value
    researcher.save(update_fields=["orcid", "modified_at"])
    return researcher


__all__ = [
    "authors_backlog",
    "authorships_evidence_backfill",
    "researcher_set_orcid",
    "researchers_match_authors",
    "unmatched_slots",
]
