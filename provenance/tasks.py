"""Celery tasks for provenance: the pipeline's signing stage."""

from __future__ import annotations

from collections.abc import Callable

from celery import shared_task
from django.db import InterfaceError, OperationalError

from wove.stages import StageTask, stage_execute
from wove.statistics import tables_settle

from . import services
from .attestations import author_claims_restore
from .authorships import authorships_sign
from .models import AuthorshipSigning, Event, PaperSigning, Record


def signing_stage(*, trigger: str = "task", progress: Callable[[int], object] | None = None) -> dict:
    """The pipeline's signing stage: sign every paper whose current content is not signed yet
    (:func:`provenance.signing.papers_to_sign`) under the stage's lock.

    Then records every authorship changed since last recorded in a signed
    ``authorship_matched`` event (:func:`provenance.authorships.authorships_sign`). What the
    task and the inline pipeline both run. Returns ``{"status": "ok"|"busy", **SignResult,
    "authorships_recorded"}``.
    """

    def work() -> dict:
        counts = vars(services.records_sign(progress=progress))
        if counts["events_created"]:
            # New snapshots start from the record alone: put back the counts of researchers'
            # claims on those papers (issue 31).
            counts["author_claims_restored"] = len(author_claims_restore())
        # Then each authorship changed since last recorded, with its evidence (issue 20).
        counts["authorships_recorded"] = authorships_sign()
        written = counts["records_created"] + counts["events_created"] + counts["authorships_recorded"]
        tables_settle([m._meta.db_table for m in (Record, Event, PaperSigning, AuthorshipSigning)], written)
        return counts

    return stage_execute("signing", work, trigger=trigger)


@shared_task(
    base=StageTask,
    name="provenance.sign_records",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=30,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=5,
)
def sign_records(paper_ids: list[int] | None = None, batch_size: int = 500) -> dict:
    """Sign every paper changed since it was last signed (the signing stage), or only
    ``paper_ids`` (outside the stage's lock: per-paper locks keep it safe).

    Batched and idempotent: a rerun writes nothing new, and two workers at once write each
    event once (see :func:`provenance.services.records_sign`). Returns the run's counts.
    """
    if paper_ids is not None:
        return vars(services.records_sign(paper_ids=paper_ids, batch_size=batch_size))
    return signing_stage()
