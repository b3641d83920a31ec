"""OAI-PMH harvest runs with a cursor: resumable ListRecords, recorded files, the Kaggle dataset.

No network call happens inside a transaction: a page is fetched first, then written with its
resumptionToken in one transaction, so the saved cursor always matches the rows written.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import date, timedelta
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from wove.locks import advisory_lock
from wove.statistics import tables_settle

from .bulk import HarvestBusy, bulk_load, paper_indexes_restore
from .kaggle import iter_kaggle
from .models import HarvestRun, MetadataSource, Paper, PaperAuthor, PaperVersion
from .oai import OaiClient, OaiError, OaiPage, parse_oai_response
from .parse_ahead import parsed_pages
from .records import ArxivRecord, RecordError
from .upsert import BATCH_SIZE, CategoryMap, UpsertResult, papers_upsert

logger = logging.getLogger(__name__)

MAX_TOKEN_RESTARTS = 3


def _batched(items: Iterable, size: int) -> Iterator[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


# The run's cursor and counters, as they stood before a page: restored when the page's
# transaction fails (also at COMMIT), so the run is saved as failed on the page it did
# not write and a resumed run asks for that page again.
_CURSOR_FIELDS = (
    "pages",
    "records_seen",
    "records_written",
    "records_deleted",
    "records_skipped",
    "response_date",
    "resumption_token",
    "complete_list_size",
    "last_complete_datestamp",
    "datestamps_in_order",
)


def _write_page(
    run: HarvestRun, page: OaiPage, categories: CategoryMap, *, list_start: bool = False
) -> UpsertResult:
    before = {name: getattr(run, name) for name in _CURSOR_FIELDS}
    try:
        return _write_page_atomically(run, page, categories, list_start=list_start)
    except BaseException:
        for name, value in before.items():
            setattr(run, name, value)
        raise


def _write_page_atomically(
    run: HarvestRun, page: OaiPage, categories: CategoryMap, *, list_start: bool
) -> UpsertResult:
    total = UpsertResult()
    with transaction.atomic():
        for batch in _batched(page.records, BATCH_SIZE):
            total.add(papers_upsert(records=batch, categories=categories))
        total.skipped += len(page.errors)
        total.seen += len(page.errors)
        run.pages += 1
        run.records_seen += total.seen
        run.records_written += total.written
        run.records_deleted += total.deleted
        run.records_skipped += total.skipped
        if run.response_date is None and page.response_date:
            run.response_date = page.response_date
        run.resumption_token = page.resumption_token or ""
        if page.complete_list_size:
            run.complete_list_size = page.complete_list_size
        if run.kind == HarvestRun.Kind.OAI:
            _checkpoint_advance(run, page, list_start=list_start)
        run.save()
    for error in page.errors:
        logger.warning("harvest run %s skipped %s", run.pk, error)
    return total


def _checkpoint_advance(run: HarvestRun, page: OaiPage, *, list_start: bool) -> None:
    """Move ``run.last_complete_datestamp`` past a page just written (OAI-PMH day granularity).

    arXiv's OAI-PMH server (arXiv/oaipmh, ``fetch_list``) pages a list in datestamp order: a
    page ends on its newest day and the next page resumes from that day. So once a page is
    written, every day before its newest datestamp is complete, and only the newest day may
    continue on the next page: the last complete day is the newest datestamp minus one. A
    page holding a day at or before the last complete one shows a list not in datestamp
    order (a server that orders by identifier): then no day is known complete for the rest
    of the run (``datestamps_in_order`` false) and an expired token restarts the whole
    window. ``list_start``: the first page of a list restarted from the last complete day,
    which holds that day again by design.
    """
    days = [record.datestamp for record in page.records if record.datestamp]
    if not days or not run.datestamps_in_order:
        return
    complete = run.last_complete_datestamp
    if complete is not None and not list_start and min(days) <= complete:
        logger.warning(
            "harvest run %s: a page went back to %s, before the last complete day %s; "
            "this list is not in datestamp order",
            run.pk,
            min(days),
            complete,
        )
        run.datestamps_in_order = False
        run.last_complete_datestamp = None
        return
    newest_complete = max(days) - timedelta(days=1)
    run.last_complete_datestamp = max(newest_complete, complete) if complete else newest_complete


def _restart_day(run: HarvestRun) -> date | None:
    """Where a list restarts after its resumptionToken expired: the last complete day,
    inclusive (re-reading it is idempotent and covers a record the order inference missed),
    never before the window's ``from``; the window's ``from`` when no day is known complete."""
    day = run.last_complete_datestamp if run.datestamps_in_order else None
    if day is None or (run.from_date is not None and day < run.from_date):
        return run.from_date
    return day


def _refresh_statistics(run: HarvestRun) -> None:
    # After a bulk load the planner's row estimates are stale until autovacuum catches up;
    # join-heavy pages then pick nested loops over thousands of rows, and the GIN indexes'
    # pending lists (search words, categories) are read in full by every search. Refresh
    # both, and vacuum after a large load (the stages after it read every row).
    tables_settle([m._meta.db_table for m in (Paper, PaperAuthor, PaperVersion)], run.records_written)


def _finish(run: HarvestRun, status: str, error: str = "") -> HarvestRun:
    _refresh_statistics(run)
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.resumption_token = "" if status == HarvestRun.Status.COMPLETE else run.resumption_token
    run.save()
    return run


def next_from_date(*, metadata_prefix: str, set_spec: str = "") -> date | None:
    """Where the next incremental harvest starts: the day of the last complete run's
    ``responseDate`` (inclusive, OAI-PMH day granularity), or ``None`` for a first run."""
    last = (
        HarvestRun.objects.filter(
            kind=HarvestRun.Kind.OAI,
            status=HarvestRun.Status.COMPLETE,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            response_date__isnull=False,
        )
        .order_by("-response_date")
        .first()
    )
    return last.response_date.date() if last else None


def harvest_run_resumable(*, metadata_prefix: str, set_spec: str = "") -> HarvestRun | None:
    """The newest interrupted OAI run (running or failed, with a saved resumptionToken) for
    this request, which a new harvest resumes instead of starting over."""
    return (
        HarvestRun.objects.filter(
            kind=HarvestRun.Kind.OAI,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            status__in=[HarvestRun.Status.RUNNING, HarvestRun.Status.FAILED],
        )
        .exclude(resumption_token="")
        .order_by("-started_at")
        .first()
    )


def harvest_oai(
    *,
    client: OaiClient,
    metadata_prefix: str = "arXivRaw",
    from_date: date | None = None,
    until_date: date | None = None,
    set_spec: str = "",
    incremental: bool = True,
    progress=None,
) -> HarvestRun:
    """Harvest ListRecords from an OAI-PMH endpoint into papers, resumably.

    An interrupted run for the same prefix and set resumes from its saved resumptionToken.
    Otherwise a new run starts from ``from_date``, or, when ``incremental`` and no date is
    given, from the day of the last complete run's responseDate. ``badResumptionToken``
    (an expired token) restarts the list from the run's last complete datestamp, inclusive
    and with the window's own ``until`` (idempotent upserts make re-reading safe; see
    :func:`_checkpoint_advance`), sending the stale token no more, at most three times; a
    server error that outlasts the client's retries (503 with ``Retry-After``) fails the run
    with its token and last complete datestamp kept, the pages written so far committed;
    ``noRecordsMatch`` completes the run with nothing written; ``badArgument``
    and any other OAI error fail the run and are raised. ``progress(n)`` is called with
    the records seen per page.

    One harvest per prefix and set runs at a time (a PostgreSQL session advisory lock, freed
    by the server when a killed process's connection drops); runs still marked running
    once the lock is held were interrupted and are marked failed (kept resumable when they
    saved a token).

    Returns the finished :class:`HarvestRun`. Raises :class:`HarvestBusy` when another
    harvest of the same prefix and set holds the lock, :class:`OaiError` or
    ``httpx.HTTPError`` (the run is then saved as failed, its token kept for the next
    attempt).
    """
    if metadata_prefix not in ("arXiv", "arXivRaw"):
        raise ValueError(f"unsupported metadataPrefix {metadata_prefix!r}: use arXiv or arXivRaw")
    paper_indexes_restore()  # what a killed bulk load left dropped
    with _harvest_lock(metadata_prefix=metadata_prefix, set_spec=set_spec):
        _harvest_runs_mark_interrupted(metadata_prefix=metadata_prefix, set_spec=set_spec)
        return _harvest_oai_locked(
            client=client,
            metadata_prefix=metadata_prefix,
            from_date=from_date,
            until_date=until_date,
            set_spec=set_spec,
            incremental=incremental,
            progress=progress,
        )


@contextmanager
def _harvest_lock(*, metadata_prefix: str, set_spec: str) -> Iterator[None]:
    """Hold the session advisory lock of one (prefix, set) harvest; raise :class:`HarvestBusy`
    when another session holds it. A session lock, not a transaction lock: a harvest commits
    once per page. Taken through :func:`wove.locks.advisory_lock`, so it is released when the
    block ends, and by the server with the session if the connection is lost."""
    with advisory_lock(f"papers.harvest_oai:{metadata_prefix}:{set_spec}") as held:
        if not held:
            raise HarvestBusy(f"another {metadata_prefix} harvest of set {set_spec or '*'} is running")
        yield


def _harvest_runs_mark_interrupted(*, metadata_prefix: str, set_spec: str) -> int:
    """Mark runs left ``running`` by a dead process as failed; returns how many. Only called
    under the harvest lock, so no live harvest can own them."""
    return HarvestRun.objects.filter(
        kind=HarvestRun.Kind.OAI,
        metadata_prefix=metadata_prefix,
        set_spec=set_spec,
        status=HarvestRun.Status.RUNNING,
    ).update(
        status=HarvestRun.Status.FAILED,
        error="interrupted: its process stopped before the run finished",
    )


def _harvest_oai_locked(
    *,
    client: OaiClient,
    metadata_prefix: str,
    from_date: date | None,
    until_date: date | None,
    set_spec: str,
    incremental: bool,
    progress,
) -> HarvestRun:
    run = harvest_run_resumable(metadata_prefix=metadata_prefix, set_spec=set_spec)
    if (
        run is not None
        and (from_date or until_date)
        and (run.from_date, run.until_date) != (from_date, until_date)
    ):
        run = None  # an explicit, different window: do not resume the old one
    if run is None:
        if from_date is None and incremental:
            from_date = next_from_date(metadata_prefix=metadata_prefix, set_spec=set_spec)
        run = HarvestRun.objects.create(
            kind=HarvestRun.Kind.OAI,
            endpoint=client.endpoint,
            metadata_prefix=metadata_prefix,
            set_spec=set_spec,
            from_date=from_date,
            until_date=until_date,
        )
    else:
        logger.info("resuming harvest run %s from resumptionToken %s", run.pk, run.resumption_token)
        run.status = HarvestRun.Status.RUNNING
        run.save(update_fields=["status"])
    categories = CategoryMap()
    token = run.resumption_token or None
    list_from, list_start = run.from_date, token is None
    while True:
        try:
            for page in client.list_records(
                metadata_prefix=run.metadata_prefix,
                from_date=list_from,
                until_date=run.until_date,
                set_spec=run.set_spec or None,
                resumption_token=token,
            ):
                result = _write_page(run, page, categories, list_start=list_start)
                list_start = False
                if progress:
                    progress(result.seen)
            return _finish(run, HarvestRun.Status.COMPLETE)
        except OaiError as exc:
            if exc.code == "badResumptionToken" and run.restarts < MAX_TOKEN_RESTARTS:
                list_from, list_start, token = _restart_list(run), True, None
                continue
            _finish(run, HarvestRun.Status.FAILED, str(exc))
            raise
        except Exception as exc:
            _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
            raise


def _restart_list(run: HarvestRun) -> date | None:
    """After ``badResumptionToken`` (arXiv's tokens expire): forget the stale token, so it is
    never sent again, count the restart, log one warning, and return the day the new list
    starts from (:func:`_restart_day`). The run stays running: it is neither complete nor
    failed until the new list ends."""
    day = _restart_day(run)
    logger.warning(
        "harvest run %s: resumptionToken %r expired; restarting the list from %s (inclusive)",
        run.pk,
        run.resumption_token,
        day.isoformat() if day else "the start of the window",
    )
    run.restarts += 1
    run.resumption_token = ""
    run.save(update_fields=["restarts", "resumption_token"])
    return day


def _pages_inline(paths: Sequence[str | Path]) -> Iterator[OaiPage | OaiError]:
    for path in paths:
        try:
            yield parse_oai_response(str(path))
        except OaiError as exc:
            yield exc


def harvest_files(*, paths: Sequence[str | Path], progress=None, bulk: bool = False) -> HarvestRun:
    """Load recorded OAI-PMH responses (ListRecords or GetRecord pages) from files.

    Each file is one page; the metadataPrefix is read from each response. A file that is
    an OAI error (``noRecordsMatch``) counts as an empty page; one that is not OAI-PMH at
    all fails the run. Returns the finished :class:`HarvestRun`.

    ``bulk`` is for large and initial loads: pages are parsed in a child process one page
    ahead of the one being written (:func:`papers.parse_ahead.parsed_pages`), the secondary
    indexes of papers, author slots and versions are dropped for the load and rebuilt once
    at its end, and commits do not wait for the WAL flush (see :func:`papers.bulk.bulk_load`). The
    rows written are the same as without it. It rebuilds whole indexes, so on a table
    already much larger than the load it is slower, not faster. Raises
    :class:`HarvestBusy` when another bulk load is running.
    """
    paper_indexes_restore()  # what a killed bulk load left dropped
    run = HarvestRun.objects.create(
        kind=HarvestRun.Kind.FILE,
        metadata_prefix="mixed",
        source_files=[str(p) for p in paths],
    )
    categories = CategoryMap()
    prefixes = set()
    try:
        with bulk_load(run) if bulk else nullcontext():
            for page in parsed_pages(paths) if bulk else _pages_inline(paths):
                if isinstance(page, OaiError):
                    if page.code == "noRecordsMatch":
                        continue
                    raise page
                if page.metadata_prefix:
                    prefixes.add(page.metadata_prefix)
                result = _write_page(run, page, categories)
                if progress:
                    progress(result.seen)
    except Exception as exc:
        _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    run.metadata_prefix = ",".join(sorted(prefixes)) or "none"
    run.resumption_token = ""
    return _finish(run, HarvestRun.Status.COMPLETE)


def records_in_files(paths, marker: bytes) -> int:
    """How many times ``marker`` occurs in the files at ``paths`` (``b"<record>"`` in OAI-PMH
    pages, ``b"\\n"`` in a Kaggle JSON Lines snapshot): a progress bar's total (its rate and
    ETA), and the size :func:`harvest_kaggle` decides bulk by. A byte scan 16 MB at a time
    (about a second a gigabyte), never a parse. Raises ``FileNotFoundError`` for a missing
    file."""
    found = 0
    for path in paths:
        tail = b""
        with open(path, "rb") as stream:
            while chunk := stream.read(1 << 24):
                block = tail + chunk
                found += block.count(marker)
                # A marker cut by the chunk boundary is counted in the next block; one wholly
                # inside the kept tail was counted already, and a tail shorter than the
                # marker cannot hold one.
                tail = block[-(len(marker) - 1) :] if len(marker) > 1 else b""
    return found


def _larger_than_archive(path: str | Path) -> bool:
    """Whether the JSON Lines file at ``path`` has more lines than the archive live papers
    (the file counted by :func:`records_in_files`, the papers only up to that many). Raises
    ``FileNotFoundError``."""
    lines = records_in_files([path], b"\n")
    return Paper.objects.filter(deleted=False)[: lines + 1].count() < lines


def harvest_kaggle(
    *, path: str | Path, progress=None, batch_size: int = 1000, bulk: bool | None = None
) -> HarvestRun:
    """Load the Kaggle arXiv dataset (JSON Lines) in constant memory.

    Lines are parsed and written in batches of ``batch_size``; a bad line is logged and
    counted as skipped. Returns the finished :class:`HarvestRun`.

    ``bulk`` as in :func:`harvest_files` (secondary indexes dropped for the load and rebuilt
    once, commits not waiting for the WAL flush; the same rows). ``None`` (the default)
    decides by size: bulk when the archive holds fewer live papers than the snapshot has
    lines (a first load, or one that at least doubles the archive: one rebuild of each index
    is then cheaper than keeping it through the load). Raises :class:`HarvestBusy` when
    another bulk load is running.
    """
    paper_indexes_restore()  # what a killed bulk load left dropped
    if bulk is None:
        bulk = _larger_than_archive(path)
    run = HarvestRun.objects.create(
        kind=HarvestRun.Kind.KAGGLE, metadata_prefix=MetadataSource.KAGGLE, source_files=[str(path)]
    )
    categories = CategoryMap()
    try:
        with bulk_load(run) if bulk else nullcontext(), open(path, "rb") as stream:
            for batch in _batched(iter_kaggle(stream), batch_size):
                page = OaiPage(
                    records=[r for r in batch if isinstance(r, ArxivRecord)],
                    errors=[r for r in batch if isinstance(r, RecordError)],
                )
                result = _write_page(run, page, categories)
                if progress:
                    progress(result.seen)
    except Exception as exc:
        _finish(run, HarvestRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    run.resumption_token = ""
    return _finish(run, HarvestRun.Status.COMPLETE)
