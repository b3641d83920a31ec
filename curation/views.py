"""Curation screens in the admin: merge, split, undo, the same-name and unconfirmed queues."""

# Each view checks the editor permission (403 otherwise), parses input, calls one service and
# renders or redirects; the services hold the rules.

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_POST

from researchers.models import Authorship, Researcher
from wove.paginator import SitePaginator

from .confirm import CONFIRM_REASON, authorship_confirm
from .errors import CurationError
from .forms import ConfirmForm, DistinctForm, MergeForm, ReasonForm, ReassignForm, SplitForm, parse_ids
from .merge import researcher_merge
from .models import UNDOABLE_KINDS, CurationRecord
from .pairs import pair_mark_distinct
from .permissions import editor_required
from .queue import QUEUE_TIERS, queue_rows, same_name_queue_entries
from .reassign import authorship_reassign
from .review import review_rows, unconfirmed_authorships, unconfirmed_rows
from .selectors import decisions_among, merge_evidence
from .split import researcher_split
from .stories import record_story, undo_preview
from .undo import curation_undo

QUEUE_PAGE_SIZE = 50
SPLIT_AUTHORSHIPS_SHOWN = 1000


def _context(request: HttpRequest, title: str, **extra) -> dict:
    return {**admin.site.each_context(request), "title": title, **extra}


def _record_url(record: CurationRecord) -> str:
    return reverse("admin:curation_curationrecord_change", args=[record.pk])


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _local(request: HttpRequest, url: str) -> str:
    """``url`` when it stays on this site (Django's ``url_has_allowed_host_and_scheme``:
    a path, or this host and an allowed scheme), else ``""``."""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if url and allowed else ""


def desk_next(request: HttpRequest) -> str:
    """The ``next`` of a desk page (the POST field, else the query parameter), validated
    by :func:`_local`; ``""`` when missing or pointing off the site."""
    return _local(request, request.POST.get("next") or request.GET.get("next") or "")


def _cancel_url(request: HttpRequest, next_url: str, default: str) -> str:
    """Where Cancel goes: ``next``; else the page the editor came from (the ``cancel``
    field the first GET wrote into the form, or that GET's ``Referer`` unless it is this
    very page); else ``default``. Every candidate is validated by :func:`_local`."""
    if next_url:
        return next_url
    carried = _local(request, request.POST.get("cancel", ""))
    if carried:
        return carried
    referer = _local(request, request.headers.get("Referer", "")) if request.method == "GET" else ""
    if referer and urlsplit(referer).path != request.path:
        return referer
    return default


def _done(request: HttpRequest, record: CurationRecord, text: str, next_url: str) -> HttpResponse:
    """Say ``text`` with a link to the record, then go to ``next_url`` or, without one, to
    the record itself (it reads as sentences, :func:`curation.stories.record_story`)."""
    messages.success(
        request, format_html('{} (<a href="{}">curation #{}</a>).', text, _record_url(record), record.pk)
    )
    return redirect(next_url or _record_url(record))


@editor_required
def merge_confirm(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/merge/?ids=1,2``: the records side by side; POST merges.

    POST fields: ``ids``, ``survivor``, ``reason``, ``override_orcid``, ``next``. A refused
    merge (ORCID iDs differ, a record merged meanwhile) re-renders the page with the reason.
    With exactly two active records the page also offers "Not the same person" (the same
    form posted to :func:`pair_distinct`, fields ``a``, ``b``, ``reason``, ``next``).

    The desk's contract for queues that link here (the same-name queue, the unconfirmed-links
    queue, any admin page): ``?ids=<id>,<id>[,...]&next=<url>``, ``next`` any URL of this
    site, typically the queue's own path and query with a ``#row-<n>`` anchor (the template
    tag ``{% desk_compare_url a b row=forloop.counter %}`` of ``curation_tags`` builds it and
    ``{% desk_here row=... %}`` the bare ``next``). ``next`` is checked with
    ``url_has_allowed_host_and_scheme`` (anything else is ignored) and carried through the
    form: Cancel goes there, and after a merge or a "not the same person" decision the
    editor is sent there with the success message (linking the new curation record).
    Without ``next``, Cancel goes back to the page the editor came from (its ``Referer``),
    else the researcher list, and a merge lands on the curation record.
    """
    ids = parse_ids(request.POST.getlist("ids") if request.method == "POST" else request.GET.getlist("ids"))
    next_url = desk_next(request)
    evidence = merge_evidence(ids)
    if len(evidence) < 2:
        messages.error(request, "Select at least two researchers to merge.")
        return redirect(next_url or reverse("admin:researchers_researcher_changelist"))
    orcids = {e.researcher.orcid for e in evidence if e.researcher.orcid}
    default_survivor = max(
        evidence, key=lambda e: (bool(e.researcher.orcid), e.paper_count, -e.researcher.pk)
    )
    form = MergeForm(request.POST or None, initial={"survivor": default_survivor.researcher.pk})
    error = ""
    if request.method == "POST" and form.is_valid():
        survivor = form.cleaned_data["survivor"]
        merged = [i for i in ids if i != survivor]
        try:
            record = researcher_merge(
                survivor_id=survivor,
                merged_ids=merged,
                editor=request.user,
                reason=form.cleaned_data["reason"],
                override_orcid=form.cleaned_data["override_orcid"],
            )
        except CurationError as exc:
            error = str(exc)
        else:
            # The record's survivor: a survivor merged away meanwhile was followed one step.
            done, hop = record.changes["merged"], record.changes.get("followed")
            noun = "researcher" if len(done) == 1 else "researchers"
            text = f"Merged {noun} {', '.join(map(str, done))} into researcher {record.changes['survivor']}"
            if hop:
                text += f" (researcher {hop['requested_target']} had been merged into it meanwhile)"
            return _done(request, record, text, next_url)
    inactive = [e.researcher for e in evidence if e.researcher.merged_into_id]
    decisions = decisions_among(e.researcher.pk for e in evidence)
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
            inactive=inactive,
            decisions=decisions,
            pair=[e.researcher.pk for e in evidence]
            if len(evidence) == 2 and not (inactive or decisions)
            else [],
            next_url=next_url,
            cancel_url=_cancel_url(request, next_url, reverse("admin:researchers_researcher_changelist")),
        ),
    )


@editor_required
def split_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/split/<id>/``: pick authorships (and identities) to move; POST splits
    and lands on the curation record. ``next`` (validated as on :func:`merge_confirm`) or
    the page the editor came from is where Cancel goes, else the researcher's admin page."""
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
            moved = _plural(len(data["authorships"]), "paper")
            return _done(request, record, f"Moved {moved} to researcher {record.changes['target']}", "")
    next_url = desk_next(request)
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
            next_url=next_url,
            cancel_url=_cancel_url(
                request, next_url, reverse("admin:researchers_researcher_change", args=[researcher.pk])
            ),
        ),
    )


