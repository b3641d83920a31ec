"""BUGS.md OAI-04: an OAI-PMH header with ``status="deleted"`` marks a stored paper deleted
everywhere it is served and appends one signed ``deleted`` event to its provenance; for an
unknown identifier it creates nothing; the same header again is a no-op.

Input from BUGS.md: paper 2310.04417 already stored (the real arXiv-format record of
0705.0043, cs.IT/math.IT, renumbered: ``edited_arXiv_2310.04417.xml``), then the harvest
returns BUGS.md's deleted header verbatim (``edited_arXiv_2310.04417_deleted.xml``).
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from papers.harvest import harvest_files
from papers.models import Paper
from provenance.bundles import bundle_build
from provenance.models import Event
from provenance.selectors import pith_for_paper
from provenance.services import records_sign
from provenance.signing import signing_backlog
from tests.conftest import FIXTURES

OAI = FIXTURES / "arxiv" / "oai"
LIVE = OAI / "edited_arXiv_2310.04417.xml"
DELETED = OAI / "edited_arXiv_2310.04417_deleted.xml"
ID = "2310.04417"


@pytest.fixture(autouse=True)
def signing_key(tmp_path, settings):
    settings.PROVENANCE_SIGNING_KEY_FILE = str(tmp_path / "keys" / "provenance-ed25519.pem")
    settings.PROVENANCE_KEY_ID = ""
    settings.SITE_URL = "http://testserver"


def served_in(client) -> dict[str, bool]:
    """Whether 2310.04417 appears in the site search, the papers sitemap and both feeds."""
    sitemap = reverse("pages:sitemap_section", kwargs={"section": "papers"})
    pages = {
        "search": client.get("/search", {"q": "unobservable change"}),
        "sitemap": client.get(sitemap),
        "rss latest": client.get("/rss/latest.xml"),
        "rss cs.IT": client.get("/rss/category/cs.IT.xml"),
    }
    # The papers section of an archive whose only paper is deleted is empty, and an empty
    # section has no page (BUGS.md MAP-01): 404, and the index leaves it out.
    assert pages["sitemap"].status_code in (200, 404)
    assert all(response.status_code == 200 for name, response in pages.items() if name != "sitemap")
    return {name: f"/papers/{ID}".encode() in response.content for name, response in pages.items()}


@pytest.mark.django_db
def test_a_deleted_header_answers_410_leaves_search_sitemap_and_rss_and_signs_one_event(client, tmp_path):
    """BUGS.md OAI-04: no exception; ``/papers/2310.04417`` → 410; the API → 410 with the
    Error shape plus ``id`` (code ``deleted``); gone from search, sitemap and RSS; exactly one
    appended ``deleted`` event, earlier events untouched, the bundle still verifies
    (``manage.py verify_bundle``); a second signing pass and a second harvest of the same
    header add nothing."""
    harvest_files(paths=[LIVE])
    first = records_sign()
    assert (first.records_created, first.events_created) == (1, 2)
    before = {e.content_sha256: (e.event_type, e.content, e.signature) for e in Event.objects.all()}
    assert served_in(client) == dict.fromkeys(["search", "sitemap", "rss latest", "rss cs.IT"], True)

    run = harvest_files(paths=[DELETED])
    assert (run.status, run.records_deleted, Paper.objects.count()) == ("complete", 1, 1)
    paper = Paper.objects.get(arxiv_id=ID)
    assert paper.deleted and paper.oai_datestamp.isoformat() == "2024-02-11"

    assert client.get(f"/papers/{ID}").status_code == 410
    response = client.get(f"/api/v1/papers/{ID}")
    assert response.status_code == 410
    assert response.json() == {
        "status": 410,
        "code": "deleted",
        "detail": f"arXiv deleted the record of {ID}.",
        "errors": None,
        "id": ID,
    }
    assert served_in(client) == dict.fromkeys(["search", "sitemap", "rss latest", "rss cs.IT"], False)

    assert signing_backlog().waiting == 1  # the pipeline's sweep sees the deletion to sign
    signed = records_sign()
    assert (signed.deletions_recorded, signed.events_created, signed.records_created) == (1, 1, 0)
    after = {e.content_sha256: (e.event_type, e.content, e.signature) for e in Event.objects.all()}
    assert {k: v for k, v in after.items() if k in before} == before  # earlier events untouched
    (new,) = Event.objects.exclude(content_sha256__in=before)
    record = pith_for_paper(paper)
    assert (new.event_type, new.target, new.record_id, new.prev_event) == (
        "deleted",
        "status",
        record.pk,
        None,
    )
    assert new.content["payload"] == {
        "source": {"kind": "arxiv", "id": ID},
        "status": "deleted",
        "reported_by": "arxiv_oai_pmh",
        "oai_datestamp": "2024-02-11",
    }

    bundle = bundle_build(record=record)
    # Events list by (created_at, id); all three may share one second, so compare as a set.
    assert sorted(e["event_type"] for e in bundle["events"]) == [
        "deleted",
        "graph_snapshot",
        "record_created",
    ]
    assert [d["event_id"] for d in bundle["state"]["current"]["deletions"]] == [new.event_id]
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    call_command("verify_bundle", str(path))  # exits 1 (SystemExit) on any failed check

    assert records_sign().events_created == 0 and signing_backlog().waiting == 0
    modified = paper.modified_at
    again = harvest_files(paths=[DELETED])
    assert (again.records_written, again.records_deleted) == (0, 0)
    assert Paper.objects.get(arxiv_id=ID).modified_at == modified
    assert records_sign().events_created == 0 and Event.objects.count() == len(before) + 1


@pytest.mark.django_db
def test_a_deleted_header_for_an_unknown_id_creates_nothing():
    """BUGS.md OAI-04: before, the header created an empty paper row (no title)."""
    run = harvest_files(paths=[DELETED])
    assert (run.status, run.records_seen, run.records_written, run.records_deleted) == ("complete", 1, 0, 0)
    assert Paper.objects.count() == 0
    assert records_sign().events_created == 0
