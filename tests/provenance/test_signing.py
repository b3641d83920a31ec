"""Signing harvested papers: records per version, supersession, idempotence, snapshots."""

from __future__ import annotations

from datetime import UTC, datetime

from papers import harvest as paper_harvest
from papers.models import Paper
from provenance.bundles import bundle_build
from provenance.canonical import canonical_json, sha256_hex, text_canon_sha256
from provenance.models import Event, PaperSigning, Record
from provenance.selectors import pith_for_paper
from provenance.services import records_sign
from provenance.verify import verify_bundle

from .conftest import EDITED, RAW_PAGE1


def test_each_version_gets_a_record_and_two_events(signed_raw_page):
    # Page 1 holds 0801.3673 (v1), 0801.3674 (v1-v4) and 0801.3675 (v1): 6 versions.
    assert signed_raw_page.papers_checked == 3
    assert signed_raw_page.records_created == 6
    assert signed_raw_page.events_created == 12
    assert Record.objects.count() == 6
    assert sorted(Record.objects.filter(source_id="0801.3674").values_list("source_version", flat=True)) == [
        1,
        2,
        3,
        4,
    ]
    assert Event.objects.filter(event_type="record_created").count() == 6
    assert Event.objects.filter(event_type="graph_snapshot").count() == 6


def test_canonical_record_fields_match_the_harvested_record(signed_raw_page):
    record = Record.objects.get(source_id="0801.3674", source_version=2)
    assert record.canonical_record == {
        "schema_version": "1.0",
        "source": {"kind": "arxiv", "id": "0801.3674", "version": 2},
        "metadata": {
            "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
            "primary_cat": "hep-th",
            # <version version='v2'><date>Mon, 4 Feb 2008 15:05:55 GMT</date>
            "submitted_at": "2008-02-04T15:05:55Z",
            "cross_cats_sorted": ["astro-ph", "gr-qc", "hep-ph"],
            "title_canon_sha256": text_canon_sha256(
                "a study of structure formation and reheating in the d3/d7 brane inflation model"
            ),
            "abstract_canon_sha256": text_canon_sha256(Paper.objects.get(arxiv_id="0801.3674").abstract),
        },
    }
    assert record.canonical_sha256 == sha256_hex(canonical_json(record.canonical_record))
    assert record.pith_number.startswith("pith:2008:")
    assert record.pith_number.endswith(record.pith_body) and len(record.pith_body) == 26


def test_versions_chain_by_supersedes(signed_raw_page):
    created = {
        e.record.source_version: e
        for e in Event.objects.filter(
            record__source_id="0801.3674", event_type="record_created"
        ).select_related("record")
    }
    assert created[1].content["supersedes"] == []
    for version in (2, 3, 4):
        assert created[version].content["supersedes"] == [created[version - 1].event_id]
        assert created[version].content["prev_event"] is None


def test_signing_again_writes_nothing(signed_raw_page):
    again = records_sign()
    assert again.papers_checked == 0
    assert (again.records_created, again.events_created) == (0, 0)
    # Re-harvesting the same file changes nothing either.
    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    assert records_sign().events_created == 0
    assert Event.objects.count() == 12


def test_a_new_version_gives_a_new_record_superseding_the_previous(signed_raw_page):
    v1 = Record.objects.get(source_id="0801.3673")
    v1_created = v1.events.get(event_type="record_created")
    paper_harvest.harvest_files(paths=[EDITED / "edited_arXivRaw_0801.3673_v2.xml"])
    result = records_sign()
    assert (result.records_created, result.events_created) == (1, 2)
    v2 = Record.objects.get(source_id="0801.3673", source_version=2)
    assert v2.canonical_record["metadata"]["submitted_at"] == "2008-02-01T10:00:00Z"
    assert v2.events.get(event_type="record_created").content["supersedes"] == [v1_created.event_id]
    assert pith_for_paper(Paper.objects.get(arxiv_id="0801.3673")) == v2
    assert verify_bundle(bundle_build(record=v2)).ok


