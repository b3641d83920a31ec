"""The pipeline's stage order: harvest → affiliations → authors → search index → signing →
summaries → archive facts → digests, and beside them embeddings → archive facts (the one
module that composes every app's stage).

Each stage's work lives in its own app (``<app>/tasks.py``: a ``*_stage`` function and the
Celery task that runs it); every stage reads what is pending from the database, holds its
lock and is idempotent (:func:`wove.stages.stage_execute`). Two triggers send the stages:
every harvest's end (:data:`papers.signals.harvest_finished`) and beat's sweep
(``wove.sweep_pipeline``), which picks up whatever a failed or lost message left. Celery
sends them as two chains of immutable signatures side by side, each task routed to its
stage's queue (``CELERY_TASK_ROUTES``): the embeddings read only titles and abstracts, so
they start with the harvest's end instead of waiting behind the matching and signing, and
nothing else waits behind them (issue 29: hours of model time for a snapshot harvest, on
cores the other stages leave idle part of the time). Without a worker a command runs the
same stage functions one after another, in ``STAGES`` order, in its own process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from celery import chain, group
from celery.canvas import Signature
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.services import digests_backlog
from accounts.tasks import digests_stage
from institutions.selectors import affiliations_backlog
from institutions.summaries import summaries_backlog as institution_summaries_backlog
from institutions.tasks import affiliations_stage, institution_summaries_stage
from pages.facts import archive_facts_backlog
from pages.tasks import archive_facts_stage
from papers.models import HarvestRun
from papers.signals import harvest_finished
from papers.tasks import search_index_backlog, search_index_stage
from provenance.signing import signing_backlog
from provenance.tasks import signing_stage
from researchers.services import authors_backlog
from researchers.summaries import summaries_backlog as researcher_summaries_backlog
from researchers.tasks import authors_stage, researcher_summaries_stage
from semantic.services import embeddings_backlog
from semantic.tasks import embeddings_stage

from .backlog import Backlog
from .celery import app as celery_app
from .locks import lock_held_elsewhere
from .models import StageRun
from .stages import FAILING_AFTER

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stage:
    """One stage: its ``name`` (the run log's and the lock's), the Celery ``task`` that runs
    it, the ``run`` function the task and the inline pipeline call (keyword ``trigger`` and
    ``progress``), what it waits for (``backlog``), the ``unit`` its progress counts and
    ``done``, the key of its run counts that says how many of those a run worked off (for the
    rate and the estimated time to empty its backlog), and whether it runs ``beside`` the
    main chain (on the workers; inline it keeps its place in ``STAGES``)."""

    name: str
    task: str
    run: Callable[..., dict]
    backlog: Callable[[], Backlog]
    unit: str = "paper"
    done: str = ""
    beside: bool = False

    @property
    def queue(self) -> str:
        """The Celery queue the task is routed to (``CELERY_TASK_ROUTES``)."""
        return queue_of(self.task)


def queue_of(task: str) -> str:
    """The Celery queue ``task`` is routed to (``CELERY_TASK_ROUTES``, else the default)."""
    return settings.CELERY_TASK_ROUTES.get(task, {}).get("queue", settings.CELERY_TASK_DEFAULT_QUEUE)


STAGES: tuple[Stage, ...] = (
    Stage(
        "affiliations",
        "institutions.match_affiliations",
        affiliations_stage,
        affiliations_backlog,
        "slot",
    ),
    # Rates in the backlog's unit: the authors stage counts the papers it took ("papers");
    # the affiliations stage counts slots and strings only, so it shows no rate.
    Stage("authors", "researchers.match_authors", authors_stage, authors_backlog, "slot", done="papers"),
    # After the matching stages: the index holds each paper's researchers and institutions
    # too, so one sync takes in the harvest's papers and their links. Until it has run, the
    # log is behind and PostgreSQL answers searches (papers.search_index.usable).
    Stage(
        "search-index",
        "papers.sync_search_index",
        search_index_stage,
        search_index_backlog,
        "change",
        done="applied",
    ),
    Stage("signing", "provenance.sign_records", signing_stage, signing_backlog, done="papers_signed"),
    # Beside the chain on the workers: it reads the harvest's titles and abstracts only, and
    # nothing after it reads its vectors but the archive facts (refreshed after it too).
    Stage(
        "embeddings",
        "semantic.embed_papers",
        embeddings_stage,
        embeddings_backlog,
        done="embedded",
        beside=True,
    ),
    Stage(
        "researcher-summaries",
        "researchers.refresh_summaries",
        researcher_summaries_stage,
        researcher_summaries_backlog,
        "researcher",
        done="computed",
    ),
    Stage(
        "institution-summaries",
        "institutions.refresh_summaries",
        institution_summaries_stage,
        institution_summaries_backlog,
        "institution",
        done="computed",
    ),
    Stage(
        "archive-facts", "pages.refresh_archive_facts", archive_facts_stage, archive_facts_backlog, "archive"
    ),
    Stage("digests", "accounts.send_digests", digests_stage, digests_backlog, "user"),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)
# Run again at the end of the branch beside the chain: they count what its stages wrote (the
# archive facts say how many papers are searchable by meaning).
AFTER_BESIDE = ("archive-facts",)


def pipeline_signature() -> Signature:
    """Every stage as two Celery chains of immutable signatures sent together (a group): the
    main chain, in ``STAGES`` order, and beside it the ``beside`` stages followed by
    :data:`AFTER_BESIDE`. No stage reads another's result: each reads the database, under its
    own lock (when the other branch reaches a stage still running, the holder runs it once
    more: :func:`wove.stages.stage_execute`). A stage whose task fails for good returns a
    failed result (:class:`wove.stages.StageTask`), so the later stages still run; beat's
    next sweep sends it again."""

    def branch(stages) -> Signature:
        return chain(*(celery_app.signature(stage.task, immutable=True) for stage in stages))

    main = branch(stage for stage in STAGES if not stage.beside)
    beside = beside_branch()
    return group(main, branch(beside)) if beside else main


def beside_branch() -> list[Stage]:
    """The stages the workers run beside the main chain, in order: the ``beside`` ones, then
    :data:`AFTER_BESIDE` (empty when no stage is ``beside``)."""
    beside = [stage for stage in STAGES if stage.beside]
    return [*beside, *(stage for stage in STAGES if stage.name in AFTER_BESIDE)] if beside else []


def pipeline_send() -> None:
    """Send the stages (:func:`pipeline_signature`) to the workers once the current
    transaction commits (at once outside one), so no stage runs before the rows it reads are
    visible."""
    transaction.on_commit(lambda: pipeline_signature().apply_async())


def worker_available(*, timeout: float = 1.0) -> bool:
    """Whether a Celery worker answers a ping on the broker within ``timeout`` seconds.

    False when the broker cannot be reached (``make demo`` runs with no Redis), so a command
    never waits on a queue that nobody reads."""
    try:
        with celery_app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
        return bool(celery_app.control.ping(timeout=timeout))
    except Exception as exc:  # kombu raises transport-specific errors: all mean "no"
        logger.debug("no worker reachable: %s", exc)
        return False


def pipeline_run_inline(
    *, progress_for: Callable[[Stage], Callable[[int], object] | None] | None = None
) -> list[tuple[Stage, dict]]:
    """Run every stage here, in order (no worker): the same stage functions the tasks run,
    with ``trigger="inline"``. ``progress_for(stage)`` may return a progress
    callback for the stage. Stages named in ``settings.PIPELINE_INLINE_DEFER`` are left to
    the workers' next sweep (``make demo`` defers embeddings: minutes of model time on two
    cores). Returns ``[(stage, its result)]``. A failing stage raises (its run row says
    ``failed``); the stages before it keep what they did."""
    results = []
    for stage in STAGES:
        if stage.name in settings.PIPELINE_INLINE_DEFER:
            backlog = stage.backlog()
            results.append((stage, {"status": "deferred to the workers", "waiting": backlog.waiting}))
            continue
        progress = progress_for(stage) if progress_for else None
        results.append((stage, stage.run(trigger="inline", progress=progress)))
    return results


def format_counts(counts: dict) -> str:
    """``"papers checked 11, papers signed 11"``: a stage's counts for people (empty ones left out)."""
    return ", ".join(
        f"{k.replace('_', ' ')} {v}" for k, v in counts.items() if k != "status" and v not in ("", None)
    )


