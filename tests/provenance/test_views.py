"""Round trip over HTTP: harvest real records, sign, fetch bundles and states, verify them."""

from __future__ import annotations

import json

import pytest
from django.template import Context, Template

from papers import harvest as paper_harvest
from papers.models import Paper
from provenance.models import Record
from provenance.services import records_sign
from provenance.verify import verify_bundle

from .conftest import HEP_TH


@pytest.fixture
def hep_th(db):
    """The three real records of the hepcrawl hep-th OAI response, harvested and signed."""
    paper_harvest.harvest_files(paths=[HEP_TH])
    result = records_sign()
    assert result.records_created == 3
    return {r.source_id: r for r in Record.objects.all()}


def test_round_trip_bundles_verify(client, hep_th):
    assert sorted(hep_th) == ["1412.8323", "1507.07790", "1607.01710"]
    for record in hep_th.values():
        response = client.get(f"/pith/{record.pith_body}/bundle.json")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json; charset=utf-8"
        assert response["Access-Control-Allow-Origin"] == "*"
        bundle = json.loads(response.content)
        report = verify_bundle(response.content)
        assert report.ok, report.failed
        assert bundle["pith_number"] == record.pith_number
        assert bundle["canonical_record"]["source"] == {"kind": "arxiv", "id": record.source_id, "version": 1}
        assert [e["event_type"] for e in bundle["events"]] == ["record_created", "graph_snapshot"]
        assert response["ETag"] == f'"{bundle["bundle_signature"]["bundle_sha256"]}"'
        # Same log, same bytes: built_at and the signature time come from the events.
        assert client.get(f"/pith/{record.pith_body}/bundle.json").content == response.content
        well_known = client.get(f"/.well-known/pith/{record.pith_body}/bundle.json")
        assert well_known.content == response.content
        full = client.get(f"/pith/{record.pith_number}/bundle.json")
        assert full.status_code == 200 and full.content == response.content


def test_round_trip_through_the_command(client, hep_th, tmp_path, capsys):
    from django.core.management import call_command

    record = hep_th["1412.8323"]
    path = tmp_path / "bundle.json"
    path.write_bytes(client.get(f"/pith/{record.pith_body}/bundle.json").content)
    call_command("verify_bundle", str(path))
    assert "bundle OK" in capsys.readouterr().out


def test_state_json_is_the_bundle_state(client, hep_th):
    record = hep_th["1507.07790"]
    state = client.get(f"/pith/{record.pith_body}/state.json").json()
    bundle = client.get(f"/pith/{record.pith_body}/bundle.json").json()
    assert state == bundle["state"]
    assert state["event_count"] == 2 and state["valid_event_count"] == 2
    assert state["current"]["record_created"]["payload"]["canonical_sha256"] == record.canonical_sha256


def test_short_forms_and_arxiv_ids_redirect_to_the_page(client, hep_th):
    record = hep_th["1607.01710"]
    page = f"/pith/{record.pith_body}"
    for ref in (
        f"pith:{record.pith_body[:8]}",
        record.pith_body[:8],
        record.pith_body[:12].lower(),
        record.pith_body[:16],
        record.pith_number,
        "1607.01710",
        "1607.01710v1",
    ):
        response = client.get(f"/pith/{ref}")
        assert response.status_code == 302, ref
        assert response["Location"] == page
    short = client.get(f"/pith/pith:{record.pith_body[:8]}/bundle.json")
    assert short.status_code == 302
    assert short["Location"] == f"/pith/{record.pith_body}/bundle.json"


def test_human_page_shows_record_events_and_how_to_verify(client, hep_th):
    record = hep_th["1412.8323"]
    html = client.get(f"/pith/{record.pith_body}").content.decode()
    assert record.pith_number in html
    assert record.canonical_sha256 in html
    assert "record_created" in html and "graph_snapshot" in html
    assert "How to verify it by hand" in html
    assert f"pith_short_8: <code>{record.pith_body[:8]}</code>" in html


def test_unknown_numbers_are_404(client, hep_th):
    assert client.get("/pith/AAAAAAAAAAAAAAAAAAAAAAAAAA").status_code == 404
    assert client.get("/pith/AAAAAAAAAAAAAAAAAAAAAAAAAA/bundle.json").status_code == 404
    assert client.get("/pith/not-a-number").status_code == 404


def test_keys_json_lists_the_signing_key(client, hep_th):
    keys = client.get("/.well-known/pith/keys.json").json()["public_keys"]
    record = hep_th["1412.8323"]
    assert [k["fingerprint_sha256_hex"] for k in keys] == [record.key.fingerprint]
    assert keys[0]["algorithm"] == "ed25519" and keys[0]["format"] == "raw"


def test_paper_snippet_shows_pith_and_bundle_link(hep_th):
    paper = Paper.objects.get(arxiv_id="1507.07790")
    record = hep_th["1507.07790"]
    html = Template('{% include "provenance/includes/paper_pith.html" %}').render(Context({"paper": paper}))
    assert record.pith_number in html
    assert f'href="/pith/{record.pith_body}/bundle.json"' in html
    # An unsigned paper renders nothing.
    assert (
        Template('{% include "provenance/includes/paper_pith.html" %}')
        .render(Context({"paper": None}))
        .strip()
        == ""
    )


def test_paper_page_shows_its_pith_number_and_bundle_link(client, hep_th):
    paper = Paper.objects.get(arxiv_id="1607.01710")
    record = hep_th["1607.01710"]
    html = client.get(paper.get_absolute_url()).content.decode()
    assert record.pith_number in html
    assert f'href="/pith/{record.pith_body}/bundle.json"' in html
