"""Signing papers' records, batch by batch: what waits to be signed, and one batch's records,
receipts, ``record_created`` and ``graph_snapshot`` events built from pre-serialised
templates (:mod:`provenance.fast_builders`) and written by ``COPY``. The loop over batches
is :func:`provenance.services.records_sign`; split from ``services.py`` by job."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Count, Exists, F, Min, OuterRef, Q
from django.db.models.expressions import RawSQL

from papers.models import Paper
from wove.backlog import Backlog
from wove.bulk import copy_upsert, gc_paused, int_array, unnested

from .builders import EVENT_TARGETS, graph_snapshot_payload
from .fast_builders import PaperParts, SigningTemplates
from .keys import Signer
from .models import Event, PaperSigning, PublicKey, Record
from .rows import EVENT_COLUMNS, RECORD_COLUMNS, CopyLines, chain_tips, insert_copy_lines, lock_papers
from .selectors import authorships_unsigned_backlog

log = logging.getLogger(__name__)


@dataclass
class SignResult:
    """Counts of one signing run."""

    papers_checked: int = 0
    papers_signed: int = 0
    records_created: int = 0
    events_created: int = 0
    papers_skipped: int = 0
    papers_busy: int = 0
    deletions_recorded: int = 0

    def add(self, other: SignResult) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        line = (
            f"{self.papers_checked} papers checked, {self.papers_signed} signed, "
            f"{self.records_created} records and {self.events_created} events created, "
            f"{self.papers_skipped} skipped, {self.papers_busy} busy elsewhere"
        )
        # Deletions are rare (arXiv deletes a handful of records): named only when there are some.
        return f"{line}, {self.deletions_recorded} deletions recorded" if self.deletions_recorded else line


def papers_to_sign():
    """Papers whose current ``content_hash`` has not been signed yet (deleted ones excluded)."""
    return Paper.objects.filter(
        deleted=False, submitted_at__isnull=False, primary_category__isnull=False
    ).filter(Q(signing__isnull=True) | ~Q(signing__content_hash=F("content_hash")))


def papers_deletion_unrecorded():
    """Deleted papers (an OAI-PMH header with ``status="deleted"``) that have a signed record
    but no ``deleted`` event on any of their records yet: :func:`deletions_sign` appends one."""
    return Paper.objects.filter(
        Exists(Record.objects.filter(paper=OuterRef("pk"))),
        ~Exists(Event.objects.filter(record__paper=OuterRef("pk"), event_type="deleted")),
        deleted=True,
    )


def signing_backlog() -> Backlog:
    """Papers :func:`papers_to_sign` and :func:`papers_deletion_unrecorded` hold, and signed
    papers with an authorship whose current state waits for its ``authorship_matched``
    event (:func:`provenance.selectors.authorships_unsigned_backlog`: an editor's decision,
    say), with the oldest one's change time (the pipeline's signing stage, as
    ``pipeline_status`` reports it). Three aggregate queries."""
    rows = [
        queryset.aggregate(n=Count("pk"), oldest=Min("modified_at"))
        for queryset in (papers_to_sign(), papers_deletion_unrecorded())
    ]
    links, links_oldest = authorships_unsigned_backlog()
    rows.append({"n": links, "oldest": links_oldest})
    oldest = [row["oldest"] for row in rows if row["n"] and row["oldest"]]
    return Backlog(waiting=sum(row["n"] for row in rows), oldest=min(oldest) if oldest else None)


@dataclass(slots=True)
class _PaperRow:
    """The fields of a paper that signing reads (plain values: no model instances, for speed)."""

    id: int
    arxiv_id: str
    title: str
    abstract: str
    authors_text: str
    license: str
    primary_category_id: str
    categories: list[str]
    submitted_at: str  # builders.iso_seconds form, ``2008-02-04T15:05:55Z``
    latest_version: int
    content_hash: str
    versions: list[tuple[int, str | None]]
    authors: list[tuple[int, str]]


_PAPER_FIELDS = (
    "id",
    "arxiv_id",
    "title",
    "abstract",
    "authors_text",
    "license",
    "primary_category_id",
    "categories",
    "submitted_at",
    "latest_version",
    "content_hash",
)


def _any_of(ids: Sequence[int]) -> RawSQL:
    """The right side of an ``__in`` lookup on many ids, sent as one array parameter.

    A list of ids sends one parameter per id: Django's lookup preparation and psycopg's
    splitting of 500 placeholders cost about a signature per record. One array literal
    (:func:`wove.bulk.int_array`) is adapted at once.
    """
    return unnested(int_array(ids))


# builders.iso_seconds in SQL: whole seconds (truncated) in UTC; FM leaves the year unpadded,
# as strftime's %Y. Timestamps read as text skip psycopg's datetime parsing and the formatting
# back (a fifth of a signature per record).
_ISO_SECONDS_SQL = """to_char({} AT TIME ZONE 'UTC', 'FMYYYY-MM-DD"T"HH24:MI:SS"Z"')"""


def _paper_rows(ids: Sequence[int]) -> list[_PaperRow]:
    """Papers still needing signing among ``ids``, with versions and author slots: one query.

    Versions and author slots come as arrays per paper, and the rows through the cursor, not
    ``values_list``: the ORM's per-row work on ~4 rows a paper cost two signatures' worth per
    record. The filter is :func:`papers_to_sign`'s own SQL.
    """
    wanted, params = papers_to_sign().filter(id__in=_any_of(ids)).values("id").query.sql_with_params()
    quote = connection.ops.quote_name
    columns = ", ".join(
        _ISO_SECONDS_SQL.format("p.submitted_at") if f == "submitted_at" else f"p.{quote(f)}"
        for f in (Paper._meta.get_field(name).column for name in _PAPER_FIELDS)
    )
    versions = "FROM papers_paperversion v WHERE v.paper_id = p.id"
    authors = "FROM papers_paperauthor a WHERE a.paper_id = p.id"
    sql = (
        f"SELECT {columns},"  # noqa: S608 (names from the model and constants; values are parameters)
        f" (SELECT array_agg(v.version ORDER BY v.version) {versions}),"
        f" (SELECT array_agg({_ISO_SECONDS_SQL.format('v.submitted_at')} ORDER BY v.version) {versions}),"
        f" (SELECT array_agg(a.position ORDER BY a.position) {authors}),"
        f" (SELECT array_agg(a.name ORDER BY a.position) {authors})"
        f" FROM {quote(Paper._meta.db_table)} p WHERE p.id IN ({wanted}) ORDER BY p.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        _PaperRow(
            *row[:-4],
            versions=list(zip(row[-4], row[-3], strict=True)) if row[-4] else [],
            authors=list(zip(row[-2], row[-1], strict=True)) if row[-2] else [],
        )
        for row in rows
    ]


def _paper_versions(paper: _PaperRow) -> list[tuple[int, str]]:
    """``(version, submitted_at)`` pairs; without a version history, the latest version at v1's time."""
    versions = []
    for version, moment in paper.versions:
        moment = moment or (paper.submitted_at if version == 1 else None)
        if moment is not None:
            versions.append((version, moment))
    if not versions:
        versions = [(paper.latest_version or 1, paper.submitted_at)]
    return sorted(versions)


