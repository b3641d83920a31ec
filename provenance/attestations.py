"""Author attestations (issue 31): a researcher's claim and word on a paper, signed into its log.

Curation appends one ``author_attestation`` event per affected paper (the registry's event
family: the bundle's state lists them under ``current.author_attestations``), and the
paper's graph snapshot is followed by a new one whose ``author_claims`` block counts the
attestations in force: ``{"count": n, "strong_count": m}``, ``strong`` being those proved by
ORCID sign-in (the seed bundle carries the block with both at 0 and a ``snapshot_sha256``
whose derivation is not recoverable: PROVENANCE.md; ours carries the two counts only). A
withdrawn attestation (an editor's undo) is superseded by a ``curation_undone`` event on
the same paper and leaves the counts.

The signing stage's snapshots do not carry the block (their fast templates are fixed), and
a new arXiv version gives the paper a new record without the attestations: after signing,
:func:`author_claims_restore` carries the attestations in force onto the current record and
puts the counts back.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence

from django.db.models import Q

from papers.models import Paper

from .models import Event, Record
from .services import EventSpec, events_append

ATTESTATION = "author_attestation"
GRAPH_TARGET = "graph"


def _current_records(paper_ids: Iterable[int]) -> dict[int, Record]:
    """Each paper's current record (latest version, latest made): ``{paper id: Record}``."""
    rows = (
        Record.objects.filter(paper_id__in=list(paper_ids))
        .order_by("paper_id", "-source_version", "-created_at")
        .distinct("paper_id")
    )
    return {r.paper_id: r for r in rows}


def attestation_events(*, curation_id: int) -> list[tuple[int, str]]:
    """The ``author_attestation`` events a curation record appended, as ``[(paper id, event
    id)]`` (their payload's ``curation_id``), by paper. One query."""
    rows = (
        Event.objects.filter(event_type=ATTESTATION, content__payload__curation_id=int(curation_id))
        .order_by("record__paper_id", "content_sha256")
        .values_list("record__paper_id", "content_sha256")
    )
    return [(paper_id, f"sha256:{digest}") for paper_id, digest in rows]