def result_line(stage: str, result: dict) -> str:
    """One line for a stage's result: ``"authors: ok (slots 850, papers 300, ...)"``."""
    counts = format_counts(result)
    return f"{stage}: {result.get('status', 'ok')}" + (f" ({counts})" if counts else "")


def pipeline_summary(results: list[tuple[Stage, dict]]) -> str:
    """The one summary line of an inline run: stages run, and which were busy or deferred."""
    busy = [stage.name for stage, result in results if result.get("status") == "busy"]
    deferred = [
        stage.name for stage, result in results if str(result.get("status", "")).startswith("deferred")
    ]
    line = f"pipeline: {len(results) - len(deferred)} of {len(results)} stages run here"
    if busy:
        line += f", {len(busy)} busy elsewhere ({', '.join(busy)})"
    if deferred:
        line += f", {', '.join(deferred)} left to the workers"
    return line


def _after_harvest(
    sender, *, run: HarvestRun, inline: bool | None = None, progress_for=None, **kwargs
) -> list[str]:
    """The harvest's end starts the pipeline; returns the lines a command prints about it."""
    if not settings.PIPELINE_AFTER_HARVEST:
        return []
    if inline is None:
        inline = not (settings.CELERY_TASK_ALWAYS_EAGER or worker_available())
    if not inline:
        pipeline_send()
        logger.info("harvest run %s ended (%s): pipeline sent to the workers", run.pk, run.status)
        return ["pipeline: sent to the workers (see manage.py pipeline_status)"]
    results = pipeline_run_inline(progress_for=progress_for)
    return [*(result_line(stage.name, result) for stage, result in results), pipeline_summary(results)]


