"""A signed-in user claims a researcher profile (issue 31); the rules are curation's.

Each view reads the iD the user proved by ORCID sign-in (:func:`accounts.orcid.selectors.verified_orcid`)
and hands it to one curation service; a typed iD goes in as evidence only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from curation.claims import claim_owner, claims_of_user, researcher_claim, researcher_for_orcid
from curation.errors import CurationError
from curation.models import MergeProposal, ResearcherClaim
from curation.names import researcher_display_name_choose, researcher_name_add, researcher_names
from curation.owner import authorship_mine, authorship_not_mine
from curation.proposals import merge_propose, proposal_candidates, proposal_withdraw, proposals_of_user
from curation.take import authorship_take, review_take, take_candidates
from researchers.evidence import evidence_owner_confirmed
from researchers.models import Authorship, Researcher
from researchers.selectors import researcher_resolve

from .claim_forms import ClaimForm, NameForm, ProposalForm
from .orcid.selectors import verified_orcid

# Papers listed on the owner's page (newest first); a record with more is rare and the rest
# stay reachable from the researcher page.
OWNER_PAPERS_SHOWN = 500
DECISIONS = {"mine": authorship_mine, "not-mine": authorship_not_mine}
NAME_ACTIONS = {"add": researcher_name_add, "display": researcher_display_name_choose}


def _owned_claim(request: HttpRequest, pk: int) -> ResearcherClaim:
    """The user's approved claim ``pk`` (404 for anyone else's, or one not approved)."""
    claim = (
        ResearcherClaim.objects.filter(pk=pk, user=request.user, status=ResearcherClaim.Status.APPROVED)
        .select_related("researcher")
        .first()
    )
    if claim is None:
        raise Http404("no such claim of yours")
    return claim


def _owned_record(request: HttpRequest, pk: int) -> tuple[ResearcherClaim, Researcher]:
    """The user's approved claim ``pk`` and the record it owns now: the claimed one, or the
    survivor it was merged into (404 as :func:`_owned_claim`)."""
    claim = _owned_claim(request, pk)
    return claim, researcher_resolve(claim.researcher_id)[0] or claim.researcher


@require_safe
@login_required
def claims_home(request: HttpRequest) -> HttpResponse:
    """``/accounts/claims/``: the iD the user proved (or how to prove one), the researcher
    holding it with a one-click claim, the user's claims and merge proposals with their
    status. Where ORCID sign-in lands."""
    orcid = verified_orcid(request.user)
    match = researcher_for_orcid(orcid) if orcid else None
    claims = claims_of_user(request.user)
    owner = claim_owner(match.pk) if match else None
    return render(
        request,
        "accounts/claims.html",
        {
            "orcid": orcid,
            "match": match,
            "match_owner": owner,
            "claims": claims,
            "proposals": proposals_of_user(request.user),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def claim_researcher(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/claims/researcher/<id>``: GET shows the claim form (the evidence and an
    optional typed iD for the editors); POST claims. A claim the user's ORCID sign-in proves
    is approved at once; any other goes to the editors' queue. Either way the user lands on
    the researcher page with a message saying which."""
    researcher = researcher_resolve(int(pk))[0]
    if researcher is None:
        raise Http404("no such researcher")
    orcid = verified_orcid(request.user)
    form = ClaimForm(request.POST if request.method == "POST" else None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            claim = researcher_claim(
                user=request.user,
                researcher_id=researcher.pk,
                verified_orcid=orcid,
                typed_orcid=form.cleaned_data["orcid"],
                evidence=form.cleaned_data["evidence"],
            )
        except CurationError as exc:
            error = str(exc)
        else:
            if claim.strong:
                messages.success(
                    request, f"You have claimed {researcher.display_name}: your ORCID iD proves it."
                )
            else:
                messages.info(request, f"Your claim on {researcher.display_name} is waiting for an editor.")
            return HttpResponseRedirect(researcher.get_absolute_url())
    return render(
        request,
        "accounts/claim_form.html",
        {
            "researcher": researcher,
            "form": form,
            "error": error,
            "orcid": orcid,
            "connect_url": reverse("socialaccount_connections"),
        },
    )


@require_safe
@login_required
def owner_papers(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/claims/<claim id>/papers``: the claimed record's papers (the survivor's
    when it was merged since), newest first (at most :data:`OWNER_PAPERS_SHOWN`), each with
    "Mine" and "Not mine"; the owner only."""
    claim, researcher = _owned_record(request, pk)
    authorships = list(
        Authorship.objects.filter(researcher_id=researcher.pk)
        .select_related("paper", "slot")
        .order_by("-paper__submitted_at", "paper__arxiv_id", "slot__position")[:OWNER_PAPERS_SHOWN]
    )
    rows = [{"authorship": a, "confirmed": evidence_owner_confirmed(a.evidence)} for a in authorships]
    return render(
        request, "accounts/owner_papers.html", {"claim": claim, "researcher": researcher, "rows": rows}
    )


@require_POST
@login_required
def owner_decide(request: HttpRequest, pk: int, authorship: int, decision: str) -> HttpResponse:
    """POST ``/accounts/claims/<claim id>/authorships/<authorship id>/<mine|not-mine>``: the
    owner's decision on one paper (:func:`curation.owner.authorship_mine` or
    :func:`~curation.owner.authorship_not_mine`); back to the papers page with a message."""
    claim, researcher = _owned_record(request, pk)
    act = DECISIONS.get(decision)
    if act is None:
        raise Http404("no such decision")
    try:
        record = act(user=request.user, researcher_id=researcher.pk, authorship_id=authorship)
    except CurationError as exc:
        messages.error(request, str(exc))
    else:
        arxiv_id = record.changes.get("arxiv_id") or ""
        if decision == "mine":
            messages.success(request, f"arXiv {arxiv_id}: confirmed as yours.")
        else:
            messages.success(request, "Removed from your profile; matching will not bring it back.")
    return HttpResponseRedirect(reverse("claims:papers", args=[claim.pk]))


@require_safe
@login_required
def owner_take_list(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/claims/<claim id>/take``: papers that may be the owner's, each with "Take
    it": other records' unconfirmed links in the owner's names, and slots the matcher left
    for review with the owner among their candidates (:func:`curation.take.take_candidates`)."""
    claim, researcher = _owned_record(request, pk)
    candidates = take_candidates(researcher.pk)
    return render(
        request,
        "accounts/owner_take.html",
        {"claim": claim, "researcher": researcher, "links": candidates.links, "reviews": candidates.reviews},
    )