def _snapshot(paper: _PaperRow, source: dict, submitted_at: str) -> dict:
    return graph_snapshot_payload(
        source=source,
        title=paper.title,
        license=paper.license,
        primary_cat=paper.primary_category_id,
        categories=paper.categories,
        authors_text=paper.authors_text,
        authors=paper.authors,
        submitted_at=submitted_at,
        abstract=paper.abstract,
    )


def sign_batch(
    ids: Sequence[int], signer: Signer, key_row: PublicKey, signer_id: str, now: datetime
) -> SignResult:
    """Sign one batch of papers in one transaction: lock them (papers another signer holds are
    counted busy), build each one's new records and events from what it already has, and
    write them by COPY with the papers' :class:`PaperSigning` rows. A paper that fails is
    logged and skipped (its lines dropped), never the batch. Returns the batch's counts."""
    result = SignResult()
    with gc_paused(), transaction.atomic():
        locked = lock_papers(ids, wait=False)
        result.papers_busy = len(ids) - len(locked)
        papers = _paper_rows(locked) if locked else []
        result.papers_checked = len(papers)
        if not papers:
            return result
        history = _batch_history([p.id for p in papers])

        templates = SigningTemplates(signer, signer_id=signer_id, now=now)
        rows = CopyLines(key_row, now)
        for paper in papers:
            before = (len(rows.records), len(rows.events))
            try:
                _paper_sign(paper, templates, history, rows)
            except Exception:  # one bad paper is logged and skipped, never the batch
                log.exception("provenance: cannot sign paper %s (%s)", paper.id, paper.arxiv_id)
                del rows.records[before[0] :]
                del rows.events[before[1] :]
                result.papers_skipped += 1
                continue
            if (len(rows.records), len(rows.events)) != before:
                result.papers_signed += 1
            rows.signed.append((paper.id, paper.content_hash, now))

        result.records_created = insert_copy_lines(Record, RECORD_COLUMNS, rows.records)
        result.events_created = insert_copy_lines(Event, EVENT_COLUMNS, rows.events)
        copy_upsert(
            model=PaperSigning,
            fields=["paper", "content_hash", "signed_at"],
            rows=rows.signed,
            conflict_fields=["paper"],
            update_fields=["content_hash", "signed_at"],
            # No paper of the batch has a record yet: signed for the first time (a first load's
            # every batch), so their rows are inserted straight.
            new=not history.records_by_paper,
        )
    return result