def connect() -> None:
    """Connect the harvest's end to the pipeline (called once from ``WoveConfig.ready``)."""
    harvest_finished.connect(_after_harvest, dispatch_uid="wove.pipeline.after_harvest")


# --- status -----------------------------------------------------------------------------------


@dataclass
class StageStatus:
    """One row of the Pipeline page and of ``pipeline_status``: the stage's last run (start,
    end, outcome, counts), its backlog, its last error, and ``failing`` when its last
    :data:`wove.stages.FAILING_AFTER` finished runs all failed."""

    name: str
    queue: str
    started_at: datetime | None = None
    finished_at: datetime | None = None
    outcome: str = ""
    counts: dict | None = None
    backlog: Backlog | None = None
    failing: bool = False
    last_error: str = ""
    last_error_at: datetime | None = None
    # Units worked off per second by the latest finished run that worked any off (None before).
    rate: float | None = None

    @property
    def eta(self) -> float | None:
        """Seconds to empty the backlog at :attr:`rate` (0 when nothing waits), else None."""
        if self.backlog is None or self.backlog.waiting is None:
            return None
        if self.backlog.waiting == 0:
            return 0.0
        return self.backlog.waiting / self.rate if self.rate else None

    @property
    def rate_text(self) -> str:
        """``"135 papers/s"``, ``"0.4 slots/s"``, or ``"-"`` before any run worked."""
        if not self.rate:
            return "-"
        unit = self.backlog.unit if self.backlog is not None else "records"
        return f"{self.rate:,.0f} {unit}/s" if self.rate >= 10 else f"{self.rate:.2g} {unit}/s"

    @property
    def oldest_age(self) -> float | None:
        """Seconds since the oldest waiting item started waiting, or None."""
        if self.backlog is None or self.backlog.oldest is None:
            return None
        return (timezone.now() - self.backlog.oldest).total_seconds()

    @property
    def waiting(self) -> str:
        """``"12 papers"``, ``"0 users"``, ``"-"`` (no backlog), or the note when unknown."""
        if self.backlog is None:
            return "-"
        if self.backlog.waiting is None:
            return self.backlog.note or "unknown"
        return f"{self.backlog.waiting:,} {self.backlog.unit}"