def _take(request: HttpRequest, pk: int, act, **ids) -> HttpResponse:
    claim, researcher = _owned_record(request, pk)
    try:
        record = act(user=request.user, researcher_id=researcher.pk, **ids)
    except CurationError as exc:
        messages.error(request, str(exc))
    else:
        arxiv_id = record.changes.get("arxiv_id") or (
            Authorship.objects.filter(pk=ids.get("authorship_id"))
            .values_list("paper__arxiv_id", flat=True)
            .first()
        )
        messages.success(request, f"arXiv {arxiv_id}: now on your profile.")
    return HttpResponseRedirect(reverse("claims:take", args=[claim.pk]))


def owner_merge(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/claims/<claim id>/merge?q=``: other records of the owner's to propose
    merging into their claimed record (the survivor's when it was merged since): the
    same-name suggestions, the name search of ``q``, each with a "This is also me" form or
    the reason it cannot be proposed; and the user's proposals with a Withdraw button on
    those waiting. The owner only."""
    claim, researcher = _owned_record(request, pk)
    query = request.GET.get("q", "").strip()[:200]
    suggestions, results = proposal_candidates(user=request.user, researcher=researcher, query=query)
    return render(
        request,
        "accounts/owner_merge.html",
        {
            "claim": claim,
            "researcher": researcher,
            "query": query,
            "suggestions": suggestions,
            "results": results,
            "proposals": [p for p in proposals_of_user(request.user) if p.claim_id == claim.pk],
        },
    )


@require_POST
@login_required
def owner_propose(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    """POST ``/accounts/claims/<claim id>/merge/<researcher id>`` (field ``evidence``,
    optional): propose that researcher ``other`` is the owner too
    (:func:`curation.proposals.merge_propose`); back to the merge page with a message."""
    claim = _owned_claim(request, pk)
    form = ProposalForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Evidence is at most 4000 characters.")
        return HttpResponseRedirect(reverse("claims:merge", args=[claim.pk]))
    try:
        proposal = merge_propose(
            user=request.user, claim_id=claim.pk, other_id=other, evidence=form.cleaned_data["evidence"]
        )
    except CurationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Proposed: {proposal.other.display_name} is you too. An editor will confirm or refuse it.",
        )
    return HttpResponseRedirect(reverse("claims:merge", args=[claim.pk]))


@require_POST
@login_required
def owner_take_link(request: HttpRequest, pk: int, authorship: int) -> HttpResponse:
    """POST ``/accounts/claims/<claim id>/take/link/<authorship id>``: take another record's
    unconfirmed link (:func:`curation.take.authorship_take`); back to the list with a message."""
    return _take(request, pk, authorship_take, authorship_id=authorship)


@require_POST
@login_required
def owner_take_review(request: HttpRequest, pk: int, slot: int) -> HttpResponse:
    """POST ``/accounts/claims/<claim id>/take/review/<slot id>``: take a slot left for review
    (:func:`curation.take.review_take`); back to the list with a message."""
    return _take(request, pk, review_take, slot_id=slot)


def owner_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    """POST ``/accounts/claims/proposals/<proposal id>/withdraw``: the user takes back a
    waiting merge proposal (:func:`curation.proposals.proposal_withdraw`); back to the
    profile page with a message. Anyone else's proposal answers 404."""
    proposal = MergeProposal.objects.filter(pk=pk, user=request.user).first()
    if proposal is None:
        raise Http404("no such proposal of yours")
    try:
        proposal_withdraw(user=request.user, proposal_id=proposal.pk)
    except CurationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, f"Proposal withdrawn: {proposal.other.display_name} stays a separate record."
        )
    return HttpResponseRedirect(reverse("claims:merge", args=[proposal.claim_id]))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def owner_names(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/claims/<claim id>/names``: the claimed record's names (the survivor's when
    it was merged since), each with "Use as display name", and a form to add one; the owner
    only (404 for anyone else). POST ``action`` ``add`` (:func:`curation.names.researcher_name_add`)
    or ``display`` (:func:`~curation.names.researcher_display_name_choose`, a listed name or
    one typed) with ``name``: back here with a message, or the page again with the error and
    the name as typed (status 400)."""
    claim, researcher = _owned_record(request, pk)
    form = NameForm(request.POST if request.method == "POST" else None)
    error, status = "", 200
    if request.method == "POST":
        act = NAME_ACTIONS.get(request.POST.get("action", ""))
        if act is None:
            error = "Choose “Add a name” or “Use as display name”."
        elif form.is_valid():
            try:
                record = act(user=request.user, researcher_id=researcher.pk, name=form.cleaned_data["name"])
            except CurationError as exc:
                error = str(exc)
            else:
                name = record.changes["name"]
                if record.kind == "display_name":
                    messages.success(request, f"“{name}” is now the name your profile shows.")
                else:
                    messages.success(request, f"“{name}” added to your names.")
                return HttpResponseRedirect(reverse("claims:names", args=[claim.pk]))
        status = 400
    declared = set(researcher.declared_names)
    rows = [
        {"name": name, "display": name == researcher.display_name, "declared": name in declared}
        for name in researcher_names(researcher)
    ]
    return render(
        request,
        "accounts/owner_names.html",
        {"claim": claim, "researcher": researcher, "rows": rows, "form": form, "error": error},
        status=status,
    )
