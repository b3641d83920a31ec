"""Curation screens in the admin: merge, split, undo, the same-name and unconfirmed queues."""

# Each view checks the editor permission (403 otherwise), parses input, calls one service and
# renders or redirects; the services hold the rules.

from __future__ import annotations

from collections import Counter

from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_POST

from researchers.models import Authorship, Researcher

from .confirm import CONFIRM_REASON, authorship_confirm
from .errors import CurationError
from .forms import ConfirmForm, DistinctForm, MergeForm, ReasonForm, ReassignForm, SplitForm, parse_ids
from .merge import researcher_merge
from .models import UNDOABLE_KINDS, CurationRecord
from .pairs import pair_mark_distinct
from .permissions import editor_required
from .reassign import authorship_reassign
from .selectors import (
    QUEUE_TIERS,
    curation_history,
    decisions_among,
    merge_evidence,
    review_rows,
    same_name_queue,
    unconfirmed_authorships,
    unconfirmed_rows,
)
from .split import researcher_split
from .undo import curation_undo

QUEUE_PAGE_SIZE = 50
SPLIT_AUTHORSHIPS_SHOWN = 1000


def _context(request: HttpRequest, title: str, **extra) -> dict:
    return {**admin.site.each_context(request), "title": title, **extra}


def _record_url(record: CurationRecord) -> str:
    return reverse("admin:curation_curationrecord_change", args=[record.pk])


@editor_required
def merge_confirm(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/merge/?ids=1,2``: the records side by side; POST merges.

    POST fields: ``ids``, ``survivor``, ``reason``, ``override_orcid``. A refused merge
    (ORCID iDs differ, a record merged meanwhile) re-renders the page with the reason.
    """
    ids = parse_ids(request.POST.getlist("ids") if request.method == "POST" else request.GET.getlist("ids"))
    evidence = merge_evidence(ids)
    if len(evidence) < 2:
        messages.error(request, "Select at least two researchers to merge.")
        return redirect("admin:researchers_researcher_changelist")
    orcids = {e.researcher.orcid for e in evidence if e.researcher.orcid}
    default_survivor = max(
        evidence, key=lambda e: (bool(e.researcher.orcid), e.paper_count, -e.researcher.pk)
    )
    form = MergeForm(request.POST or None, initial={"survivor": default_survivor.researcher.pk})
    error = ""
    if request.method == "POST" and form.is_valid():
        survivor = form.cleaned_data["survivor"]
        try:
            record = researcher_merge(
                survivor_id=survivor,
                merged_ids=[i for i in ids if i != survivor],
                editor=request.user,
                reason=form.cleaned_data["reason"],
                override_orcid=form.cleaned_data["override_orcid"],
            )
        except CurationError as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                f"Merged {len(ids) - 1} record(s) into researcher {survivor} (curation #{record.pk}).",
            )
            return redirect(_record_url(record))
    return render(
        request,
        "admin/curation/merge_confirm.html",
        _context(
            request,
            "Merge researchers",
            evidence=evidence,
            ids=",".join(str(e.researcher.pk) for e in evidence),
            form=form,
            error=error,
            orcid_conflict=len(orcids) > 1,
            inactive=[e.researcher for e in evidence if e.researcher.merged_into_id],
            decisions=decisions_among(e.researcher.pk for e in evidence),
        ),
    )


@editor_required
def split_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/split/<id>/``: pick authorships (and identities) to move; POST splits."""
    researcher = Researcher.objects.filter(pk=pk).first()
    if researcher is None:
        raise Http404("no such researcher")
    authorships = list(
        Authorship.objects.filter(researcher=researcher)
        .select_related("paper", "slot")
        .order_by("-paper__submitted_at", "paper__arxiv_id", "slot__position")[:SPLIT_AUTHORSHIPS_SHOWN]
    )
    identities = list(researcher.identities.all())
    form = SplitForm(
        request.POST or None,
        authorship_choices=[(a.pk, str(a.pk)) for a in authorships],
        identity_choices=[(i.pk, str(i)) for i in identities],
    )
    error = ""
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            record = researcher_split(
                researcher_id=researcher.pk,
                authorship_ids=data["authorships"],
                identity_ids=data["identities"],
                editor=request.user,
                reason=data["reason"],
                target_id=data["target_id"] if data["target"] == "existing" else None,
                display_name=data["display_name"],
            )
        except CurationError as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                f"Moved {len(data['authorships'])} authorship(s) to researcher "
                f"{record.changes['target']} (curation #{record.pk}).",
            )
            return redirect(_record_url(record))
    chosen = {int(v) for v in form["authorships"].value() or [] if str(v).isdigit()}
    return render(
        request,
        "admin/curation/split_confirm.html",
        _context(
            request,
            f"Split {researcher.display_name}",
            researcher=researcher,
            authorships=authorships,
            identities=identities,
            chosen=chosen,
            form=form,
            error=error,
        ),
    )


