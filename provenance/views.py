"""Provenance endpoints: bundle and state JSON, the public keys, the human page of a record."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from wove.jsonld import breadcrumb_list

from .bundles import bundle_build, keys_document, record_aliases, record_links, state_build
from .models import Record
from .selectors import record_events, record_resolve, record_superseded_by


def _json(document: dict, *, etag: str | None = None) -> HttpResponse:
    """JSON (UTF-8, non-ASCII kept), readable by any origin: bundles are public documents."""
    body = json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = "public, max-age=300"
    if etag:
        response["ETag"] = f'"{etag}"'
    return response


def _bad_reference(reason: str) -> HttpResponse:
    """400 naming why a reference is not a spelling of a digest (BUGS.md B32-01)."""
    return HttpResponseBadRequest(reason, content_type="text/plain; charset=utf-8")


def _record_or_redirect(request: HttpRequest, number: str, route: str) -> Record | HttpResponse:
    resolved = record_resolve(number)
    if resolved.error:
        return _bad_reference(resolved.error)
    if resolved.record is None:
        raise Http404("no such pith number")
    if not resolved.exact:
        # Short forms and arXiv ids move to the 26-character body, as in the registry's links.
        return HttpResponseRedirect(reverse(route, args=[resolved.record.pith_body]))
    return resolved.record


@require_safe
def bundle_json(request: HttpRequest, number: str) -> HttpResponse:
    """``/pith/<number>/bundle.json`` (and under ``/.well-known/``): the signed bundle."""
    route = (
        "provenance:well_known_bundle" if request.path.startswith("/.well-known/") else "provenance:bundle"
    )
    record = _record_or_redirect(request, number, route)
    if isinstance(record, HttpResponse):
        return record
    bundle = bundle_build(record=record)
    return _json(bundle, etag=bundle["bundle_signature"]["bundle_sha256"])


@require_safe
def state_json(request: HttpRequest, number: str) -> HttpResponse:
    """``/pith/<number>/state.json``: the merged state of the record's events."""
    record = _record_or_redirect(request, number, "provenance:state")
    if isinstance(record, HttpResponse):
        return record
    state = state_build(record=record)
    return _json(state, etag=state["state_sha256"])


@require_safe
def keys_json(request: HttpRequest) -> HttpResponse:
    """``/.well-known/pith/keys.json``: every public key this archive has signed with."""
    return _json(keys_document())


def _breadcrumbs(record: Record) -> dict:
    """schema.org ``BreadcrumbList`` of the trail the page shows: wovepaper, the paper (as
    ``arXiv:<id>``), then "Provenance", the page itself, shown without a link."""
    base = settings.SITE_URL
    paper = record.paper
    crumbs = [("wovepaper", f"{base}/"), (f"arXiv:{paper.arxiv_id}", f"{base}{paper.get_absolute_url()}")]
    return {"@context": "https://schema.org", **breadcrumb_list([*crumbs, ("Provenance", None)])}


@require_safe
def pith_page(request: HttpRequest, ref: str) -> HttpResponse:
    """The human page of a record; short forms and arXiv ids redirect to it (or list choices)."""
    resolved = record_resolve(ref)
    if resolved.error:
        return _bad_reference(resolved.error)
    record = resolved.record
    if record is None:
        if resolved.candidates:
            return render(request, "provenance/choose.html", {"ref": ref, "candidates": resolved.candidates})
        raise Http404("no such pith number")
    if ref != record.pith_body:
        return HttpResponseRedirect(reverse("provenance:page", args=[record.pith_body]))
    events = record_events(record)
    context = {
        "record": record,
        "paper": record.paper,
        "aliases": record_aliases(record),
        "links": record_links(record),
        "events": [
            {"event": e, "payload_json": json.dumps(e.content.get("payload"), ensure_ascii=False, indent=2)}
            for e in events
        ],
        "canonical_json": json.dumps(
            record.canonical_record, ensure_ascii=False, sort_keys=True, separators=(",", ":")
        ),
        "superseded_by": record_superseded_by(record),
        "breadcrumbs_jsonld": _breadcrumbs(record),
        "other_records": Record.objects.filter(paper_id=record.paper_id)
        .exclude(pk=record.pk)
        .order_by("source_version", "created_at"),
    }
    return render(request, "provenance/record.html", context)