def _harvest_status() -> StageStatus:
    runs = HarvestRun.objects.order_by("-started_at", "-pk")
    last = runs.first()
    recent = list(runs.exclude(status=HarvestRun.Status.RUNNING)[:FAILING_AFTER])
    failed = runs.filter(status=HarvestRun.Status.FAILED).first()
    status = StageStatus(
        name="harvest",
        queue=queue_of("papers.harvest_arxiv"),
        failing=len(recent) == FAILING_AFTER and all(r.status == HarvestRun.Status.FAILED for r in recent),
        last_error=failed.error if failed else "",
        last_error_at=failed.finished_at if failed else None,
    )
    if last is not None:
        status.started_at, status.finished_at, status.outcome = last.started_at, last.finished_at, last.status
        status.rate = _rate(
            (r.records_written, r.started_at, r.finished_at)
            for r in runs.exclude(finished_at=None).filter(records_written__gt=0)[:1]
        )
        status.counts = {
            "kind": last.kind,
            "seen": last.records_seen,
            "written": last.records_written,
            "deleted": last.records_deleted,
            "skipped": last.records_skipped,
        }
    return status


def stage_status(stage: Stage) -> StageStatus:
    """The last run, backlog, last error and failing flag of ``stage``."""
    runs = StageRun.objects.filter(stage=stage.name)
    last = runs.exclude(outcome=StageRun.Outcome.BUSY).first()
    finished = list(
        runs.filter(outcome__in=[StageRun.Outcome.OK, StageRun.Outcome.FAILED, StageRun.Outcome.INTERRUPTED])[
            :FAILING_AFTER
        ]
    )
    failed = runs.filter(outcome=StageRun.Outcome.FAILED).first()
    status = StageStatus(
        name=stage.name,
        queue=stage.queue,
        backlog=stage.backlog(),
        failing=len(finished) == FAILING_AFTER
        and all(r.outcome == StageRun.Outcome.FAILED for r in finished),
        last_error=failed.error if failed else "",
        last_error_at=failed.finished_at if failed else None,
    )
    if last is not None:
        status.started_at, status.finished_at, status.outcome = (
            last.started_at,
            last.finished_at,
            last.outcome,
        )
        status.counts = last.counts
        if stage.done:
            # The latest of the last ten finished runs that worked something off: sweeps that
            # found nothing would read as a rate of 0.
            recent = runs.filter(outcome=StageRun.Outcome.OK).exclude(finished_at=None)[:10]
            status.rate = _rate(
                (r.counts.get(stage.done), r.started_at, r.finished_at)
                for r in recent
                if isinstance(r.counts.get(stage.done), int | float) and r.counts.get(stage.done) > 0
            )
        if last.outcome == StageRun.Outcome.RUNNING and not lock_held_elsewhere(f"stage:{stage.name}"):
            # Nobody holds the stage's lock: the process running it died (its next run says
            # "interrupted"; beat's sweep sends one within 15 minutes).
            status.outcome = "interrupted (no process holds it)"
    return status


def _rate(runs) -> float | None:
    """Units per second of the first ``(units, started_at, finished_at)`` in ``runs``."""
    for units, started, finished in runs:
        seconds = (finished - started).total_seconds()
        return units / seconds if seconds > 0 else None
    return None


def pipeline_status() -> list[StageStatus]:
    """The harvest, then every stage in order: what ``pipeline_status`` prints and the
    admin's Pipeline page shows."""
    return [_harvest_status(), *(stage_status(stage) for stage in STAGES)]


def format_age(seconds: float | None) -> str:
    """``"3 h 12 min"``, ``"45 s"``, or ``"-"`` for None."""
    if seconds is None:
        return "-"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, _ = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"