@editor_required
def undo_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/undo/<record id>/``: what the undo restores; POST (reason) undoes."""
    record = CurationRecord.objects.filter(pk=pk).first()
    if record is None:
        raise Http404("no such curation record")
    form = ReasonForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            undo = curation_undo(record_id=record.pk, editor=request.user, reason=form.cleaned_data["reason"])
        except CurationError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Curation #{record.pk} undone (curation #{undo.pk}).")
            return redirect(_record_url(undo))
    return render(
        request,
        "admin/curation/undo_confirm.html",
        _context(
            request,
            f"Undo curation #{record.pk}",
            record=record,
            form=form,
            error=error,
            undone=CurationRecord.objects.filter(undoes=record).first(),
            undoable=record.kind in UNDOABLE_KINDS,
            history=curation_history(record.researcher_id),
        ),
    )


@editor_required
def same_name_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/queue/``: same-name pairs in tiers ranked by evidence, 50 per page,
    with how many pairs each tier holds, then the author slots the matcher left for review
    (a name fitting several researchers)."""
    queue = same_name_queue()
    page = Paginator(queue, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    per_tier = Counter(c.tier for c in queue)
    reviews, review_count = review_rows()
    return render(
        request,
        "admin/curation/queue.html",
        _context(
            request,
            "Same-name queue",
            page=page,
            tiers=[(tier, label, per_tier[tier]) for tier, label in QUEUE_TIERS.items()],
            default_reason=DistinctForm.base_fields["reason"].initial,
            reviews=reviews,
            review_count=review_count,
        ),
    )


@require_POST
@editor_required
def pair_distinct(request: HttpRequest) -> HttpResponse:
    """POST ``a``, ``b``, ``reason``: record "not the same person"; back to the queue."""
    form = DistinctForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A decision needs two researcher ids and a reason.")
    else:
        data = form.cleaned_data
        try:
            record = pair_mark_distinct(
                researcher_ids=[data["a"], data["b"]], editor=request.user, reason=data["reason"]
            )
        except CurationError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                f"Researchers {data['a']} and {data['b']} are not the same person (curation #{record.pk}).",
            )
    url = reverse("curation:queue")
    page = request.POST.get("page", "")
    return redirect(f"{url}?page={page}" if page.isdigit() else url)


def _next_url(request: HttpRequest, default: str) -> str:
    """The ``next`` parameter (POST, else GET) when it is a URL on this site, else ``default``."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return default


@editor_required
def unconfirmed_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/unconfirmed/?block=d+mozyrsky&page=2``: unconfirmed links (a name
    alone decided them in a shared name block), 50 per page, with their evidence, the other
    researchers of the block and the editor's choices: confirm (one POST), reassign
    (a confirmation page), compare (the merge page, returning here)."""
    block = request.GET.get("block", "").strip()
    page = Paginator(unconfirmed_authorships(block=block), QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    query = {"block": block} if block else {}
    return render(
        request,
        "admin/curation/unconfirmed.html",
        _context(
            request,
            "Unconfirmed links",
            page=page,
            rows=unconfirmed_rows(page.object_list),
            block_filter=block,
            here=request.get_full_path(),
            page_query=urlencode(query) + "&" if query else "",
            default_reason=CONFIRM_REASON,
        ),
    )


@require_POST
@editor_required
def authorship_confirm_view(request: HttpRequest, pk: int) -> HttpResponse:
    """POST ``researcher``, ``reason``, ``next``: confirm unconfirmed link ``pk``; back to
    ``next`` (a URL on this site), else the review queue."""
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A confirmation needs the researcher id and a reason.")
    else:
        data = form.cleaned_data
        try:
            record = authorship_confirm(
                authorship_id=pk, researcher_id=data["researcher"], editor=request.user, reason=data["reason"]
            )
        except CurationError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                f"Authorship {pk} confirmed as researcher {data['researcher']}'s (curation #{record.pk}).",
            )
    return redirect(_next_url(request, reverse("curation:unconfirmed")))


@editor_required
def authorship_reassign_view(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/unconfirmed/<authorship id>/reassign/?next=...``: the link, its
    evidence and where it could go (the block's other researchers, an id, a new
    researcher); POST reassigns and returns to ``next``. Cancel goes back to ``next``."""
    link = Authorship.objects.select_related("slot", "paper", "researcher").filter(pk=pk).first()
    if link is None:
        raise Http404("no such authorship")
    (row,) = unconfirmed_rows([link])
    back = _next_url(request, reverse("curation:unconfirmed"))
    form = ReassignForm(request.POST or None, others=row.others, initial={"researcher": link.researcher_id})
    error = ""
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            record = authorship_reassign(
                authorship_id=link.pk,
                researcher_id=data["researcher"],
                editor=request.user,
                reason=data["reason"],
                target_id=data["target_researcher"],
                display_name=data["display_name"],
            )
        except CurationError as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                f"Authorship {link.pk} moved to researcher {record.changes['target']}"
                f" (curation #{record.pk}).",
            )
            return redirect(back)
    return render(
        request,
        "admin/curation/reassign_confirm.html",
        _context(request, "Reassign an authorship", row=row, link=link, form=form, error=error, back=back),
    )
