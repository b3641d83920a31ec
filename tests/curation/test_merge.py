"""Merges on the real sample: what moves, the ORCID guard, chains, redirects, the record,
the signed event, and undo restoring every row exactly."""

from __future__ import annotations

import pytest
from django.db import Error, transaction

from curation.errors import CurationConflict, CurationError, OrcidConflict
from curation.merge import researcher_merge
from curation.models import CurationRecord
from curation.split import researcher_split
from curation.undo import curation_undo
from provenance.models import Event
from researchers.models import Authorship, ExternalIdentity, MatchConstraint, Researcher

from .conftest import researcher_of, snapshot

pytestmark = pytest.mark.django_db

# Two records the local matcher keeps apart (one shared category, no shared co-author):
# "Lucas A. Cieza" on 0801.4572 (first author) and "Lucas Cieza" on 0801.4403 (first) and
# 0704.0253 (eighth author), all astro-ph.
CIEZA_A = ("0801.4572", 1)
CIEZA_B = [("0801.4403", 1), ("0704.0253", 8)]
ORCID_1 = "0000-0002-1825-0097"  # Josiah Carberry, ORCID's documented test iD
ORCID_2 = "0000-0001-5109-3700"


def cieza():
    return researcher_of(*CIEZA_A), researcher_of(*CIEZA_B[0])


def test_merge_moves_everything_and_undo_restores_every_row(curation_sample, editor_user):
    a, b = cieza()
    assert a.pk != b.pk and (a.paper_count, b.paper_count) == (1, 2)
    ExternalIdentity.objects.create(
        researcher=a, source="openalex", external_id="A5023888391", name="L. A. Cieza"
    )
    Researcher.objects.filter(pk=a.pk).update(name_variants=["Lucas A. Cieza", "L. A. Cieza"])
    before = snapshot()
    (link,) = Authorship.objects.filter(researcher=a)

    record = researcher_merge(
        survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same astronomer"
    )
    # A moved link has a new change time (the paper API's Last-Modified), and again when undone.
    merged_at = Authorship.objects.get(pk=link.pk).modified_at
    assert merged_at > link.modified_at

    b.refresh_from_db()
    a.refresh_from_db()
    assert a.merged_into_id == b.pk and b.merged_into_id is None
    assert set(Authorship.objects.filter(researcher=b).values_list("paper__arxiv_id", flat=True)) == {
        "0801.4572",
        "0801.4403",
        "0704.0253",
    }
    assert b.paper_count == 3 and a.paper_count == 0
    assert b.name_variants == ["L. A. Cieza", "Lucas A. Cieza", "Lucas Cieza"]
    assert list(b.identities.values_list("external_id", flat=True)) == ["A5023888391"]
    # The record says exactly what moved.
    assert record.kind == "merge" and record.editor == editor_user and record.reason == "Same astronomer"
    assert record.researcher_id == b.pk and record.researcher_ids == sorted([a.pk, b.pk])
    moved = record.changes["authorships"]
    assert [(m["from"], m["to"]) for m in moved] == [(a.pk, b.pk)]
    assert record.changes["identities"][0]["from"] == a.pk
    assert record.changes["variants_added"] == ["L. A. Cieza", "Lucas A. Cieza"]
    # Must-links keep the three slots together for the matcher (one block, anchor = lowest slot).
    slots = sorted(Authorship.objects.filter(researcher=b).values_list("slot_id", flat=True))
    assert sorted(MatchConstraint.objects.filter(kind="must").values_list("slot_a_id", "slot_b_id")) == [
        (slots[0], slots[1]),
        (slots[0], slots[2]),
    ]

    undo = curation_undo(record_id=record.pk, editor=editor_user, reason="Two people after all")
    assert snapshot() == before
    assert Authorship.objects.get(pk=link.pk).modified_at > merged_at
    assert undo.kind == "undo" and undo.undoes_id == record.pk
    # The original record stays.
    assert CurationRecord.objects.filter(pk=record.pk, kind="merge").exists()
    with pytest.raises(CurationError, match="already undone"):
        curation_undo(record_id=record.pk, editor=editor_user, reason="again")