def author_claims_counts(paper_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """``{paper id: {"count", "strong_count"}}``: the ``author_attestation`` events on each
    paper's current record that no event of that record supersedes (``strong_count``: with
    ``payload.strong`` true). Two queries."""
    records = _current_records(paper_ids)
    by_record = {r.pk: pid for pid, r in records.items()}
    out = {pid: {"count": 0, "strong_count": 0} for pid in records}
    if not records:
        return out
    rows = list(
        Event.objects.filter(record_id__in=list(by_record)).values_list(
            "record_id", "content_sha256", "content"
        )
    )
    superseded = {ref for _rid, _digest, content in rows for ref in content.get("supersedes") or ()}
    for record_id, digest, content in rows:
        if content.get("event_type") != ATTESTATION or f"sha256:{digest}" in superseded:
            continue
        counts = out[by_record[record_id]]
        counts["count"] += 1
        counts["strong_count"] += 1 if (content.get("payload") or {}).get("strong") else 0
    return out


def _graph_tips(records: dict[int, Record]) -> dict[int, Event]:
    """Each record's last ``graph_snapshot`` (the one no other event follows), by paper id."""
    events = list(
        Event.objects.filter(Q(record_id__in=[r.pk for r in records.values()]), target=GRAPH_TARGET).order_by(
            "created_at", "content_sha256"
        )
    )
    followed = {e.prev_event for e in events if e.prev_event}
    paper_of = {r.pk: pid for pid, r in records.items()}
    tips: dict[int, Event] = {}
    for event in events:
        if f"sha256:{event.content_sha256}" not in followed:
            tips[paper_of[event.record_id]] = event
    return tips


def author_claims_refresh(*, paper_ids: Sequence[int]) -> list[str]:
    """Append, for each paper whose counts changed, a ``graph_snapshot`` equal to its last one
    but for the ``author_claims`` block (:func:`author_claims_counts`), extending and
    superseding it. Papers without a snapshot are skipped. Returns the new event ids."""
    records = _current_records(paper_ids)
    counts = author_claims_counts(records)
    specs = []
    for paper_id, tip in sorted(_graph_tips(records).items()):
        payload = copy.deepcopy(tip.content.get("payload") or {})
        snapshot = payload.get("graph_snapshot")
        if not isinstance(snapshot, dict) or snapshot.get("author_claims") == counts[paper_id]:
            continue
        snapshot["author_claims"] = counts[paper_id]
        specs.append(
            EventSpec(
                records[paper_id], "graph_snapshot", payload, supersedes=(f"sha256:{tip.content_sha256}",)
            )
        )
    return events_append(items=specs)


def author_attestations_carry(*, paper_ids: Iterable[int] | None = None) -> list[str]:
    """Carry each attestation in force onto its paper's current record: a new arXiv version
    (a new title or abstract) gives the paper a new record, and the researcher's word on
    the paper is not withdrawn by it. For every attestation on an older record that no
    event of the paper supersedes and whose ``curation_id`` the current record has no
    attestation of yet, append a copy there whose payload adds ``"carried_from": <event
    id>``. Idempotent; ``paper_ids`` limits it (default: every paper holding an
    attestation). An undo then withdraws both (:func:`author_attestations_withdraw`).
    Returns the new event ids. Three queries and one append."""
    found = Record.objects.filter(events__event_type=ATTESTATION, paper_id__isnull=False)
    if paper_ids is not None:
        found = found.filter(paper_id__in=list(paper_ids))
    wanted = set(found.values_list("paper_id", flat=True))
    records = _current_records(wanted)
    rows = list(
        Event.objects.filter(record__paper_id__in=list(records))
        .filter(Q(event_type=ATTESTATION) | ~Q(content__supersedes=[]))
        .order_by("created_at", "content_sha256")
        .values_list("record__paper_id", "record_id", "content_sha256", "content")
    )
    superseded = {ref for *_ids, content in rows for ref in content.get("supersedes") or ()}
    on_current = {
        (pid, (content.get("payload") or {}).get("curation_id"))
        for pid, rid, _d, content in rows
        if content.get("event_type") == ATTESTATION and rid == records[pid].pk
    }
    specs = []
    for pid, rid, digest, content in rows:
        payload = content.get("payload") or {}
        key = (pid, payload.get("curation_id"))
        if (
            content.get("event_type") != ATTESTATION
            or rid == records[pid].pk
            or f"sha256:{digest}" in superseded
            or key in on_current
        ):
            continue
        on_current.add(key)
        specs.append(EventSpec(records[pid], ATTESTATION, {**payload, "carried_from": f"sha256:{digest}"}))
    return events_append(items=specs)


def author_claims_restore() -> list[str]:
    """After a signing run: a paper with a new arXiv version got a new record, and a paper
    whose metadata changed a new ``graph_snapshot`` from its record alone, without its
    ``author_claims`` counts. Carry the attestations in force onto the current records
    (:func:`author_attestations_carry`), then give every paper holding an author attestation
    its counts back (:func:`author_claims_refresh`, which appends only where they differ
    from the tip). Papers with attestations are the claimed researchers' few; one query
    finds them. Returns the new event ids."""
    carried = author_attestations_carry()
    paper_ids = (
        Record.objects.filter(events__event_type=ATTESTATION, paper_id__isnull=False)
        .values_list("paper_id", flat=True)
        .distinct()
    )
    return carried + author_claims_refresh(paper_ids=sorted(paper_ids))


def author_attestations_append(*, items: Sequence[tuple[int, dict]]) -> list[str]:
    """Sign one ``author_attestation`` event per ``(paper id, payload)`` (the paper signed
    first when it has no record yet), then refresh those papers' ``author_claims``
    (:func:`author_claims_refresh`). Returns the attestation event ids in item order. Raises
    as :func:`provenance.services.events_append` does (nothing is written then)."""
    papers = Paper.objects.in_bulk([pid for pid, _p in items])
    ids = events_append(items=[EventSpec(papers[pid], ATTESTATION, payload) for pid, payload in items])
    author_claims_refresh(paper_ids=sorted({pid for pid, _p in items}))
    return ids


def author_attestations_withdraw(*, events: Sequence[tuple[int, str]], payload: dict) -> list[str]:
    """Withdraw attestations: per ``(paper id, event id)`` a ``curation_undone`` event with
    ``payload`` superseding it on the record that holds it (an older version's, or the
    current one's carried copy: :func:`author_attestations_carry`), then
    :func:`author_claims_refresh`. Returns the new ``curation_undone`` event ids."""
    holders = dict(
        Event.objects.filter(content_sha256__in=[e.removeprefix("sha256:") for _p, e in events]).values_list(
            "content_sha256", "record"
        )
    )
    records = Record.objects.in_bulk(set(holders.values()))
    ids = events_append(
        items=[
            EventSpec(
                records[holders[event_id.removeprefix("sha256:")]],
                "curation_undone",
                payload,
                supersedes=(event_id,),
            )
            for _pid, event_id in events
        ]
    )
    author_claims_refresh(paper_ids=sorted({pid for pid, _e in events}))
    return ids