@dataclass(slots=True)
class _BatchHistory:
    """What a batch's papers have signed already: their records by paper and version (oldest
    first), the chain tips by ``(record sha, target)``, the ``graph_snapshot`` tips by record
    sha, and those tips' payloads by event sha."""

    records_by_paper: dict[int, dict[int, list[dict]]]
    tips: dict[tuple[str, str], dict]
    graph_tips: dict[str, dict]
    tip_payloads: dict[str, dict]


def _batch_history(paper_ids: list[int]) -> _BatchHistory:
    """Read :class:`_BatchHistory` for ``paper_ids``: one query for records, and (only when
    there are any) one for their events and one for the graph tips' payloads."""
    records_by_paper: dict[int, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for rec in (
        Record.objects.filter(paper_id__in=_any_of(paper_ids))
        .order_by("created_at", "canonical_sha256")
        .values("canonical_sha256", "paper_id", "source_version", "pith_number")
    ):
        records_by_paper[rec["paper_id"]][rec["source_version"]].append(rec)
    # Papers signed for the first time (the bulk of a large run) have no events to read.
    record_shas = [
        r["canonical_sha256"] for by_v in records_by_paper.values() for rs in by_v.values() for r in rs
    ]
    tips = (
        chain_tips(
            Event.objects.filter(record_id__in=record_shas).values(
                "content_sha256", "record_id", "target", "prev_event", "created_at", "event_type"
            )
        )
        if record_shas
        else {}
    )
    graph_tips = {key[0]: tip for key, tip in tips.items() if key[1] == EVENT_TARGETS["graph_snapshot"]}
    tip_payloads = (
        dict(
            Event.objects.filter(
                content_sha256__in=[t["content_sha256"] for t in graph_tips.values()]
            ).values_list("content_sha256", "content__payload")
        )
        if graph_tips
        else {}
    )
    return _BatchHistory(records_by_paper, tips, graph_tips, tip_payloads)


def _paper_sign(
    paper: _PaperRow, templates: SigningTemplates, history: _BatchHistory, rows: CopyLines
) -> None:
    """Add one paper's new records and events to ``rows``: for each version without a record,
    and for the latest version when its record changed, a record and its ``record_created``
    and ``graph_snapshot`` events (superseding the version's or the previous version's
    ``record_created``); for an unchanged latest record, a snapshot only when what the
    archive shows changed (:func:`_snapshot_if_changed`)."""
    versions = _paper_versions(paper)
    latest = versions[-1][0]
    by_version = history.records_by_paper.get(paper.id, {})
    previous_created: str | None = None  # record_created id of the previous version
    parts = None
    for version, submitted in versions:
        existing = by_version.get(version, [])
        if existing and version != latest:
            tip = history.tips.get((existing[-1]["canonical_sha256"], "record"))
            previous_created = f"sha256:{tip['content_sha256']}" if tip else previous_created
            continue
        if parts is None:  # once per paper, for all its versions
            parts = SigningTemplates.paper_parts(
                arxiv_id=paper.arxiv_id,
                license=paper.license,
                primary_cat=paper.primary_category_id,
                categories=paper.categories,
                title=paper.title,
                abstract=paper.abstract,
                authors_text=paper.authors_text,
                authors=paper.authors,
            )
        record = templates.record(parts, version=version, submitted_at=submitted)
        if existing:
            current = existing[-1]
            tip = history.tips.get((current["canonical_sha256"], "record"))
            current_created = f"sha256:{tip['content_sha256']}" if tip else None
            if any(r["canonical_sha256"] == record.sha256 for r in existing):
                _snapshot_if_changed(paper, parts, current, version, submitted, templates, history, rows)
                continue
            supersedes = [current_created] if current_created else []
        else:
            supersedes = [previous_created] if previous_created else []
        receipt, created = templates.record_created(parts, record, version=version, supersedes=supersedes)
        rows.add_record(paper, version, record, receipt)
        rows.add_event(record.sha256, "record_created", created)
        rows.add_event(
            record.sha256,
            "graph_snapshot",
            templates.graph_snapshot(
                parts, pith_number=record.pith_number, version=version, submitted_at=submitted
            ),
        )
        previous_created = created.event_id


def _without_author_claims(payload: dict | None) -> dict | None:
    """A graph snapshot payload without its ``author_claims`` block (issue 31,
    :mod:`provenance.attestations`): the block is not what the archive shows of the paper,
    so a snapshot differing only there is not a change for signing."""
    snapshot = (payload or {}).get("graph_snapshot")
    if not isinstance(snapshot, dict) or "author_claims" not in snapshot:
        return payload
    return {**payload, "graph_snapshot": {k: v for k, v in snapshot.items() if k != "author_claims"}}


def _snapshot_if_changed(
    paper: _PaperRow,
    parts: PaperParts,
    current: dict,
    version: int,
    submitted: str,
    templates: SigningTemplates,
    history: _BatchHistory,
    rows: CopyLines,
) -> None:
    """Unchanged record: a new ``graph_snapshot`` of ``current`` (extending its graph chain)
    only when what the archive shows changed since the chain's tip."""
    source = {"kind": "arxiv", "id": paper.arxiv_id, "version": version}
    snapshot = _snapshot(paper, source, submitted)
    graph_tip = history.graph_tips.get(current["canonical_sha256"])
    tip_payload = history.tip_payloads.get(graph_tip["content_sha256"]) if graph_tip else None
    if graph_tip is None or _without_author_claims(tip_payload) != snapshot:
        prev = f"sha256:{graph_tip['content_sha256']}" if graph_tip else None
        rows.add_event(
            current["canonical_sha256"],
            "graph_snapshot",
            templates.graph_snapshot(
                parts,
                pith_number=current["pith_number"],
                version=version,
                submitted_at=submitted,
                prev_event=prev,
                supersedes=[prev] if prev else [],
            ),
        )