def test_merge_and_undo_sign_provenance_events(curation_sample, editor_user):
    a, b = cieza()
    record = researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    event = Event.objects.get(content_sha256=record.provenance_event.removeprefix("sha256:"))
    assert event.event_type == "researcher_merged" and event.target == "curation"
    payload = event.content["payload"]
    assert payload["curation_id"] == record.pk and payload["survivor"] == b.pk and payload["merged"] == [a.pk]
    assert payload["authorships"] == [{"arxiv_id": "0801.4572", "position": 1, "from": a.pk, "to": b.pk}]
    assert event.record.paper.arxiv_id == "0801.4572"  # the paper whose authorship moved
    assert event.signature["key_id"]

    undo = curation_undo(record_id=record.pk, editor=editor_user, reason="No")
    undo_event = Event.objects.get(content_sha256=undo.provenance_event.removeprefix("sha256:"))
    assert undo_event.event_type == "curation_undone"
    assert undo_event.content["supersedes"] == [record.provenance_event]
    assert undo_event.content["prev_event"] == record.provenance_event  # same record, same chain


def test_curation_records_are_append_only(curation_sample, editor_user):
    a, b = cieza()
    record = researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    with pytest.raises(Error), transaction.atomic():
        CurationRecord.objects.filter(pk=record.pk).update(reason="rewritten")
    with pytest.raises(Error), transaction.atomic():
        CurationRecord.objects.filter(pk=record.pk).delete()
    assert CurationRecord.objects.get(pk=record.pk).reason == "Same person"


def test_reason_is_required(curation_sample, editor_user):
    a, b = cieza()
    with pytest.raises(CurationError, match="reason"):
        researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="  ")


def test_different_orcids_refused_unless_overridden(curation_sample, editor_user):
    a, b = cieza()
    Researcher.objects.filter(pk=a.pk).update(orcid=ORCID_1)
    Researcher.objects.filter(pk=b.pk).update(orcid=ORCID_2)
    before = snapshot()
    with pytest.raises(OrcidConflict, match=ORCID_1):
        researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    assert snapshot() == before
    assert not CurationRecord.objects.exists()

    record = researcher_merge(
        survivor_id=b.pk,
        merged_ids=[a.pk],
        editor=editor_user,
        reason="One person with two ORCID records (confirmed by email)",
        override_orcid=True,
    )
    assert record.override_orcid is True
    b.refresh_from_db()
    assert b.orcid == ORCID_2  # the survivor keeps its own iD
    curation_undo(record_id=record.pk, editor=editor_user, reason="undo")
    assert snapshot() == before


def test_the_only_orcid_moves_to_the_survivor_and_back(curation_sample, editor_user):
    a, b = cieza()
    Researcher.objects.filter(pk=a.pk).update(orcid=ORCID_1)
    before = snapshot()
    record = researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    assert Researcher.objects.get(pk=b.pk).orcid == ORCID_1
    assert Researcher.objects.get(pk=a.pk).orcid is None
    assert record.changes["orcid"] == {"orcid": ORCID_1, "from": a.pk, "to": b.pk}
    curation_undo(record_id=record.pk, editor=editor_user, reason="undo")
    assert snapshot() == before


def test_chains_flatten_redirect_and_undo_in_order(curation_sample, editor_user, client):
    # Three "J. Wang" records: 0705.0702 (6th author), 0704.0182 (4th), 0705.0803 "J. X. Wang" (4th).
    a, b, c = researcher_of("0705.0702", 6), researcher_of("0704.0182", 4), researcher_of("0705.0803", 4)
    before = snapshot()
    first = researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="A is B")
    after_first = snapshot()
    second = researcher_merge(survivor_id=c.pk, merged_ids=[b.pk], editor=editor_user, reason="B is C")
    assert Researcher.objects.get(pk=a.pk).merged_into_id == c.pk  # flattened: A goes straight to C
    assert second.changes["flattened"] == [{"id": a.pk, "from": b.pk, "to": c.pk}]
    assert Researcher.objects.get(pk=c.pk).paper_count == 3

    c.refresh_from_db()
    for old in (a, b):
        response = client.get(f"/researchers/{old.pk}")
        assert response.status_code == 301 and response["Location"] == c.get_absolute_url()
        response = client.get(f"/researchers/{old.pk}-{old.slug}")
        assert response.status_code == 301 and response["Location"] == c.get_absolute_url()

    # The first merge cannot be undone while the second holds its rows.
    with pytest.raises(CurationConflict, match=f"#{second.pk}"):
        curation_undo(record_id=first.pk, editor=editor_user, reason="undo first")
    curation_undo(record_id=second.pk, editor=editor_user, reason="B is not C")
    assert snapshot() == after_first
    assert Researcher.objects.get(pk=a.pk).merged_into_id == b.pk
    curation_undo(record_id=first.pk, editor=editor_user, reason="A is not B")
    assert snapshot() == before


