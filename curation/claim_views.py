"""The editors' queue of researcher claims needing review (issue 31): approve or refuse."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from .claims import claim_decide, claims_for_review, researcher_orcids
from .errors import CurationError
from .permissions import editor_required


@editor_required
def claims_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/claims/``: pending claims, oldest first, each with the claimant, the
    evidence, the iD given (and whether it is a typed one or the claimant's verified one that
    the record does not hold), the iDs the researcher holds, and Approve / Refuse forms."""
    rows = [
        {"claim": claim, "held": sorted(researcher_orcids(claim.researcher_id))}
        for claim in claims_for_review()
    ]
    return render(
        request,
        "admin/curation/claims.html",
        {**admin.site.each_context(request), "title": "Researcher claims to review", "rows": rows},
    )


@require_POST
@editor_required
def claim_decide_view(request: HttpRequest, pk: int) -> HttpResponse:
    """POST ``/admin/curation/claims/<id>/decide``: fields ``decision`` (``approve`` or
    ``refuse``) and ``reason`` (required); back to the queue with the result."""
    decision = request.POST.get("decision", "")
    if decision not in {"approve", "refuse"}:
        messages.error(request, "Choose approve or refuse.")
        return redirect("curation:claims")
    try:
        claim = claim_decide(
            claim_id=pk,
            editor=request.user,
            approve=decision == "approve",
            reason=request.POST.get("reason", ""),
        )
    except CurationError as exc:
        messages.error(request, f"Claim {pk}: {exc}")
    else:
        record = claim.decision
        messages.success(
            request,
            format_html(
                'Claim {} {} (<a href="{}">curation #{}</a>).',
                claim.pk,
                "approved" if decision == "approve" else "refused",
                reverse("admin:curation_curationrecord_change", args=[record.pk]),
                record.pk,
            ),
        )
    return redirect("curation:claims")