def test_an_unrelated_field_change_gives_nothing_new(signed_raw_page):
    paper_harvest.harvest_files(paths=[EDITED / "edited_arXivRaw_0801.3673_comments.xml"])
    result = records_sign()
    assert result.papers_checked == 1  # its content hash changed ...
    assert result.events_created == 0  # ... but neither the record nor the snapshot did
    paper = Paper.objects.get(arxiv_id="0801.3673")
    assert PaperSigning.objects.get(paper=paper).content_hash == paper.content_hash


def test_changed_authors_give_a_new_snapshot_superseding_the_old(signed_raw_page):
    record = Record.objects.get(source_id="0801.3673")
    old = record.events.get(event_type="graph_snapshot")
    assert old.content["payload"]["graph_snapshot"]["authors"] == [
        {"position": 1, "name": "Naoum C. Bacalis"}
    ]
    paper_harvest.harvest_files(paths=[EDITED / "edited_arXivRaw_0801.3673_authors.xml"])
    result = records_sign()
    assert (result.records_created, result.events_created) == (0, 1)
    new = record.events.exclude(pk=old.pk).get(event_type="graph_snapshot")
    assert record.events.count() == 3
    assert new.content["prev_event"] == old.event_id
    assert new.content["supersedes"] == [old.event_id]
    assert [a["name"] for a in new.content["payload"]["graph_snapshot"]["authors"]] == [
        "Naoum C. Bacalis",
        "Anne Other",
    ]
    bundle = bundle_build(record=record)
    assert verify_bundle(bundle).ok
    snapshots = bundle["state"]["current"]["graph_snapshots"]
    assert [s["event_id"] for s in snapshots] == [new.event_id]


def test_graph_snapshot_carries_title_authors_categories_and_excerpt(signed_raw_page):
    event = Event.objects.get(record__source_id="0801.3675", event_type="graph_snapshot")
    paper = event.content["payload"]["graph_snapshot"]["paper"]
    assert (
        paper["title"]
        == "Faster exact Markovian probability functions for motif occurrences: a DFA-only approach"
    )
    assert paper["primary_cat"] == "q-bio.GN" and paper["cross_cats"] == ["q-bio.QM"]
    assert paper["abstract_excerpt"].startswith(
        "Background: The computation of the statistical properties of motif"
    )
    assert len(paper["abstract_excerpt"]) == 600
    assert paper["submitted_at"] == "2008-01-24T15:39:48Z"


def test_bad_paper_is_skipped_not_the_batch(db, caplog, monkeypatch):
    from provenance.fast_builders import SigningTemplates

    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    real_build = SigningTemplates.paper_parts

    def failing_build(**kwargs):
        if kwargs["arxiv_id"] == "0801.3675":
            raise ValueError("cannot canonicalise")
        return real_build(**kwargs)

    monkeypatch.setattr(SigningTemplates, "paper_parts", staticmethod(failing_build))
    result = records_sign()
    assert result.papers_skipped == 1
    assert result.records_created == 5  # 0801.3673 v1 and 0801.3674 v1-v4
    assert "0801.3675" in caplog.text
    assert not PaperSigning.objects.filter(paper__arxiv_id="0801.3675").exists()  # retried next run
    monkeypatch.undo()
    assert records_sign().records_created == 1


