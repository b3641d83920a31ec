"""Provenance writes: the signing key's registration, the records signing loop
(:func:`records_sign`; one batch's work is :mod:`provenance.signing`'s), deletions and event
appends."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.db import IntegrityError, transaction

from papers.models import Paper
from wove.forked import batches_in_processes

from .builders import EVENT_TARGETS, EVENT_TYPES, event_build
from .keys import Signer, fingerprint_b32, fingerprint_hex, load_private_key, public_raw
from .models import Event, PublicKey, Record
from .rows import EVENT_COLUMNS, chain_tips, insert_ignoring_conflicts, lock_papers
from .selectors import record_resolve
from .signing import SignResult, papers_deletion_unrecorded, papers_to_sign, sign_batch

log = logging.getLogger(__name__)

# Signing batches in hand at once, each on its own connection: two keep both cores busy,
# this process building and signing one batch while PostgreSQL stores the other.
SIGNING_CONNECTIONS = 2


def _now() -> datetime:
    return datetime.now(UTC)


def signer_current() -> tuple[Signer, PublicKey]:
    """The signing key of this process and its published :class:`PublicKey` row.

    Loads (or creates, mode 0600) ``settings.PROVENANCE_SIGNING_KEY_FILE`` and publishes
    its public key on first use with ``key_id`` = ``settings.PROVENANCE_KEY_ID`` or
    ``wove-v1-<YYYY-MM>`` of today (``-2``, ``-3`` ... when that name already belongs to an
    older key). A key's ``key_id`` never changes once published.
    """
    private = load_private_key(settings.PROVENANCE_SIGNING_KEY_FILE)
    raw = public_raw(private)
    fingerprint = fingerprint_hex(raw)
    row = PublicKey.objects.filter(fingerprint=fingerprint).first()
    wanted = settings.PROVENANCE_KEY_ID or f"wove-v1-{_now():%Y-%m}"
    attempt = 1
    while row is None:
        key_id = wanted if attempt == 1 else f"{wanted}-{attempt}"
        try:
            with transaction.atomic():
                row = PublicKey.objects.create(
                    key_id=key_id,
                    public_key_hex=raw.hex(),
                    fingerprint=fingerprint,
                    fingerprint_b32=fingerprint_b32(raw),
                )
        except IntegrityError:
            row = PublicKey.objects.filter(fingerprint=fingerprint).first()  # a concurrent start won
            attempt += 1
            if attempt > 50:
                raise
    if settings.PROVENANCE_KEY_ID and row.key_id != settings.PROVENANCE_KEY_ID:
        log.warning(
            "provenance: key %s is published as %s; PROVENANCE_KEY_ID=%s ignored (key ids never change)",
            fingerprint,
            row.key_id,
            settings.PROVENANCE_KEY_ID,
        )
    return Signer(private, raw, fingerprint, row.key_id), row


def records_sign(
    *,
    paper_ids: Iterable[int] | None = None,
    batch_size: int = 500,
    progress: Callable[[int], None] | None = None,
    workers: int = SIGNING_CONNECTIONS,
) -> SignResult:
    """Sign every paper that changed since it was last signed (all when never signed).

    For each arXiv version without a record: the canonical record, its receipt, a
    ``record_created`` event (superseding the previous version's) and a ``graph_snapshot``.
    For the latest version, a changed canonical record gives a new record superseding the
    old one, and a changed snapshot (title, authors, categories, abstract) a new
    ``graph_snapshot`` superseding the previous one. Unchanged papers give nothing.
    Records of earlier versions are frozen once written; arXiv sends only the current title,
    abstract and categories, so versions first seen together share today's metadata (only
    ``version`` and ``submitted_at`` differ). A version without its own timestamp in the
    harvest (OAI ``arXiv`` format) is recorded as the latest version at v1's time.

    Batched (``batch_size`` papers: a constant number of queries and one bulk insert per
    table each). Idempotent and safe to run in two workers at once: each paper is locked
    with a try-lock (``wove.locks.advisory_xact_locks``) and re-read under the lock; a paper locked by the
    other worker is left to it (``papers_busy``); unique keys (record digest, event digest,
    ``(record, target, prev_event)``) with ``ON CONFLICT DO NOTHING`` back this up. A paper
    that cannot be signed is logged and skipped (``papers_skipped``), never the batch.

    ``workers`` batches are signed at once, each in a forked process with its own
    connection (:func:`wove.forked.batches_in_processes`; here when there is one batch, or
    inside a caller's transaction): building and signing the documents is Python, and one
    process's Python runs on one core at a time.

    Then each deleted paper with a signed record gets its one ``deleted`` event
    (:func:`deletions_sign`; ``deletions_recorded``, counted in ``events_created`` too).
    """
    signer, key_row = signer_current()
    signer_id = settings.PROVENANCE_SIGNER_ID
    paper_ids = list(paper_ids) if paper_ids is not None else None
    base = papers_to_sign()
    if paper_ids is not None:
        base = base.filter(id__in=paper_ids)
    result = SignResult()

    def sign(ids: list[int]) -> tuple[int, SignResult]:
        return len(ids), sign_batch(ids, signer, key_row, signer_id, _now())

    def collect(signed: tuple[int, SignResult]) -> None:
        result.add(signed[1])
        if progress:
            progress(signed[0])

    batches_in_processes(sign, _id_batches(base, batch_size), workers=workers, collect=collect)
    result.deletions_recorded = deletions_sign(paper_ids=paper_ids, batch_size=batch_size)
    result.events_created += result.deletions_recorded
    return result


def _id_batches(papers, batch_size: int) -> Iterator[list[int]]:
    """Ids of ``papers`` in ascending lists of ``batch_size``, each read after the last was
    taken (keyset pagination: papers signed meanwhile drop out, none is read twice)."""
    after = 0
    while ids := list(papers.filter(id__gt=after).order_by("id").values_list("id", flat=True)[:batch_size]):
        after = ids[-1]
        yield ids


def deleted_payload(paper: Paper) -> dict:
    """Payload of a ``deleted`` event: which paper, who said so and the OAI-PMH datestamp of
    the deleted header (``YYYY-MM-DD``, or null when the header had none). Strings only."""
    return {
        "source": {"kind": "arxiv", "id": paper.arxiv_id},
        "status": "deleted",
        "reported_by": "arxiv_oai_pmh",
        "oai_datestamp": paper.oai_datestamp.isoformat() if paper.oai_datestamp else None,
    }


def deletions_sign(*, paper_ids: Sequence[int] | None = None, batch_size: int = 500) -> int:
    """Append one signed ``deleted`` event (target ``status``) to the current record of each
    paper :func:`papers_deletion_unrecorded` holds (or only ``paper_ids`` among them).

    Earlier events are untouched: the event starts the record's ``status`` chain. Papers are
    try-locked (another signer's are left to it) and re-read under the lock, so two workers
    append each deletion once and a second pass appends nothing. Deleted papers never
    signed get no record (there is nothing to attach the event to). Returns the number of
    events appended.
    """
    base = papers_deletion_unrecorded()
    if paper_ids is not None:
        base = base.filter(id__in=list(paper_ids))
    ids = list(base.order_by("id").values_list("id", flat=True))
    appended = 0
    for start in range(0, len(ids), batch_size):
        with transaction.atomic():
            locked = lock_papers(ids[start : start + batch_size], wait=False)
            papers = papers_deletion_unrecorded().filter(id__in=locked).order_by("id")
            items = [EventSpec(paper, "deleted", deleted_payload(paper)) for paper in papers]
            appended += len(events_append(items=items))
    return appended


@dataclass(frozen=True)
class EventSpec:
    """One event to append: see :func:`event_append` for the meaning of each field."""

    subject: Record | Paper | str
    event_type: str
    payload: dict
    target: str | None = None
    supersedes: Sequence[str] = ()


def _check_spec(spec: EventSpec) -> None:
    if spec.event_type == "record_created" or spec.event_type not in EVENT_TYPES:
        raise ValueError(f"event_append: event type {spec.event_type!r} is not appendable")
    if not isinstance(spec.payload, dict):
        raise ValueError("event_append: payload must be a JSON object")


def _records_for_subjects(subjects: Sequence[Record | Paper | str]) -> list[Record]:
    """Resolve subjects in bulk: records as they are, papers to their current record (signing
    unsigned ones first), strings by :func:`provenance.selectors.record_resolve`.
    Raises ``Record.DoesNotExist`` for a subject without a record."""
    paper_ids = {s.pk for s in subjects if isinstance(s, Paper)}

    def current(ids: set[int]) -> dict[int, Record]:
        rows = (
            Record.objects.filter(paper_id__in=ids)
            .order_by("paper_id", "-source_version", "-created_at")
            .distinct("paper_id")
        )
        return {r.paper_id: r for r in rows}

    by_paper = current(paper_ids) if paper_ids else {}
    missing = paper_ids - set(by_paper)
    if missing:
        records_sign(paper_ids=missing)
        by_paper.update(current(missing))
    records = []
    for subject in subjects:
        if isinstance(subject, Record):
            record = subject
        elif isinstance(subject, Paper):
            record = by_paper.get(subject.pk)
        else:
            record = record_resolve(str(subject)).record
        if record is None:
            raise Record.DoesNotExist(f"no signed record for {subject!r}")
        records.append(record)
    return records


def record_for_subject(subject: Record | Paper | str) -> Record:
    """Resolve one event subject (see :func:`_records_for_subjects`)."""
    return _records_for_subjects([subject])[0]


def events_append(*, items: Sequence[EventSpec]) -> list[str]:
    """Append many signed events at once (e.g. every authorship match of a matching run).

    Same rules as :func:`event_append`, in a constant number of queries: subjects resolved
    in bulk, the papers' advisory locks taken in id order, chain tips read in one query,
    rows written by one ``COPY``. Items on the same chain (record and target) link in the
    order given. Returns the new event ids in item order. Raises ``ValueError`` (type or
    payload), :class:`~provenance.canonical.CanonicalJsonError` (a float) or
    ``Record.DoesNotExist``; nothing is written then.
    """
    if not items:
        return []
    for spec in items:
        _check_spec(spec)
    records = _records_for_subjects([spec.subject for spec in items])
    signer, key_row = signer_current()
    signer_id = settings.PROVENANCE_SIGNER_ID
    targets = [spec.target or EVENT_TARGETS[spec.event_type] for spec in items]
    with transaction.atomic():
        lock_papers(sorted({r.paper_id for r in records}), wait=True)
        tips = {
            key: f"sha256:{tip['content_sha256']}"
            for key, tip in chain_tips(
                Event.objects.filter(record_id__in={r.pk for r in records}, target__in=set(targets)).values(
                    "content_sha256", "record_id", "target", "prev_event", "created_at", "event_type"
                )
            ).items()
        }
        now = _now()
        stamp = now.replace(microsecond=0)
        rows, ids = [], []
        for spec, record, target in zip(items, records, targets, strict=True):
            built = event_build(
                signer,
                signer_id=signer_id,
                event_type=spec.event_type,
                subject_pith_number=record.pith_number,
                target=target,
                payload=spec.payload,
                created_at=now,
                signed_at=now,
                supersedes=list(spec.supersedes),
                prev_event=tips.get((record.pk, target)),
            )
            tips[(record.pk, target)] = built.event_id
            ids.append(built.event_id)
            rows.append(
                (
                    built.content_sha256,
                    record.pk,
                    spec.event_type,
                    target,
                    built.content["prev_event"],
                    stamp,
                    key_row.pk,
                    built.canonical.decode("utf-8"),
                    json.dumps(built.signature),
                )
            )
        insert_ignoring_conflicts(Event, EVENT_COLUMNS, rows)
    return ids


def event_append(
    *,
    subject: Record | Paper | str,
    event_type: str,
    payload: dict,
    target: str | None = None,
    supersedes: Sequence[str] = (),
) -> Event:
    """Append one signed event to a record's log; the one way events other than signing's are written.

    ``subject`` is a :class:`Record`, a :class:`~papers.models.Paper` (its current record,
    signed first when needed) or a pith number; ``event_type`` one of ``graph_snapshot``,
    ``authorship_matched``, ``researcher_merged``, ``researcher_split``,
    ``curation_undone``, ``deleted``, ``author_attestation`` (``record_created`` is written
    by :func:`records_sign` only);
    ``payload`` a JSON object of strings, integers, booleans, nulls, lists and objects
    (floats raise :class:`~provenance.canonical.CanonicalJsonError`); ``target`` names the
    chain (default per type: ``authorship``, ``curation``, ``graph``; use e.g.
    ``authorship:3`` for one author slot); ``supersedes`` lists event ids this event
    replaces or undoes (they leave the state's ``current``). ``prev_event`` is the chain's
    last event, read under the paper's advisory lock. Returns the stored :class:`Event`.
    Raises ``ValueError`` on an unknown or reserved type. For many events use
    :func:`events_append`.
    """
    spec = EventSpec(subject, event_type, payload, target, tuple(supersedes))
    (event_id,) = events_append(items=[spec])
    return Event.objects.select_related("record", "key").get(pk=event_id.removeprefix("sha256:"))
