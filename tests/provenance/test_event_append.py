"""Appending curation events: chains, supersession, undo, payload rules, escaping."""

from __future__ import annotations

import pytest

from papers.models import Paper
from provenance.bundles import bundle_build, state_build
from provenance.canonical import CanonicalJsonError
from provenance.models import Event, Record
from provenance.services import event_append
from provenance.verify import verify_bundle


def test_appended_events_chain_per_target_and_verify(signed_raw_page):
    record = Record.objects.get(source_id="0801.3673")
    first = event_append(
        subject=record,
        event_type="authorship_matched",
        target="authorship:1",
        payload={"position": 1, "researcher_id": 42, "method": "orcid"},
    )
    second = event_append(
        subject=record.pith_number,
        event_type="authorship_matched",
        target="authorship:1",
        payload={"position": 1, "researcher_id": 43, "method": "editor"},
        supersedes=[first.event_id],
    )
    assert first.content["prev_event"] is None
    assert second.content["prev_event"] == first.event_id
    assert second.content["subject_pith_number"] == record.pith_number
    bundle = bundle_build(record=record)
    assert verify_bundle(bundle).ok
    matches = bundle["state"]["current"]["authorship_matches"]
    assert [m["payload"]["researcher_id"] for m in matches] == [43]


def test_undo_withdraws_the_event_from_current(signed_raw_page):
    paper = Paper.objects.get(arxiv_id="0801.3675")
    merged = event_append(
        subject=paper, event_type="researcher_merged", payload={"kept": 7, "merged": [8], "editor": "editor"}
    )
    assert verify_bundle(bundle_build(record=merged.record)).ok
    assert [c["event_id"] for c in state_build(record=merged.record)["current"]["curation"]] == [
        merged.event_id
    ]
    undo = event_append(
        subject=paper,
        event_type="curation_undone",
        payload={"undoes": merged.event_id},
        supersedes=[merged.event_id],
    )
    assert undo.content["prev_event"] == merged.event_id  # same "curation" chain
    state = state_build(record=merged.record)
    assert state["current"]["curation"] == []
    assert merged.event_id in state["applied_event_ids"] and undo.event_id in state["applied_event_ids"]
    assert verify_bundle(bundle_build(record=merged.record)).ok


def test_payload_rules(signed_raw_page):
    record = Record.objects.first()
    with pytest.raises(CanonicalJsonError):
        event_append(subject=record, event_type="authorship_matched", payload={"score": 0.93})
    with pytest.raises(ValueError):
        event_append(subject=record, event_type="record_created", payload={})
    with pytest.raises(ValueError):
        event_append(subject=record, event_type="made_up", payload={})
    assert Event.objects.count() == 12


def test_a_paper_not_yet_signed_is_signed_first(db):
    from papers import harvest as paper_harvest

    from .conftest import HEP_TH

    paper_harvest.harvest_files(paths=[HEP_TH])
    paper = Paper.objects.get(arxiv_id="1412.8323")
    event = event_append(subject=paper, event_type="researcher_split", payload={"from": 1, "into": [2, 3]})
    assert event.record.paper_id == paper.pk
    assert event.record.events.count() == 3


def test_payload_text_is_escaped_on_the_page(client, signed_raw_page):
    record = Record.objects.get(source_id="0801.3673")
    event_append(
        subject=record, event_type="researcher_merged", payload={"note": "<script>alert(1)</script>"}
    )
    html = client.get(f"/pith/{record.pith_body}").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_bulk_append_chains_in_order_in_constant_queries(signed_raw_page, django_assert_max_num_queries):
    from provenance.services import EventSpec, events_append, signer_current

    papers = list(Paper.objects.order_by("arxiv_id"))  # 0801.3673, 0801.3674, 0801.3675
    signer_current()
    items = [
        EventSpec(paper, "authorship_matched", {"position": 1, "researcher_id": n}, target="authorship:1")
        for n in range(4)
        for paper in papers
    ]
    with django_assert_max_num_queries(12):
        ids = events_append(items=items)
    assert len(ids) == 12 == len(set(ids))
    assert Event.objects.filter(event_type="authorship_matched").count() == 12
    # Papers resolve to their current record (0801.3674 v4), and each slot's chain links in order.
    record = Record.objects.get(source_id="0801.3674", source_version=4)
    chain = {e.event_id: e.content["prev_event"] for e in record.events.filter(target="authorship:1")}
    assert chain[ids[1]] is None
    assert chain[ids[4]] == ids[1] and chain[ids[7]] == ids[4] and chain[ids[10]] == ids[7]
    assert verify_bundle(bundle_build(record=record)).ok


def test_non_ascii_payload_keys_take_the_rfc8785_path_and_verify(signed_raw_page):
    import rfc8785

    from provenance.canonical import sha256_hex
    from provenance.merge import event_content

    record = Record.objects.get(source_id="0801.3675")
    event = event_append(
        subject=record, event_type="researcher_merged", payload={"\ufb33": 1, "\U0001f600": 2, "Müller": "Ж"}
    )
    assert event.content_sha256 == sha256_hex(rfc8785.dumps(event_content(event.as_dict())))
    assert verify_bundle(bundle_build(record=record)).ok
