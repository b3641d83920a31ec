"""The owner of a claimed record proposes merging other records of theirs; an editor decides (issue 31).

:func:`merge_propose` (``proposal_check`` then ``proposal_do``) is the owner's "this is also
me", :func:`proposal_decide` an editor's confirmation (an ordinary merge,
:func:`curation.merge.merge_do`, naming the proposal, with signed attestations on the
merged papers) or refusal, :func:`proposal_withdraw` the owner taking a waiting proposal
back (an undo of the proposal's record). Every step is a :class:`CurationRecord` an editor
can undo (:mod:`curation.proposal_states` puts the proposal's status back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from researchers.models import Authorship, Researcher
from researchers.selectors import researcher_resolve, researchers_matching

from .claims import attested_positions, claim_owner
from .errors import CurationConflict, CurationError
from .merge import merge_check, merge_do
from .models import CurationRecord, MergeProposal, PairDecision, ResearcherClaim
from .permissions import user_can_curate
from .queue import same_name_queue
from .records import attest, lock_researchers, next_record_id, require_reason, write_record
from .undo import curation_undo

PROPOSAL_REASON = "Proposed by the researcher: the other record is theirs too"
WITHDRAW_REASON = "Withdrawn by the researcher"
# Name search answers and same-name suggestions listed on the owner's page.
CANDIDATES_SHOWN = 20
# The owner's names the suggestions are looked up under (the display name first).
SUGGESTION_NAMES = 4


@dataclass
class ProposalPlan:
    """A proposal :func:`proposal_check` accepted: the user's approved ``claim``, their
    record ``researcher`` (the claimed one's survivor) and the ``other`` record (the survivor
    of the one asked for), both locked; ``evidence`` stripped."""

    claim: ResearcherClaim
    researcher: Researcher
    other: Researcher
    evidence: str


def proposal_refusals(*, user, researcher_id: int, other_ids: Sequence[int]) -> dict[int, str]:
    """Why ``user``, owner of ``researcher_id``, may not propose each of ``other_ids``
    (active records): ``{id: reason}``, an id missing when it may be proposed. Refused:
    their own record, a record claimed by another user (an approved claim on it or on a
    record merged into it), a pair an editor declared not the same person
    (:class:`PairDecision`), and a pair with a proposal waiting already. Three queries."""
    own, others = int(researcher_id), sorted({int(i) for i in other_ids})
    out: dict[int, str] = {i: "this is your own record" for i in others if i == own}
    owners = ResearcherClaim.objects.filter(
        Q(researcher_id__in=others) | Q(researcher__merged_into_id__in=others),
        status=ResearcherClaim.Status.APPROVED,
    ).values_list("researcher_id", "researcher__merged_into_id", "user_id")
    for rid, into, owner in owners:
        if owner != user.pk:
            out.setdefault(into or rid, "claimed by someone else: the editors can settle it, ask them")
    pairs = PairDecision.objects.filter(
        Q(researcher_low=own, researcher_high__in=others) | Q(researcher_high=own, researcher_low__in=others)
    ).values_list("researcher_low", "researcher_high", "record_id")
    for low, high, record_id in pairs:
        out.setdefault(
            high if low == own else low, f"an editor declared it a different person (curation #{record_id})"
        )
    waiting = MergeProposal.objects.filter(
        Q(researcher_id=own, other_id__in=others) | Q(other_id=own, researcher_id__in=others),
        status=MergeProposal.Status.PENDING,
    ).values_list("researcher_id", "other_id")
    for a, b in waiting:
        out.setdefault(b if a == own else a, "your proposal is waiting for an editor")
    return out


def _owned_claim(user, claim_id: int) -> ResearcherClaim:
    claim = (
        ResearcherClaim.objects.filter(pk=claim_id, status=ResearcherClaim.Status.APPROVED)
        .select_related("researcher")
        .first()
    )
    if claim is None or user is None or not user.is_authenticated or claim.user_id != user.pk:
        raise CurationError("only the researcher who claimed a record can propose merging others into it")
    return claim


def proposal_check(*, user, claim_id: int, other_id: int, evidence: str = "") -> ProposalPlan:
    """Validate the owner's proposal and lock both records (in id order).

    Must run inside a transaction; writes nothing. The claimed record is followed to its
    survivor, and so is ``other_id`` (a record merged away: the proposal is about its
    survivor). Raises :class:`CurationError` when ``user`` does not own claim ``claim_id``
    (approved), for an unknown researcher, when ``other_id`` is (or was merged into) their
    own record, and for the refusals of :func:`proposal_refusals`;
    :class:`CurationConflict` when a record was merged while we waited for its lock.
    """
    claim = _owned_claim(user, claim_id)
    own = researcher_resolve(claim.researcher_id)[0]
    other = researcher_resolve(int(other_id))[0]
    if own is None or other is None:
        raise CurationError(f"no researcher {other_id}")
    if other.pk == own.pk and int(other_id) != own.pk:
        raise CurationError(f"researcher {other_id} was merged into your record already")
    rows = lock_researchers([own.pk, other.pk])
    if rows[own.pk].merged_into_id or rows[other.pk].merged_into_id:
        raise CurationConflict("a record was merged meanwhile; try again")
    refusal = proposal_refusals(user=user, researcher_id=own.pk, other_ids=[other.pk]).get(other.pk)
    if refusal:
        raise CurationError(f"researcher {other.pk}: {refusal}")
    return ProposalPlan(claim, rows[own.pk], rows[other.pk], (evidence or "").strip())


def proposal_do(plan: ProposalPlan, *, user) -> MergeProposal:
    """Write a checked proposal (in the transaction of :func:`proposal_check`): its
    ``kind=merge_proposal`` :class:`CurationRecord` (``editor`` the user; shown on both
    records' pages; it changes no researcher, so ``before`` is empty) and the pending
    :class:`MergeProposal`. Returns the proposal."""
    own, other = plan.researcher.pk, plan.other.pk
    record = write_record(
        record_id=next_record_id(),
        kind=CurationRecord.Kind.MERGE_PROPOSAL,
        editor=user,
        reason=PROPOSAL_REASON,
        researcher_id=own,
        researcher_ids=[own, other],
        changes={
            "researcher": own,
            "other": other,
            "claim": plan.claim.pk,
            "evidence": plan.evidence,
            "before": {},
            "after": {},
            "authorships": [],
            "identities": [],
            "proposal_status": {"proposal": None, "from": None, "to": MergeProposal.Status.PENDING},
        },
        event="",
    )
    try:
        with transaction.atomic():
            return MergeProposal.objects.create(
                user=user,
                claim=plan.claim,
                researcher=plan.researcher,
                other=plan.other,
                evidence=plan.evidence,
                record=record,
            )
    except IntegrityError as exc:  # the same proposal, sent twice at once
        raise CurationConflict(f"your proposal to merge researcher {other} is waiting already") from exc


def merge_propose(*, user, claim_id: int, other_id: int, evidence: str = "") -> MergeProposal:
    """The owner of claim ``claim_id`` says researcher ``other_id`` is them too: a pending
    :class:`MergeProposal` for the editors (``/admin/curation/proposals/``). Returns it; its
    ``record`` is the ``kind=merge_proposal`` curation record (undone: the proposal is
    withdrawn). Errors: :func:`proposal_check`."""
    with transaction.atomic():
        plan = proposal_check(user=user, claim_id=claim_id, other_id=other_id, evidence=evidence)
        return proposal_do(plan, user=user)


def proposal_attest(*, record: CurationRecord, proposal: MergeProposal) -> list[str]:
    """Sign the confirmed merge into each merged paper (the moved authorships' papers, at
    most :data:`curation.claims.ATTESTED_PAPERS_MAX`, newest first): an ``author_attestation``
    event with payload ``{"attestation": "merge", "curation_id" (the merge record),
    "proposal", "researcher_id" (the survivor), "merged": [ids], "arxiv_id", "positions":
    [author positions], "strong", "orcid"}`` (``strong`` and ``orcid`` those of the owner's
    claim). Returns the event ids (:func:`curation.records.attest`)."""
    claim, changes = proposal.claim, record.changes
    positions, arxiv_ids = attested_positions(
        Authorship.objects.filter(pk__in=[m["id"] for m in changes["authorships"]])
    )
    base = {
        "attestation": "merge",
        "curation_id": record.pk,
        "proposal": proposal.pk,
        "researcher_id": changes["survivor"],
        "merged": changes["merged"],
    }
    owner = {"strong": bool(claim.strong), "orcid": claim.orcid if claim.strong else ""}
    return attest(
        [
            (paper_id, {**base, "arxiv_id": arxiv_ids[paper_id], "positions": sorted(slots), **owner})
            for paper_id, slots in positions.items()
        ]
    )


def _confirm(proposal: MergeProposal, *, editor, reason: str, override_orcid: bool) -> CurationRecord:
    """Merge the proposal's other record into the owner's (survivors of both, as now)."""
    own = researcher_resolve(proposal.researcher_id)[0]
    other = researcher_resolve(proposal.other_id)[0]
    if own is None or other is None or own.pk == other.pk:
        raise CurationConflict("the two records are one already (merged meanwhile)")
    owner = claim_owner(own.pk)
    if owner is None or owner.user_id != proposal.user_id:
        raise CurationConflict(f"the proposer no longer owns researcher {own.pk} (their claim was undone)")
    refusal = proposal_refusals(user=proposal.user, researcher_id=own.pk, other_ids=[other.pk]).get(other.pk)
    if refusal and not refusal.startswith("your proposal"):  # the proposal itself is waiting
        raise CurationConflict(f"researcher {other.pk}: {refusal}")
    plan = merge_check(
        survivor_id=own.pk, merged_ids=[other.pk], reason=reason, override_orcid=override_orcid
    )
    moved = {"proposal": proposal.pk, "from": proposal.status, "to": MergeProposal.Status.CONFIRMED}
    record = merge_do(
        plan,
        editor=editor,
        proposal={"proposal": proposal.pk, "claimant": proposal.user_id, "proposal_status": moved},
    )
    proposal_attest(record=record, proposal=proposal)
    return record


def _refuse(proposal: MergeProposal, *, editor, reason: str) -> CurationRecord:
    """The ``kind=proposal_refuse`` record (no researcher changes)."""
    ids = [proposal.researcher_id, proposal.other_id]
    lock_researchers(ids)
    return write_record(
        record_id=next_record_id(),
        kind=CurationRecord.Kind.PROPOSAL_REFUSE,
        editor=editor,
        reason=reason,
        researcher_id=proposal.researcher_id,
        researcher_ids=ids,
        changes={
            "researcher": proposal.researcher_id,
            "other": proposal.other_id,
            "proposal": proposal.pk,
            "claimant": proposal.user_id,
            "before": {},
            "after": {},
            "authorships": [],
            "identities": [],
            "proposal_status": {
                "proposal": proposal.pk,
                "from": proposal.status,
                "to": MergeProposal.Status.REFUSED,
            },
        },
        event="",
    )


def proposal_decide(
    *, proposal_id: int, editor, confirm: bool, reason: str, override_orcid: bool = False
) -> MergeProposal:
    """An editor confirms or refuses a pending merge proposal; returns it, decided.

    Confirming merges the other record into the owner's (which survives and keeps its ORCID
    iD), an ordinary ``merge`` record whose ``changes`` name the proposal (``proposal``,
    ``claimant``, ``proposal_status``): the merge rules apply (two different ORCID iDs are
    refused unless ``override_orcid``), must-links bind the matcher, and each merged paper
    gets a signed attestation (:func:`proposal_attest`). Refusing writes a
    ``proposal_refuse`` record. Both undoable: the proposal waits again.

    Raises :class:`CurationError` for a user who may not curate
    (:func:`curation.permissions.user_can_curate`), without a reason, or for a proposal not
    waiting; :class:`CurationConflict` when the records were merged meanwhile, the proposer's
    claim was undone, the other was claimed by someone else or declared a different person
    since; the merge's own errors
    (:func:`curation.merge.merge_check`).
    """
    if not user_can_curate(editor):
        raise CurationError("only editors decide merge proposals")
    reason = require_reason(reason)
    with transaction.atomic():
        proposal = (
            MergeProposal.objects.select_for_update(of=("self",))
            .select_related("claim")
            .filter(pk=proposal_id)
            .first()
        )
        if proposal is None:
            raise CurationError(f"no merge proposal {proposal_id}")
        if proposal.status != MergeProposal.Status.PENDING:
            raise CurationError(f"merge proposal {proposal_id} is {proposal.get_status_display().lower()}")
        if confirm:
            record = _confirm(proposal, editor=editor, reason=reason, override_orcid=override_orcid)
        else:
            record = _refuse(proposal, editor=editor, reason=reason)
        status = MergeProposal.Status.CONFIRMED if confirm else MergeProposal.Status.REFUSED
        MergeProposal.objects.filter(pk=proposal.pk).update(
            status=status, decision=record, editor=editor, decided_at=timezone.now()
        )
        proposal.refresh_from_db()
        return proposal


def proposal_withdraw(*, user, proposal_id: int) -> CurationRecord:
    """The owner takes back their waiting proposal: the proposal's record is undone
    (:func:`curation.undo.curation_undo`, ``editor`` the user, reason
    :data:`WITHDRAW_REASON`) and the proposal is ``withdrawn``. Returns the ``undo`` record.
    Raises :class:`CurationError` for anyone else's proposal or one not waiting."""
    with transaction.atomic():
        proposal = MergeProposal.objects.select_for_update().filter(pk=proposal_id).first()
        if proposal is None or user is None or proposal.user_id != user.pk:
            raise CurationError("only the researcher who proposed a merge can withdraw it")
        if proposal.status != MergeProposal.Status.PENDING:
            raise CurationError(f"merge proposal {proposal_id} is {proposal.get_status_display().lower()}")
        return curation_undo(record_id=proposal.record_id, editor=user, reason=WITHDRAW_REASON)


