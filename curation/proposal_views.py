"""The editors' queue of researchers' merge proposals (issue 31): compare, confirm or refuse."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from researchers.selectors import researcher_resolve

from .errors import CurationError
from .models import MergeProposal
from .permissions import editor_required
from .proposals import proposal_decide, proposals_for_review
from .selectors import decisions_among, merge_evidence


@editor_required
def proposals_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/proposals/``: pending merge proposals, oldest first: the owner's
    record, the other record, the claimant and their evidence, and a link to compare and
    decide."""
    return render(
        request,
        "admin/curation/proposals.html",
        {
            **admin.site.each_context(request),
            "title": "Merge proposals from researchers",
            "proposals": proposals_for_review(),
        },
    )


@editor_required
def proposal_review_view(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/proposals/<id>/``: the two records side by side (the merge
    comparison's rows, :func:`curation.selectors.merge_evidence`, the owner's record first),
    the evidence, any "not the same person" decision and an ORCID conflict, and the
    Confirm / Refuse form (posted to :func:`proposal_decide_view`)."""
    proposal = (
        MergeProposal.objects.select_related("user", "claim", "record", "decision").filter(pk=pk).first()
    )
    if proposal is None:
        raise Http404("no such merge proposal")
    own = researcher_resolve(proposal.researcher_id)[0]
    other = researcher_resolve(proposal.other_id)[0]
    ids = [r.pk for r in (own, other) if r is not None]
    evidence = sorted(merge_evidence(ids), key=lambda e: e.researcher.pk != (own.pk if own else None))
    orcids = {e.researcher.orcid for e in evidence if e.researcher.orcid}
    return render(
        request,
        "admin/curation/proposal_review.html",
        {
            **admin.site.each_context(request),
            "title": f"Merge proposal #{proposal.pk}",
            "proposal": proposal,
            "evidence": evidence,
            "one_record": len(set(ids)) < 2,
            "decisions": decisions_among(ids),
            "orcid_conflict": len(orcids) > 1,
        },
    )


@require_POST
@editor_required
def proposal_decide_view(request: HttpRequest, pk: int) -> HttpResponse:
    """POST ``/admin/curation/proposals/<id>/decide``: fields ``decision`` (``confirm`` or
    ``refuse``), ``reason`` (required), ``override_orcid``; back to the queue with the
    result (a refused decision: back to the proposal's page with the reason)."""
    decision = request.POST.get("decision", "")
    if decision not in {"confirm", "refuse"}:
        messages.error(request, "Choose confirm or refuse.")
        return redirect("curation:proposal", pk)
    try:
        proposal = proposal_decide(
            proposal_id=pk,
            editor=request.user,
            confirm=decision == "confirm",
            reason=request.POST.get("reason", ""),
            override_orcid=bool(request.POST.get("override_orcid")),
        )
    except CurationError as exc:
        messages.error(request, f"Merge proposal {pk}: {exc}")
        return redirect("curation:proposal", pk)
    record = proposal.decision
    messages.success(
        request,
        format_html(
            'Merge proposal {} {} (<a href="{}">curation #{}</a>).',
            proposal.pk,
            "confirmed: the records are merged" if decision == "confirm" else "refused",
            reverse("admin:curation_curationrecord_change", args=[record.pk]),
            record.pk,
        ),
    )
    return redirect("curation:proposals")
