"""Merging researcher records: :func:`merge_check` validates and locks, :func:`merge_do` writes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Model, Q
from django.utils import timezone

from researchers.constraints import constraints_apply, slots_by_block, star
from researchers.matching_common import researchers_refresh
from researchers.models import Authorship, ExternalIdentity, IdentitySource, MatchConstraint, Researcher

from .claims import claim_owners
from .errors import CurationConflict, CurationError, OrcidConflict
from .marks import marks_recompute
from .models import CurationRecord
from .records import (
    EVENT_PAPER_ATTEMPTS,
    append_event,
    lock_researchers,
    moved_authorships_payload,
    next_record_id,
    require_reason,
    researcher_state,
    researcher_states,
    write_record,
)
from .signals import first_response, researchers_merged


@dataclass
class MergePlan:
    """A merge :func:`merge_check` accepted: ``rows`` are the researchers locked for it
    (``core`` and every record merged into one of them), ``orcids`` the distinct ORCID iDs
    of ``core`` (sorted), ``reason`` stripped. ``followed`` is ``{"requested_target": id,
    "followed_to": id}`` when the survivor asked for had been merged away meanwhile and the
    merge goes to its survivor instead (:func:`merge_check`), else ``None``."""

    survivor_id: int
    merged: list[int]
    core: list[int]
    rows: dict[int, Researcher]
    orcids: list[str]
    reason: str
    override_orcid: bool
    followed: dict[str, int] | None = None


def _locked_core(core: list[int]) -> dict[int, Researcher]:
    """:func:`curation.records.lock_researchers` of ``core``; raises :class:`CurationConflict`
    when one of them does not exist."""
    rows = lock_researchers(core)
    missing = [i for i in core if i not in rows]
    if missing:
        raise CurationConflict(f"no researcher {', '.join(map(str, missing))}")
    return rows


def _follow_survivor(
    requested: int, merged: list[int], rows: dict[int, Researcher]
) -> tuple[int, list[int], dict[int, Researcher]]:
    """The merge of ``merged`` into ``requested``, which was merged away meanwhile, moved to
    the record it went to: ``(survivor id, merged ids, locked rows)``.

    One hop only: the requested record's ``merged_into`` (curation flattens chains, so it
    names an active record unless someone changed it outside curation). Its target is
    locked with the rest in id order (the caller rolled back the locks it held); raises
    :class:`CurationConflict` when the target was itself merged away (a chain longer than
    one hop: the editor should look again), when the requested record moved again while we
    waited, or when nothing is left to merge (the editor asked to merge the target itself
    into the record merged into it: the other editor's merge already decided it).
    """
    target = rows[requested].merged_into_id
    left = [i for i in merged if i != target]
    if not left:
        raise CurationConflict(
            f"already merged away meanwhile: {requested} (into {target}), and {target} is what you "
            f"asked to merge into it; reload the comparison"
        )
    rows = _locked_core(sorted({target, requested, *left}))
    if rows[requested].merged_into_id != target:
        raise CurationConflict(
            f"researcher {requested} was merged again while this merge waited "
            f"(into {rows[requested].merged_into_id}); reload the comparison"
        )
    if rows[target].merged_into_id:
        raise CurationConflict(
            f"researcher {requested} was merged into {target} meanwhile, and {target} into "
            f"{rows[target].merged_into_id}: a merge follows its survivor one step only; "
            "reload the comparison"
        )
    return target, left, rows


def merge_check(
    *, survivor_id: int, merged_ids: Iterable[int], reason: str, override_orcid: bool = False
) -> MergePlan:
    """Validate a merge and lock its rows in id order (:func:`curation.records.lock_researchers`).

    Must run inside a transaction; writes nothing. When the survivor was merged away
    meanwhile (editor 1 merged B into A while editor 2 was merging C into B), the merge
    follows it to the record it went to, one hop (:func:`_follow_survivor`: C goes into A),
    and the plan says so in ``followed``; the locks taken so far are rolled back first (a
    savepoint), so every lock is still taken in id order. Raises :class:`CurationError`
    without a reason or with nothing to merge, :class:`CurationConflict` when a record is
    missing, when a record to merge was merged away meanwhile, or when following the
    survivor would take more than one hop or when two different users own records of it (an
    approved claim each: :func:`curation.claims.claim_owners`); :class:`OrcidConflict` for
    two different ORCID iDs unless ``override_orcid``.
    """
    reason = require_reason(reason)
    merged = sorted({int(i) for i in merged_ids} - {int(survivor_id)})
    if not merged:
        raise CurationError("choose at least one record besides the survivor")
    survivor_id = int(survivor_id)
    savepoint = transaction.savepoint()
    rows = _locked_core(sorted({survivor_id, *merged}))
    followed = None
    if rows[survivor_id].merged_into_id and not any(rows[i].merged_into_id for i in merged):
        transaction.savepoint_rollback(savepoint)
        requested = survivor_id
        survivor_id, merged, rows = _follow_survivor(requested, merged, rows)
        followed = {"requested_target": requested, "followed_to": survivor_id}
    else:
        transaction.savepoint_commit(savepoint)
    core = sorted({survivor_id, *merged})
    gone = [i for i in core if rows[i].merged_into_id]
    if gone:
        raise CurationConflict(
            "already merged away meanwhile: "
            + ", ".join(f"{i} (into {rows[i].merged_into_id})" for i in gone)
            + "; reload the comparison"
        )
    owners = claim_owners(rows)
    if len(owners) > 1:
        raise CurationConflict(
            "these records are claimed by different users ("
            + ", ".join(f"researcher {rid}" for rid in sorted(owners.values()))
            + "): one person owns one record; refuse or undo one of the claims first"
        )
    orcids = sorted({rows[i].orcid for i in core if rows[i].orcid})
    if len(orcids) > 1 and not override_orcid:
        raise OrcidConflict(
            f"these records hold different ORCID iDs ({', '.join(orcids)}); "
            "merge only if they are one person, overriding with a reason"
        )
    return MergePlan(survivor_id, merged, core, rows, orcids, reason, bool(override_orcid), followed)


def _move_to_survivor(model: type[Model], merged: list[int], survivor_id: int, **also) -> list[dict]:
    """Point every ``model`` row (authorship, identity) of ``merged`` at the survivor, writing
    ``also`` too (an authorship's ``modified_at``); returns the moves, ``[{id, from, to}]`` by id."""
    moved = [
        {"id": pk, "from": rid, "to": survivor_id}
        for pk, rid in model.objects.filter(researcher_id__in=merged)
        .order_by("pk")
        .values_list("pk", "researcher_id")
    ]
    model.objects.filter(pk__in=[m["id"] for m in moved]).update(researcher_id=survivor_id, **also)
    return moved


def _orcid_to_survivor(plan: MergePlan) -> dict | None:
    """Give a survivor without an ORCID iD the one iD of the merged records; returns the move or ``None``."""
    if plan.rows[plan.survivor_id].orcid or len(plan.orcids) != 1:
        return None
    holder = next(i for i in plan.merged if plan.rows[i].orcid == plan.orcids[0])
    # QuerySet.update skips auto_now: the paper API's Last-Modified reads modified_at.
    now = timezone.now()
    Researcher.objects.filter(pk=holder).update(orcid=None, modified_at=now)
    Researcher.objects.filter(pk=plan.survivor_id).update(orcid=plan.orcids[0], modified_at=now)
    return {"orcid": plan.orcids[0], "from": holder, "to": plan.survivor_id}


def _orcids_as_identities(plan: MergePlan) -> list[int]:
    """Keep the merged records' other ORCID iDs as ORCID identities of the survivor (BUGS.md
    DIS-02: one person with two ORCID records holds both). The survivor's own iD stays its
    primary; the merged records keep theirs too, so a source naming one finds the survivor
    through ``merged_into``. Returns the ids of the identities created (for the undo)."""
    primary = Researcher.objects.get(pk=plan.survivor_id).orcid
    others = sorted({plan.rows[i].orcid for i in plan.merged if plan.rows[i].orcid} - {primary})
    held = set(
        ExternalIdentity.objects.filter(source=IdentitySource.ORCID, external_id__in=others).values_list(
            "external_id", flat=True
        )
    )
    created = ExternalIdentity.objects.bulk_create(
        ExternalIdentity(
            researcher_id=plan.survivor_id,
            source=IdentitySource.ORCID,
            external_id=orcid,
            name=next(plan.rows[i].display_name for i in plan.merged if plan.rows[i].orcid == orcid),
        )
        for orcid in others
        if orcid not in held
    )
    return sorted(i.pk for i in created)


def _merged_into_survivor(plan: MergePlan) -> list[dict]:
    """Set ``merged_into`` on the merged records and re-point records merged into them
    (chains flatten); returns the re-pointed ones, ``[{id, from, to}]``."""
    flattened = [
        {"id": pk, "from": r.merged_into_id, "to": plan.survivor_id}
        for pk, r in sorted(plan.rows.items())
        if r.merged_into_id in plan.merged
    ]
    Researcher.objects.filter(pk__in=[f["id"] for f in flattened] + plan.merged).update(
        merged_into_id=plan.survivor_id, modified_at=timezone.now()
    )
    return flattened


def _declared_to_survivor(plan: MergePlan) -> list[str]:
    """Give the survivor every name the researchers of the merged records declared (issue
    31: ``declared_names``, which :func:`researchers_refresh` keeps in the variants); returns
    those it gained (sorted). The merged records keep theirs, for an undo's sake and their
    own history."""
    declared = sorted(set().union(*(plan.rows[i].declared_names for i in plan.core)))
    gained = sorted(set(declared) - set(plan.rows[plan.survivor_id].declared_names))
    if gained:
        Researcher.objects.filter(pk=plan.survivor_id).update(
            declared_names=declared, modified_at=timezone.now()
        )
    return gained


def _variants_to_survivor(plan: MergePlan) -> list[str]:
    """Refresh the records and give the survivor every name variant any of them had;
    returns the variants the survivor gained (sorted)."""
    researchers_refresh(researcher_ids=plan.core)
    refreshed = Researcher.objects.get(pk=plan.survivor_id).name_variants
    variants = sorted(set(refreshed).union(*(plan.rows[i].name_variants for i in plan.core)))
    Researcher.objects.filter(pk=plan.survivor_id).update(name_variants=variants, modified_at=timezone.now())
    return sorted(set(variants) - set(plan.rows[plan.survivor_id].name_variants))


def _merge_constraints(survivor_id: int) -> dict[str, list]:
    """Must-links holding the survivor's slots together; cannot-links among them dropped."""
    slots = slots_by_block(survivor_id)
    all_slots = [s for block in slots.values() for s in block]
    must, _anchors = star(slots)
    return constraints_apply(
        must=must,
        drop=Q(kind=MatchConstraint.Kind.CANNOT, slot_a_id__in=all_slots, slot_b_id__in=all_slots),
    )


def _merge_event(
    plan: MergePlan,
    *,
    record_id: int,
    moved_authorships: list[dict],
    moved_identities: list[dict],
    proposal: dict | None = None,
) -> tuple[str, list[int]]:
    """Append the signed ``researcher_merged`` event; returns its id and the papers tried
    for it (the moved authorships' papers, else the survivor's; at most 10). A merge that
    confirms a researcher's proposal names it (payload ``proposal``: its id)."""
    paper_ids = list(
        Authorship.objects.filter(pk__in=[m["id"] for m in moved_authorships])
        .order_by("pk")
        .values_list("paper_id", flat=True)[:10]
    ) or list(
        Authorship.objects.filter(researcher_id=plan.survivor_id)
        .order_by("pk")
        .values_list("paper_id", flat=True)[:10]
    )
    payload = {
        "curation_id": record_id,
        "action": "merge",
        "survivor": plan.survivor_id,
        "merged": plan.merged,
        "reason": plan.reason,
        "override_orcid": plan.override_orcid,
        **({"followed": plan.followed} if plan.followed else {}),
        **({"proposal": proposal["proposal"]} if proposal else {}),
        "authorships": moved_authorships_payload(moved_authorships),
        "identities": [
            {"source": s, "external_id": e}
            for s, e in ExternalIdentity.objects.filter(pk__in=[m["id"] for m in moved_identities])
            .order_by("pk")
            .values_list("source", "external_id")
        ],
    }
    event = append_event(event_type="researcher_merged", payload=payload, paper_ids=paper_ids)
    return event, paper_ids


def merge_do(plan: MergePlan, *, editor, proposal: dict | None = None) -> CurationRecord:
    """Carry out a checked merge (in the transaction of :func:`merge_check`).

    ``proposal`` is given when the merge confirms a researcher's merge proposal
    (:mod:`curation.proposals`): ``{"proposal": id, "claimant": user id, "proposal_status":
    {"proposal", "from", "to"}}``, kept in ``changes`` (the undo puts the proposal back to
    waiting) and named in the signed event.

    Moves authorships and external identities to the survivor, then sends
    :data:`curation.signals.researchers_merged` (accounts moves follows; its answer is
    stored for the undo), moves the one ORCID iD, sets ``merged_into`` (flattening chains),
    keeps the merged records' other ORCID iDs as the survivor's ORCID identities, merges name
    variants and the names the researchers declared, writes the matcher constraints and the
    signed event. Returns the :class:`CurationRecord` (``kind=merge``; ``changes`` lists
    exactly what moved).
    """
    survivor_id, merged = plan.survivor_id, plan.merged
    before = {str(pk): researcher_state(r) for pk, r in sorted(plan.rows.items())}
    moved_authorships = _move_to_survivor(Authorship, merged, survivor_id, modified_at=timezone.now())
    moved_identities = _move_to_survivor(ExternalIdentity, merged, survivor_id)
    responses = researchers_merged.send(sender=CurationRecord, survivor_id=survivor_id, merged_ids=merged)
    follows = first_response(responses, {"available": False})
    orcid_moved = _orcid_to_survivor(plan)
    orcid_identities = _orcids_as_identities(plan)
    flattened = _merged_into_survivor(plan)
    declared_added = _declared_to_survivor(plan)
    variants_added = _variants_to_survivor(plan)
    constraints = _merge_constraints(survivor_id)
    # The block may now have one holder, and the survivor more papers: the marks follow.
    marks_recompute([survivor_id])
    record_id = next_record_id()
    event, paper_ids = _merge_event(
        plan,
        record_id=record_id,
        moved_authorships=moved_authorships,
        moved_identities=moved_identities,
        proposal=proposal,
    )
    changes = {
        "survivor": survivor_id,
        "merged": merged,
        "before": before,
        "after": researcher_states(plan.rows),
        "authorships": moved_authorships,
        "identities": moved_identities,
        "follows": follows,
        "orcid": orcid_moved,
        "orcid_identities": orcid_identities,
        "flattened": flattened,
        "variants_added": variants_added,
        "declared_added": declared_added,
        "constraints": constraints,
        "event_papers": paper_ids[:EVENT_PAPER_ATTEMPTS],
        # The survivor the editor chose, when it had been merged away and the merge followed it.
        "followed": plan.followed,
        **(proposal or {}),
    }
    return write_record(
        record_id=record_id,
        kind=CurationRecord.Kind.MERGE,
        editor=editor,
        reason=plan.reason,
        researcher_id=survivor_id,
        researcher_ids=plan.rows,
        changes=changes,
        event=event,
        override_orcid=bool(plan.override_orcid and len(plan.orcids) > 1),
    )


def researcher_merge(
    *, survivor_id: int, merged_ids: Iterable[int], editor, reason: str, override_orcid: bool = False
) -> CurationRecord:
    """Merge researcher records into ``survivor_id`` in one transaction (issue 6, "Merge").

    Moves every authorship, external identity, follow (accounts, through
    :data:`curation.signals.researchers_merged`) and name variant of ``merged_ids`` to the
    survivor; sets ``merged_into`` on the merged records and re-points records merged into
    them at the survivor (chains flatten); gives the survivor the one ORCID iD when it had
    none; writes must-link constraints so the matcher keeps the merged slots together (and
    drops cannot-links among them). Rows are locked in id order
    (:func:`curation.records.lock_researchers`).

    Returns the append-only :class:`CurationRecord` (``kind=merge``; ``changes`` lists
    exactly what moved) after appending a signed ``researcher_merged`` provenance event.
    Raises :class:`CurationError` without a reason or with nothing to merge,
    :class:`OrcidConflict` for two different ORCID iDs unless ``override_orcid``,
    :class:`CurationConflict` when a record is missing or a merged one was merged away
    meanwhile. A survivor merged away meanwhile is followed one hop to its own survivor
    (:func:`merge_check`; ``changes["followed"]`` records it); two hops are refused.
    """
    with transaction.atomic():
        plan = merge_check(
            survivor_id=survivor_id, merged_ids=merged_ids, reason=reason, override_orcid=override_orcid
        )
        return merge_do(plan, editor=editor)