@editor_required
def undo_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/undo/<record id>/``: what the record did and what undoing it
    restores, as sentences; POST (reason) undoes and lands on the new record. Cancel goes to
    ``next`` (validated as on :func:`merge_confirm`), the page the editor came from, else
    the record."""
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
            return _done(request, undo, f"Undid curation #{record.pk}", "")
    next_url = desk_next(request)
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
            story=record_story(record),
            preview=undo_preview(record),
            # The kinds curation_undo accepts (it says why it refuses the others).
            undoable=record.kind in UNDOABLE_KINDS,
            next_url=next_url,
            cancel_url=_cancel_url(request, next_url, _record_url(record)),
        ),
    )


@editor_required
def same_name_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/queue/?name=&page=``: same-name pairs in tiers ranked by evidence, 50
    per page, with how many pairs each tier holds, then the author slots the matcher left for
    review (a name fitting several researchers). ``name`` keeps the pairs of its name blocks
    (``Vidal``, ``M. Vidal``). The ranking comes from the cache or the filter's blocks; the
    evidence is read for the page's pairs alone."""
    name = request.GET.get("name", "").strip()[:200]
    entries = same_name_queue_entries(name=name)
    page = SitePaginator(entries, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    page.object_list = queue_rows(page.object_list)
    per_tier = Counter(e.tier for e in entries)
    reviews, review_count = review_rows()
    return render(
        request,
        "admin/curation/queue.html",
        _context(
            request,
            "Same-name queue",
            page=page,
            name=name,
            name_query=urlencode({"name": name}) + "&" if name else "",
            tiers=[(tier, label, per_tier[tier]) for tier, label in QUEUE_TIERS.items()],
            default_reason=DistinctForm.base_fields["reason"].initial,
            reviews=reviews,
            review_count=review_count,
        ),
    )


@require_POST
@editor_required
def pair_distinct(request: HttpRequest) -> HttpResponse:
    """POST ``a``, ``b``, ``reason``, ``next``: record "not the same person".

    Then to ``next`` (validated as on :func:`merge_confirm`: the queue page and row the
    editor decided from) with the message, or without it to the new curation record. A
    refused decision goes back to ``next``, else the same-name queue, with the reason.
    """
    next_url = desk_next(request)
    form = DistinctForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A decision needs two researcher ids and a reason.")
        return redirect(next_url or reverse("curation:queue"))
    data = form.cleaned_data
    try:
        record = pair_mark_distinct(
            researcher_ids=[data["a"], data["b"]], editor=request.user, reason=data["reason"]
        )
    except CurationError as exc:
        messages.error(request, str(exc))
        return redirect(next_url or reverse("curation:queue"))
    return _done(
        request, record, f"Researchers {data['a']} and {data['b']} are not the same person", next_url
    )


@editor_required
def unconfirmed_queue_view(request: HttpRequest) -> HttpResponse:
    """``/admin/curation/unconfirmed/?block=d+mozyrsky&page=2``: unconfirmed links (a name
    alone decided them in a shared name block), 50 per page, with their evidence, the other
    researchers of the block and the editor's choices: confirm (one POST), reassign
    (a confirmation page), compare (the merge page, returning here)."""
    block = request.GET.get("block", "").strip()
    page = SitePaginator(unconfirmed_authorships(block=block), QUEUE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
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
    return redirect(desk_next(request) or reverse("curation:unconfirmed"))


@editor_required
def authorship_reassign_view(request: HttpRequest, pk: int) -> HttpResponse:
    """``/admin/curation/unconfirmed/<authorship id>/reassign/?next=...``: the link, its
    evidence and where it could go (the block's other researchers, an id, a new
    researcher); POST reassigns and returns to ``next``. Cancel goes back to ``next``."""
    link = Authorship.objects.select_related("slot", "paper", "researcher").filter(pk=pk).first()
    if link is None:
        raise Http404("no such authorship")
    (row,) = unconfirmed_rows([link])
    back = desk_next(request) or reverse("curation:unconfirmed")
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