def test_merged_record_cannot_be_merged_again(curation_sample, editor_user):
    a, b = cieza()
    c = researcher_of("0705.0702", 6)
    researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    with pytest.raises(CurationConflict, match=f"{a.pk} \\(into {b.pk}\\)"):
        researcher_merge(survivor_id=c.pk, merged_ids=[a.pk], editor=editor_user, reason="x")
    # Into the merged record: the merge follows it to its survivor, one step, and says so
    # (issue 32; it was refused before).
    record = researcher_merge(survivor_id=a.pk, merged_ids=[c.pk], editor=editor_user, reason="x")
    assert (record.changes["survivor"], record.changes["merged"]) == (b.pk, [c.pk])
    assert record.changes["followed"] == {"requested_target": a.pk, "followed_to": b.pk}


def test_history_on_the_survivor_page_is_escaped(curation_sample, editor_user, client):
    a, b = cieza()
    record = researcher_merge(
        survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same <b>person</b> per ORCID"
    )
    b.refresh_from_db()
    page = client.get(b.get_absolute_url()).content.decode()
    assert "curation history" in page
    assert "1 record merged in (1 authorship moved)" in page
    assert "Same &lt;b&gt;person&lt;/b&gt; per ORCID" in page and "<b>person</b>" not in page
    assert f"signed event {record.provenance_event[7:19]}" in page
    event = Event.objects.get(content_sha256=record.provenance_event.removeprefix("sha256:"))
    assert f'href="/pith/{event.record.pith_body}"' in page
    curation_undo(record_id=record.pk, editor=editor_user, reason="Not the same")
    page = client.get(b.get_absolute_url()).content.decode()
    assert f"Undid curation #{record.pk}" in page and "(undone)" in page


def test_follows_move_to_the_survivor_and_come_back(curation_sample, editor_user, django_user_model):
    from accounts.models import DigestNote, Follow

    a, b = cieza()
    ann = django_user_model.objects.create_user("ann", "ann@example.org", "pw-ann-12345")
    bob = django_user_model.objects.create_user("bob", "bob@example.org", "pw-bob-12345")
    Follow.objects.create(user=ann, researcher=a)
    Follow.objects.create(user=bob, researcher=a)
    Follow.objects.create(user=bob, researcher=b)  # bob follows both: his follow of A is dropped

    def follows():
        return sorted(Follow.objects.values_list("user__username", "researcher_id", "created_at"))

    before = follows()
    record = researcher_merge(survivor_id=b.pk, merged_ids=[a.pk], editor=editor_user, reason="Same person")
    assert sorted(Follow.objects.values_list("user__username", "researcher_id")) == [
        ("ann", b.pk),
        ("bob", b.pk),
    ]
    (move,) = record.changes["follows"]["moves"]
    assert move["from_researcher_id"] == a.pk and len(move["moved"]) == 1 and len(move["dropped"]) == 1
    curation_undo(record_id=record.pk, editor=editor_user, reason="undo")
    assert follows() == before

    # A split tells the source's followers in their next digest.
    split = researcher_split(
        researcher_id=b.pk,
        authorship_ids=list(
            Authorship.objects.filter(researcher=b, paper__arxiv_id="0704.0253").values_list("pk", flat=True)
        ),
        editor=editor_user,
        reason="Other person",
    )
    assert split.changes["followers_notified"] == 1
    assert DigestNote.objects.get(user=bob, researcher=b).text.startswith("An editor split Lucas Cieza")


def test_merge_and_undo_query_counts_do_not_grow_with_the_rows_moved(curation_sample, editor_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from provenance.services import records_sign

    a, b = cieza()
    records_sign(
        paper_ids=list(Authorship.objects.filter(researcher__in=[a, b]).values_list("paper_id", flat=True))
    )
    counts = []
    # One authorship moves (A into B), then two (B into A): the same statements either way.
    for survivor, merged in ((b, a), (a, b)):
        with CaptureQueriesContext(connection) as merge_queries:
            record = researcher_merge(
                survivor_id=survivor.pk, merged_ids=[merged.pk], editor=editor_user, reason="r"
            )
        with CaptureQueriesContext(connection) as undo_queries:
            curation_undo(record_id=record.pk, editor=editor_user, reason="u")
        counts.append((len(record.changes["authorships"]), len(merge_queries), len(undo_queries)))
    assert [c[0] for c in counts] == [1, 2]
    assert counts[0][1:] == counts[1][1:]