def test_bulk_signing_queries_do_not_grow_with_the_batch(db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from provenance import services

    paper_harvest.harvest_files(paths=[RAW_PAGE1])  # 3 papers, 6 versions
    services.signer_current()  # publishes the key (a one-off insert)
    with CaptureQueriesContext(connection) as first:
        assert records_sign().records_created == 6
    paper_harvest.harvest_files(paths=[RAW_PAGE1.with_name("edited_arXivRaw_ListRecords_page2.xml")])
    with CaptureQueriesContext(connection) as second:
        assert records_sign().papers_checked == 2
    assert len(first.captured_queries) == len(second.captured_queries) <= 20


def test_aliases_show_record_time_in_whole_seconds(signed_raw_page):
    from provenance.bundles import record_aliases

    record = Record.objects.get(source_id="0801.3673")
    assert record.created_at <= datetime.now(UTC)
    stamps = {a["created_at"] for a in record_aliases(record)}
    assert stamps == {record.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")}


def test_sign_records_task_returns_counts(db):
    from provenance.tasks import sign_records

    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    counts = sign_records.apply().get()
    assert counts["records_created"] == 6 and counts["events_created"] == 12
    assert sign_records.apply().get()["events_created"] == 0


def test_sign_provenance_command_prints_one_summary_line(db, capsys):
    from django.core.management import call_command

    paper_harvest.harvest_files(paths=[RAW_PAGE1])
    call_command("sign_provenance", "--no-progress")
    assert capsys.readouterr().out.strip().splitlines() == [
        "sign_provenance: 3 papers checked, 3 signed, 6 records and 12 events created, "
        "0 skipped, 0 busy elsewhere"
    ]


def test_superseded_record_page_links_to_the_newer_one(client, signed_raw_page):
    v1 = Record.objects.get(source_id="0801.3674", source_version=1)
    v2 = Record.objects.get(source_id="0801.3674", source_version=2)
    html = client.get(f"/pith/{v1.pith_body}").content.decode()
    assert "Superseded by" in html and f"/pith/{v2.pith_body}" in html


def test_admin_lists_records_and_events(admin_client, signed_raw_page):
    assert admin_client.get("/admin/provenance/record/").status_code == 200
    assert admin_client.get("/admin/provenance/event/").status_code == 200
    assert admin_client.get("/admin/provenance/publickey/").status_code == 200
    record = Record.objects.first()
    assert admin_client.get(f"/admin/provenance/record/{record.pk}/change/").status_code == 200


def test_a_changed_title_gives_a_new_record_of_the_same_version(signed_raw_page):
    old = Record.objects.get(source_id="0801.3673")
    old_created = old.events.get(event_type="record_created")
    paper_harvest.harvest_files(paths=[EDITED / "edited_arXivRaw_0801.3673_title.xml"])
    result = records_sign()
    assert (result.records_created, result.events_created) == (1, 2)
    new = Record.objects.exclude(pk=old.pk).get(source_id="0801.3673")
    assert new.source_version == 1
    assert new.canonical_record["metadata"]["title_canon_sha256"] == text_canon_sha256(
        "variational functionals for excited states of atoms"
    )
    assert new.events.get(event_type="record_created").content["supersedes"] == [old_created.event_id]
    assert pith_for_paper(Paper.objects.get(arxiv_id="0801.3673")) == new
    # The old record and its log stay as they were.
    assert old.events.count() == 2
    assert verify_bundle(bundle_build(record=old)).ok


def test_copy_lines_whose_key_exists_are_skipped_not_raised(signed_raw_page):
    """A batch's lines go straight into the table; when one's key is stored already (another
    signer's row), the batch goes through the staging table and only the new rows land."""
    import json

    from provenance.fast_builders import BuiltEvent
    from provenance.rows import EVENT_COLUMNS, CopyLines, insert_copy_lines

    stored = Event.objects.select_related("key").filter(event_type="graph_snapshot").order_by("pk")[0]
    lines = CopyLines(stored.key, datetime(2026, 12, 6, 22, 0, tzinfo=UTC))

    def line_of(content: dict) -> None:
        text = canonical_json(content).decode()
        built = BuiltEvent(text, sha256_hex(text.encode()), json.dumps(stored.signature), None)
        lines.add_event(stored.record_id, "graph_snapshot", built, target="graph-test")

    line_of(stored.content)  # its digest is the stored event's key
    before = Event.objects.count()
    assert insert_copy_lines(Event, EVENT_COLUMNS, lines.events) == 0
    line_of({**stored.content, "target": "graph-test"})  # a new key
    assert insert_copy_lines(Event, EVENT_COLUMNS, lines.events) == 1
    assert Event.objects.count() == before + 1
    assert Event.objects.filter(target="graph-test").count() == 1
