"""Provenance API: a paper's signed bundle and merged state (mounted under /papers)."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from ninja import Router

from papers.selectors import paper_or_error
from wove.errors import ApiError, Error

from .bundles import bundle_build, state_build
from .schemas import ProvenanceBundle, ProvenanceState
from .selectors import pith_for_paper

router = Router(tags=["provenance"])
ERRORS = {404: Error, 410: Error, 429: Error}


def _record(arxiv_id: str):
    paper = paper_or_error(arxiv_id)
    record = pith_for_paper(paper)
    if record is None:
        raise ApiError(404, "not_found", f"{paper.arxiv_id} has no signed provenance record yet.")
    return record


def _json(document: dict) -> HttpResponse:
    # Served as built: the signatures cover the canonical JSON of exactly these values.
    return HttpResponse(
        json.dumps(document, ensure_ascii=False), content_type="application/json; charset=utf-8"
    )


@router.get(
    "/{path:arxiv_id}/provenance/bundle",
    response={200: ProvenanceBundle, **ERRORS},
    summary="Signed provenance bundle of a paper",
)
def paper_bundle(request: HttpRequest, arxiv_id: str):
    """The signed bundle of the paper's current record (its latest version's newest
    record), as at ``/pith/<number>/bundle.json``. 404 when the paper is not signed yet."""
    return _json(bundle_build(record=_record(arxiv_id)))


@router.get(
    "/{path:arxiv_id}/provenance/state",
    response={200: ProvenanceState, **ERRORS},
    summary="Merged provenance state of a paper",
)
def paper_state(request: HttpRequest, arxiv_id: str):
    """The merged state of the current record's events, as at ``/pith/<number>/state.json``."""
    return _json(state_build(record=_record(arxiv_id)))
