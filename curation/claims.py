"""Researchers claiming their own record (issue 31): a proved claim at once, any other for review.

:func:`researcher_claim` makes a claim, :func:`claim_decide` is an editor's approval or
refusal, :func:`claim_undo_changes` and :func:`claim_restore` are what
:func:`curation.undo.curation_undo` uses to revert either. The caller (a view) passes the
ORCID iD the user *proved* by signing in with ORCID (allauth's ``SocialAccount`` uid of
provider ``orcid``); an iD typed into a form is evidence for the editors, never proof.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from researchers.models import Authorship, ExternalIdentity, IdentitySource, Researcher
from researchers.orcid import InvalidOrcid, normalize_orcid, orcid_or_none
from researchers.selectors import researcher_resolve

from .errors import CurationConflict, CurationError
from .models import CurationRecord, ResearcherClaim
from .records import attest, lock_researchers, next_record_id, researcher_states, write_record

# The reason a claim proved by ORCID sign-in is recorded with.
PROVED_REASON = "Claimed by the researcher, proved by ORCID sign-in"
REVIEW_REASON = "Claimed by a user, for an editor to review"
# Papers of a claimed record that get the signed attestation (newest first); a record with
# more is a merge to look at, not a person, and the rest keep their snapshots as they are.
ATTESTED_PAPERS_MAX = 2000


def attested_positions(authorships) -> tuple[dict[int, list[int]], dict[int, str]]:
    """The papers of ``authorships`` (a queryset of :class:`Authorship`) an attestation goes
    to, newest first and at most :data:`ATTESTED_PAPERS_MAX`: ``({paper id: [author
    positions]}, {paper id: arXiv id})``. One query."""
    positions: dict[int, list[int]] = {}
    arxiv_ids: dict[int, str] = {}
    rows = authorships.order_by("-paper__submitted_at", "paper_id", "slot__position").values_list(
        "paper_id", "paper__arxiv_id", "slot__position"
    )
    for paper_id, arxiv_id, position in rows:
        if paper_id not in positions and len(positions) >= ATTESTED_PAPERS_MAX:
            continue
        positions.setdefault(paper_id, []).append(position)
        arxiv_ids[paper_id] = arxiv_id
    return positions, arxiv_ids


def claim_attest(
    *,
    record_id: int,
    researcher_id: int,
    strong: bool,
    orcid: str,
    attestation: str = "claim",
    extra: dict | None = None,
) -> list[str]:
    """Sign the claim into each paper of the researcher (at most :data:`ATTESTED_PAPERS_MAX`,
    newest first): an ``author_attestation`` event with payload ``{"attestation": "claim",
    "curation_id", "researcher_id", "arxiv_id", "positions": [author positions], "strong",
    "orcid"}`` (``orcid`` the iD proved, ``""`` for a claim an editor approved). The owner's
    other word on the whole record signs the same way with its own ``attestation``
    (``name_variant``, ``display_name``: :mod:`curation.names`) and ``extra`` keys added to
    each payload (``{"name": ...}``). Returns the event ids (``[]`` when none could be
    signed: :func:`curation.records.attest`)."""
    positions, arxiv_ids = attested_positions(Authorship.objects.filter(researcher_id=researcher_id))
    items = [
        (
            paper_id,
            {
                "attestation": attestation,
                "curation_id": record_id,
                "researcher_id": researcher_id,
                "arxiv_id": arxiv_ids[paper_id],
                "positions": sorted(slots),
                "strong": bool(strong),
                "orcid": orcid if strong else "",
                **(extra or {}),
            },
        )
        for paper_id, slots in positions.items()
    ]
    return attest(items)


def researcher_orcids(researcher_id: int) -> set[str]:
    """Every ORCID iD researcher ``researcher_id`` holds: its ``orcid`` and its ORCID
    external identities (a merged record keeps the others' iDs there). Two queries."""
    held = set(
        ExternalIdentity.objects.filter(researcher_id=researcher_id, source=IdentitySource.ORCID).values_list(
            "external_id", flat=True
        )
    )
    own = Researcher.objects.filter(pk=researcher_id).values_list("orcid", flat=True).first()
    return {o for o in (orcid_or_none(v) for v in held | {own}) if o}


def researcher_for_orcid(orcid: str) -> Researcher | None:
    """The researcher holding ``orcid`` (any form :func:`researchers.orcid.normalize_orcid`
    reads), as its ``orcid`` or an ORCID identity, followed along ``merged_into`` to the
    survivor; ``None`` when nobody holds it or it is not an iD."""
    value = orcid_or_none(orcid)
    if value is None:
        return None
    holder = (
        Researcher.objects.filter(orcid=value).values_list("pk", flat=True).first()
        or ExternalIdentity.objects.filter(source=IdentitySource.ORCID, external_id=value)
        .values_list("researcher_id", flat=True)
        .first()
    )
    return researcher_resolve(holder)[0] if holder else None


def claim_owner(researcher_id: int) -> ResearcherClaim | None:
    """The approved claim on researcher ``researcher_id`` or on a record merged into it (a
    merge keeps the claim on the record claimed, and flattens chains, so one hop finds it;
    a merge of records two users own is refused, :func:`claim_owners`; of two records one
    user owns, the older claim), else ``None``."""
    return (
        ResearcherClaim.objects.filter(
            Q(researcher_id=researcher_id) | Q(researcher__merged_into_id=researcher_id),
            status=ResearcherClaim.Status.APPROVED,
        )
        .select_related("user")
        .order_by("created_at", "id")
        .first()
    )


def claim_owners(researcher_ids: Iterable[int]) -> dict[int, int]:
    """``{user id: researcher id}``: the users holding an approved claim on one of
    ``researcher_ids`` (the oldest claim's record for a user with several). A merge refuses
    records owned by two users (:func:`curation.merge.merge_check`): the owner's word binds
    the matcher, and one record cannot hold two people's. One query."""
    owners: dict[int, int] = {}
    for user_id, researcher_id in (
        ResearcherClaim.objects.filter(
            researcher_id__in=list(researcher_ids), status=ResearcherClaim.Status.APPROVED
        )
        .order_by("created_at", "id")
        .values_list("user_id", "researcher_id")
    ):
        owners.setdefault(user_id, researcher_id)
    return owners


def claim_of_owner(user, researcher_id: int, *, may: str) -> ResearcherClaim:
    """``user``'s approved claim owning researcher ``researcher_id`` (:func:`claim_owner`);
    raises :class:`CurationError` ("only the researcher who claimed record N can ``may``")
    for anyone else, an anonymous user, or a record nobody owns."""
    claim = claim_owner(int(researcher_id))
    if claim is None or user is None or claim.user_id != user.pk:
        raise CurationError(f"only the researcher who claimed record {researcher_id} can {may}")
    return claim


@dataclass
class ClaimPlan:
    """A claim :func:`claim_check` accepted: the survivor ``researcher`` (locked), whether it
    is ``proved``, the ``orcid`` to keep, the ``evidence`` and the ``reason`` recorded."""

    researcher: Researcher
    proved: bool
    orcid: str
    evidence: str
    reason: str


def _typed(orcid: str) -> str:
    """A typed iD normalised, ``""`` when empty; raises :class:`CurationError` when it is not an iD."""
    if not (orcid or "").strip():
        return ""
    try:
        return normalize_orcid(orcid)
    except InvalidOrcid as exc:
        raise CurationError(str(exc)) from exc


def claim_check(
    *, user, researcher_id: int, verified_orcid: str | None, typed_orcid: str = "", evidence: str = ""
) -> ClaimPlan:
    """Validate a claim and lock the researcher (the survivor when ``researcher_id`` was merged).

    Must run inside a transaction; writes nothing. Proved when ``verified_orcid`` is held by
    the researcher (:func:`researcher_orcids`). Raises :class:`CurationError` for an
    anonymous user, an unknown researcher, a typed value that is not an iD, an unproved
    claim without evidence or typed iD, a researcher already claimed (by anyone), or a claim
    of this user's still waiting.
    """
    if user is None or not user.is_authenticated:
        raise CurationError("sign in to claim a researcher")
    researcher = researcher_resolve(int(researcher_id))[0]
    if researcher is None:
        raise CurationError(f"no researcher {researcher_id}")
    rows = lock_researchers([researcher.pk])
    researcher = rows[researcher.pk]
    if researcher.merged_into_id:
        raise CurationConflict(f"researcher {researcher.pk} was merged meanwhile; try again")
    verified = orcid_or_none(verified_orcid)
    proved = verified is not None and verified in researcher_orcids(researcher.pk)
    typed = _typed(typed_orcid)
    evidence = (evidence or "").strip()
    if not proved and not (evidence or typed or verified):
        raise CurationError("say why this record is yours (or sign in with ORCID): editors review the claim")
    owner = claim_owner(researcher.pk)
    if owner is not None:
        who = "you" if owner.user_id == user.pk else "someone else"
        raise CurationError(f"researcher {researcher.pk} is already claimed by {who}")
    if ResearcherClaim.objects.filter(
        researcher=researcher, user=user, status=ResearcherClaim.Status.PENDING
    ).exists():
        raise CurationError("your claim on this researcher is waiting for an editor")
    reason = PROVED_REASON if proved else REVIEW_REASON
    return ClaimPlan(researcher, proved, verified if proved else (typed or verified or ""), evidence, reason)


def claim_do(plan: ClaimPlan, *, user) -> ResearcherClaim:
    """Write a checked claim (in the transaction of :func:`claim_check`): the
    :class:`ResearcherClaim` (``approved`` and ``strong`` when proved, else ``pending``), its
    ``kind=claim`` :class:`CurationRecord` and, when proved, the signed attestations on the
    researcher's papers (:func:`claim_attest`). Returns the claim."""
    rid = plan.researcher.pk
    status = ResearcherClaim.Status.APPROVED if plan.proved else ResearcherClaim.Status.PENDING
    record_id = next_record_id()
    events = (
        claim_attest(record_id=record_id, researcher_id=rid, strong=True, orcid=plan.orcid)
        if plan.proved
        else []
    )
    states = researcher_states([rid])
    record = write_record(
        record_id=record_id,
        kind=CurationRecord.Kind.CLAIM,
        editor=user,
        reason=plan.reason,
        researcher_id=rid,
        researcher_ids=[rid],
        changes={
            "researcher": rid,
            "orcid": plan.orcid,
            "strong": plan.proved,
            "evidence": plan.evidence,
            "before": states,
            "after": states,
            "authorships": [],
            "identities": [],
            "claim_status": {"from": None, "to": status},
            "attestations": len(events),
        },
        event=events[0] if events else "",
    )
    try:
        with transaction.atomic():
            claim = ResearcherClaim.objects.create(
                researcher=plan.researcher,
                user=user,
                status=status,
                strong=plan.proved,
                orcid=plan.orcid,
                evidence=plan.evidence,
                record=record,
                decided_at=timezone.now() if plan.proved else None,
            )
    except IntegrityError as exc:  # another claim won the race for the same record
        raise CurationConflict(f"researcher {rid} was claimed meanwhile") from exc
    return claim


def researcher_claim(
    *, user, researcher_id: int, verified_orcid: str | None, typed_orcid: str = "", evidence: str = ""
) -> ResearcherClaim:
    """Claim researcher ``researcher_id`` (or the survivor it was merged into) for ``user``.

    ``verified_orcid`` is the iD the user proved by ORCID sign-in (``None`` without one):
    when the researcher holds it, the claim is approved at once (``strong``); otherwise the
    claim waits for an editor with ``evidence`` and ``typed_orcid``. Returns the
    :class:`ResearcherClaim`; its ``record`` is the ``kind=claim`` curation record, which an
    editor can undo. Errors: :func:`claim_check`.
    """
    with transaction.atomic():
        plan = claim_check(
            user=user,
            researcher_id=researcher_id,
            verified_orcid=verified_orcid,
            typed_orcid=typed_orcid,
            evidence=evidence,
        )
        return claim_do(plan, user=user)


def claim_decide(*, claim_id: int, editor, approve: bool, reason: str) -> ResearcherClaim:
    """An editor approves or refuses a pending claim; returns it, decided.

    Writes a ``claim_approve`` (with the signed attestations of :func:`claim_attest`) or
    ``claim_refuse`` :class:`CurationRecord` (undoable: the claim goes back to ``pending``
    and the attestations are withdrawn). Raises :class:`CurationError` without a reason or for
    a claim that is not pending, :class:`CurationConflict` when approving a researcher
    someone else owns meanwhile.
    """
    reason = (reason or "").strip()
    if not reason:
        raise CurationError("a reason is required")
    with transaction.atomic():
        claim = ResearcherClaim.objects.select_for_update().filter(pk=claim_id).first()
        if claim is None:
            raise CurationError(f"no claim {claim_id}")
        if claim.status != ResearcherClaim.Status.PENDING:
            raise CurationError(f"claim {claim_id} is {claim.get_status_display().lower()}, not waiting")
        # The record may have been merged away since the claim was made: its survivor and
        # every record merged into it are locked too (one statement, in id order), for one
        # record holds one person's word.
        into = (
            Researcher.objects.filter(pk=claim.researcher_id).values_list("merged_into_id", flat=True).first()
        )
        rows = lock_researchers([claim.researcher_id, *([into] if into else [])])
        if claim.researcher_id in rows and rows[claim.researcher_id].merged_into_id != into:
            raise CurationConflict(f"researcher {claim.researcher_id} was merged meanwhile; try again")
        if approve and claim_owner(claim.researcher_id) is not None:
            raise CurationConflict(f"researcher {claim.researcher_id} is claimed by someone else already")
        if approve and into and set(claim_owners(rows)) - {claim.user_id}:
            raise CurationConflict(f"researcher {into} is claimed by someone else already")
        status = ResearcherClaim.Status.APPROVED if approve else ResearcherClaim.Status.REFUSED
        states = researcher_states([claim.researcher_id])
        record_id = next_record_id()
        events = (
            claim_attest(record_id=record_id, researcher_id=claim.researcher_id, strong=False, orcid="")
            if approve
            else []
        )
        record = write_record(
            record_id=record_id,
            kind=CurationRecord.Kind.CLAIM_APPROVE if approve else CurationRecord.Kind.CLAIM_REFUSE,
            editor=editor,
            reason=reason,
            researcher_id=claim.researcher_id,
            researcher_ids=[claim.researcher_id],
            changes={
                "researcher": claim.researcher_id,
                "claim": claim.pk,
                "claimant": claim.user_id,
                "before": states,
                "after": states,
                "authorships": [],
                "identities": [],
                "claim_status": {"from": claim.status, "to": status},
                "attestations": len(events),
            },
            event=events[0] if events else "",
        )
        ResearcherClaim.objects.filter(pk=claim.pk).update(
            status=status, decision=record, decided_at=timezone.now()
        )
        claim.refresh_from_db()
        return claim


def _claim_of(record: CurationRecord) -> ResearcherClaim | None:
    if record.kind == CurationRecord.Kind.CLAIM:
        return ResearcherClaim.objects.select_for_update().filter(record=record).first()
    return ResearcherClaim.objects.select_for_update().filter(pk=(record.changes or {}).get("claim")).first()


def claim_undo_problems(record: CurationRecord) -> list[str]:
    """Why undoing the claim record ``record`` (a claim, approval or refusal) would clobber a
    later decision: the claim's status is no longer the one the record left (``[]``: none).
    Locks the claim. Other kinds: ``[]``."""
    moved = (record.changes or {}).get("claim_status")
    if not moved:
        return []
    claim = _claim_of(record)
    if claim is None:
        return [f"the claim of record #{record.pk} no longer exists"]
    if claim.status != moved["to"]:
        return [f"claim {claim.pk} is {claim.status} now, not {moved['to']}"]
    return []


def claim_restore(record: CurationRecord) -> dict | None:
    """Revert the claim status ``record`` set: an approval or a refusal back to ``pending``,
    a claim itself to ``withdrawn``. Returns ``{"claim", "from", "to"}`` (what the undo did),
    or ``None`` for a record that set no claim status."""
    moved = (record.changes or {}).get("claim_status")
    claim = _claim_of(record) if moved else None
    if claim is None:
        return None
    back = ResearcherClaim.Status.WITHDRAWN if moved["from"] is None else moved["from"]
    ResearcherClaim.objects.filter(pk=claim.pk).update(status=back)
    return {"claim": claim.pk, "from": moved["to"], "to": back}


def claims_for_review() -> list[ResearcherClaim]:
    """The editors' queue: pending claims, oldest first, with researcher and user loaded."""
    return list(
        ResearcherClaim.objects.filter(status=ResearcherClaim.Status.PENDING)
        .select_related("researcher", "user")
        .order_by("created_at", "id")
    )


def claims_of_user(user) -> list[ResearcherClaim]:
    """A user's claims, newest first, with their researchers."""
    return list(
        ResearcherClaim.objects.filter(user=user).select_related("researcher").order_by("-created_at")
    )


def owned_researcher_ids(researcher_ids: Iterable[int]) -> set[int]:
    """Which of ``researcher_ids`` are claimed (an approved claim). One query."""
    return set(
        ResearcherClaim.objects.filter(
            Q(researcher_id__in=list(researcher_ids)), status=ResearcherClaim.Status.APPROVED
        ).values_list("researcher_id", flat=True)
    )