# --------------------------------------------------------------------------- reads


def proposals_for_review() -> list[MergeProposal]:
    """The editors' queue: pending proposals, oldest first, with records and user loaded."""
    return list(
        MergeProposal.objects.filter(status=MergeProposal.Status.PENDING)
        .select_related("researcher", "other", "user", "record")
        .order_by("created_at", "id")
    )


def proposals_of_user(user) -> list[MergeProposal]:
    """A user's merge proposals, newest first, with both records and the decision loaded."""
    return list(
        MergeProposal.objects.filter(user=user)
        .select_related("researcher", "other", "decision")
        .order_by("-created_at", "-id")
    )


@dataclass
class Candidate:
    """A record the owner may propose (or is told why not): ``why`` it is offered (a
    same-name suggestion's tier, or ``"name search"``), ``refused`` the reason it may not
    be proposed (``""``: it may)."""

    researcher: Researcher
    why: str
    refused: str = ""


def _suggested(researcher: Researcher) -> list[tuple[int, str]]:
    """Records the same-name queue pairs with ``researcher`` under its names (display name,
    then name variants: :func:`curation.queue.same_name_queue` with each as its filter):
    ``[(id, the pair's tier in words)]``, best first, at most :data:`CANDIDATES_SHOWN`."""
    names = list(dict.fromkeys([researcher.display_name, *researcher.name_variants]))[:SUGGESTION_NAMES]
    found: dict[int, str] = {}
    for name in names:
        for pair in same_name_queue(name=name):
            if researcher.pk in (pair.a.pk, pair.b.pk):
                other = pair.b if pair.a.pk == researcher.pk else pair.a
                found.setdefault(other.pk, pair.tier_label)
    return list(found.items())[:CANDIDATES_SHOWN]


def proposal_candidates(
    *, user, researcher: Researcher, query: str = ""
) -> tuple[list[Candidate], list[Candidate]]:
    """The owner's page: ``(suggestions, search results)``. Suggestions are the records the
    same-name queue pairs with theirs (:func:`_suggested`: the same name block, name
    variants, compatible names; pairs declared distinct never appear); search results the
    site's name search of ``query`` (:func:`researchers.selectors.researchers_matching`),
    their own record left out, at most :data:`CANDIDATES_SHOWN`. Each with the reason it
    may not be proposed (:func:`proposal_refusals`)."""
    suggested = _suggested(researcher)
    found = list(researchers_matching(query).exclude(pk=researcher.pk)[:CANDIDATES_SHOWN]) if query else []
    by_id = Researcher.objects.in_bulk([pk for pk, _why in suggested])
    refusals = proposal_refusals(
        user=user, researcher_id=researcher.pk, other_ids=[*by_id, *(r.pk for r in found)]
    )
    suggestions = [Candidate(by_id[pk], why, refusals.get(pk, "")) for pk, why in suggested if pk in by_id]
    results = [Candidate(r, "name search", refusals.get(r.pk, "")) for r in found]
    return suggestions, results
