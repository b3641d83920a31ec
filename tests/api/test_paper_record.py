"""The API's paper record, written without the schema's validation (issue 28), is exactly what
``PaperDetailOut`` gives from the paper itself (its fields, resolvers and versions): the same
keys, order, types and bytes, on the real sample."""

from __future__ import annotations

import pytest

from institutions.models import AuthorAffiliation
from pages.paper_api import RECORD_PAPER, RENDERER, paper_record
from pages.schemas import PaperDetailOut
from papers.models import Paper, PaperCollaboration
from provenance.models import Record
from tests.api.conftest import SIGNED

pytestmark = pytest.mark.django_db


def _checked_papers() -> list[str]:
    """Every sample paper with institution links, collaborations or a signed record, and
    every tenth of the others."""
    linked = set(AuthorAffiliation.objects.values_list("slot__paper__arxiv_id", flat=True))
    groups = set(PaperCollaboration.objects.values_list("paper__arxiv_id", flat=True))
    signed = set(Record.objects.values_list("paper__arxiv_id", flat=True))
    public = Paper.objects.filter(deleted=False).order_by("arxiv_id").values_list("arxiv_id", flat=True)
    return sorted(linked | groups | signed | set(list(public)[::10]))


def test_every_checked_record_comes_out_of_the_schema_unchanged(api):
    checked = _checked_papers()
    # What the sample gives, so the check covers each part of the record.
    assert set(SIGNED) <= set(checked)
    assert len(checked) > 300
    kinds = {"institutions": 0, "collaborations": 0, "provenance": 0}
    for arxiv_id in checked:
        record, _changed = paper_record(RECORD_PAPER.first(arxiv_id))
        # The schema reads the paper itself (its fields, resolvers and versions) and the
        # parts the view used to attach to it.
        paper = Paper.objects.get(arxiv_id=arxiv_id)
        paper.author_slots = record["author_slots"]
        paper.collaboration_refs = record["collaborations"]
        paper.provenance = record["provenance"]
        validated = PaperDetailOut.model_validate(paper).model_dump()
        assert validated == record, arxiv_id
        # The same bytes as ninja's own path (validate, dump, render) would write.
        assert RENDERER.render(None, record, response_status=200) == RENDERER.render(
            None, validated, response_status=200
        )
        kinds["institutions"] += any(slot["institutions"] for slot in record["author_slots"])
        kinds["collaborations"] += bool(record["collaborations"])
        kinds["provenance"] += record["provenance"] is not None
    assert kinds["provenance"] == len(SIGNED)
    assert kinds["institutions"] > 0 and kinds["collaborations"] > 0, kinds


def test_the_record_holds_its_versions_and_signed_record(api):
    body = api.get("/api/v1/papers/0704.0001").json()
    # The Kaggle snapshot's versions of 0704.0001: "Mon, 2 Apr 2007 19:18:42 GMT" and
    # "Tue, 24 Jul 2007 20:10:27 GMT", without sizes.
    assert [(v["version"], v["submitted_at"], v["size_kb"]) for v in body["versions"]] == [
        (1, "2007-04-02T19:18:42Z", None),
        (2, "2007-07-24T20:10:27Z", None),
    ]
    current = Record.objects.filter(paper__arxiv_id="0704.0001").order_by("-source_version", "-created_at")[0]
    assert body["provenance"]["pith_number"] == current.pith_number
    assert body["provenance"]["bundle"] == "http://testserver/api/v1/papers/0704.0001/provenance/bundle"
