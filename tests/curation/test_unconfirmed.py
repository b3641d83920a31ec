"""The editors' review queue of unconfirmed links: listed with their evidence, confirmed in one
POST, reassigned through a confirmation page; both bind the real matcher and can be undone.

The guess is made on the real sample the way the matcher makes one: block "s flach" holds
S. Flach (#A: 0801.4264 and 0801.4296, cond-mat.stat-mech), Sergej Flach (0705.0943) and
another S. Flach alone on 0705.0804 (nlin). The fixture attaches 0705.0804's slot to #A by its
name alone (the record it was alone on goes), marked unconfirmed with a name-only signal.
"""

from __future__ import annotations

import io
from urllib.parse import quote

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db.models import Count
from django.test import Client

from curation.confirm import authorship_confirm
from curation.errors import CurationConflict, CurationError
from curation.marks import CONFIDENCE_EDITOR
from curation.models import CurationRecord
from curation.reassign import authorship_reassign
from curation.review import evidence_in_words
from curation.selectors import curation_history
from curation.undo import curation_undo
from researchers.matching_common import researchers_refresh
from researchers.models import Authorship, MatchConstraint, Researcher

from .conftest import researcher_of
from .test_matcher import holders, rematch

pytestmark = pytest.mark.django_db

BLOCK = "s flach"
GUESSED = ("0705.0804", 1)
FLACH_A = [("0801.4264", 2), ("0801.4296", 3)]
SERGEJ = ("0705.0943", 2)
NAME_ONLY = [{"kind": "name", "name": "S. Flach", "block_researchers": 2}]
QUEUE = "/admin/curation/unconfirmed/"
# A page of 50 links: session and user, the count, the page, the block members and their
# researchers (messages and the admin's own context add a few), whatever the page holds.
QUEUE_PAGE_QUERIES = 10
TITLE = "The Fermi-Pasta-Ulam problem: periodic orbits"


def link_of(arxiv_id: str, position: int) -> Authorship:
    return Authorship.objects.select_related("slot").get(
        slot__paper__arxiv_id=arxiv_id, slot__position=position
    )


@pytest.fixture
def guess(curation_sample):
    """0705.0804's "S. Flach" attached to S. Flach #A by name alone, unconfirmed; returns the link."""
    flach_a = researcher_of(*FLACH_A[0])
    link = link_of(*GUESSED)
    alone_on = link.researcher_id
    assert alone_on != flach_a.pk and researcher_of(*FLACH_A[1]) == flach_a  # the matcher's own result
    Authorship.objects.filter(pk=link.pk).update(
        researcher=flach_a, confidence=0.6, unconfirmed=True, evidence=NAME_ONLY
    )
    Researcher.objects.filter(pk=alone_on).delete()
    researchers_refresh(researcher_ids=[flach_a.pk])
    return link_of(*GUESSED)


@pytest.fixture
def staff_client(django_user_model):
    """A staff member who may view researchers but is not an editor."""
    client = Client()
    user = django_user_model.objects.create_user("staff", "s@example.org", "pw-staff-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_researcher"))
    client.force_login(user)
    return client


def test_evidence_in_words():
    assert evidence_in_words(NAME_ONLY) == ["Name only: “S. Flach”, 2 researchers in its name block"]
    assert evidence_in_words(
        [
            {"kind": "coauthors", "count": 3, "values": ["M. V. Ivanchenko", "O. I. Kanakov"]},
            {
                "kind": "editor",
                "action": "reassigned",
                "editor": "ed",
                "curation_id": 7,
                "from_researcher": 3,
            },
            "not a signal",
        ]
    ) == [
        "3 co-authors also on other papers: M. V. Ivanchenko, O. I. Kanakov and 1 more",
        "Reassigned from researcher 3 by editor ed (curation #7)",
    ]


def test_the_queue_lists_the_link_with_its_evidence_and_the_block(guess, editor):
    flach_a, sergej = guess.researcher, researcher_of(*SERGEJ)
    # The whole queue counts every link the matcher itself left unconfirmed, plus this one.
    total = Authorship.objects.filter(unconfirmed=True).count()
    assert f"{total} unconfirmed links ·" in editor.get(QUEUE).content.decode()
    page = editor.get(QUEUE + "?block=s+flach").content.decode()
    assert "1 unconfirmed link in block “s flach” ·" in page and f'id="link-{guess.pk}"' in page
    assert "0705.0804" in page and TITLE in page
    assert "S. Flach (author 1)" in page
    assert "Name only: “S. Flach”, 2 researchers in its name block" in page
    assert f"Sergej Flach</a> #{sergej.pk}" in page
    # Compare and reassign come back here, the block filter kept in next.
    here = quote("/admin/curation/unconfirmed/?block=s+flach")
    assert f"/admin/curation/merge/?ids={flach_a.pk},{sergej.pk}&amp;next={here}" in page
    assert f"/admin/curation/unconfirmed/{guess.pk}/reassign/?next={here}" in page
    page = editor.get(QUEUE + "?block=d+mozyrsky").content.decode()
    assert "0 unconfirmed links in block “d mozyrsky”" in page and 'value="d mozyrsky"' in page
    # Linked from the curation log and the same-name queue.
    assert QUEUE in editor.get("/admin/curation/curationrecord/").content.decode()
    assert QUEUE in editor.get("/admin/curation/queue/").content.decode()


@pytest.mark.parametrize("who", ["visitor", "staff_client"])
def test_non_editors_are_refused_and_nothing_changes(guess, who, request):
    client = request.getfixturevalue(who)
    assert client.get(QUEUE).status_code == 403
    assert client.get(f"{QUEUE}{guess.pk}/reassign/").status_code == 403
    data = {"researcher": guess.researcher_id, "reason": "x", "target": "new"}
    assert client.post(f"{QUEUE}{guess.pk}/confirm/", data).status_code == 403
    assert client.post(f"{QUEUE}{guess.pk}/reassign/", data).status_code == 403
    assert not CurationRecord.objects.exists()
    assert link_of(*GUESSED).unconfirmed


def test_control_the_matcher_alone_puts_the_guessed_slot_apart(guess):
    rematch(BLOCK)
    alone = holders(BLOCK)
    assert alone["0705.0804"] != alone["0801.4264"] == alone["0801.4296"]


def test_confirm_raises_confidence_clears_the_mark_and_binds_the_matcher(guess, editor_user):
    flach_a = guess.researcher_id
    record = authorship_confirm(authorship_id=guess.pk, researcher_id=flach_a, editor=editor_user)
    link = link_of(*GUESSED)
    assert record.kind == "confirm" and record.reason == "Confirmed in the review queue"
    assert link.researcher_id == flach_a and not link.unconfirmed
    assert link.confidence == CONFIDENCE_EDITOR == 0.95
    assert link.evidence == [
        *NAME_ONLY,
        {"kind": "editor", "action": "confirmed", "editor": "ed", "curation_id": record.pk},
    ]
    assert record.provenance_event.startswith("sha256:")
    # The must-link joins the slot to #A's anchor in the block (its lowest other slot).
    anchor = min(link_of(*slot).slot_id for slot in FLACH_A)
    (must,) = MatchConstraint.objects.filter(kind="must")
    assert {must.slot_a_id, must.slot_b_id} == {link.slot_id, anchor}
    with pytest.raises(CurationError, match="not unconfirmed"):
        authorship_confirm(authorship_id=guess.pk, researcher_id=flach_a, editor=editor_user)

    # A plain re-run leaves the confirmed link as it is.
    call_command("match_authors", "--local-only", "--no-progress", stdout=io.StringIO())
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.confidence, link.unconfirmed) == (flach_a, 0.95, False)
    # Re-matching the block from scratch keeps it with #A's papers (the control above: apart).
    rematch(BLOCK)
    found = holders(BLOCK)
    assert found["0705.0804"] == found["0801.4264"] == found["0801.4296"] != found["0705.0943"]


def test_confirm_only_raises_confidence(guess, editor_user):
    Authorship.objects.filter(pk=guess.pk).update(confidence=0.98)
    authorship_confirm(authorship_id=guess.pk, editor=editor_user)
    assert link_of(*GUESSED).confidence == 0.98


def test_confirm_refuses_a_link_that_moved_since(guess, editor_user):
    sergej = researcher_of(*SERGEJ)
    with pytest.raises(CurationConflict, match=f"now researcher {guess.researcher_id}'s, not {sergej.pk}'s"):
        authorship_confirm(authorship_id=guess.pk, researcher_id=sergej.pk, editor=editor_user)
    assert not CurationRecord.objects.exists() and link_of(*GUESSED).unconfirmed


def test_confirm_is_undone_by_undo(guess, editor_user):
    before = Authorship.objects.filter(pk=guess.pk).values("method", "confidence", "unconfirmed", "evidence")[
        0
    ]
    record = authorship_confirm(authorship_id=guess.pk, editor=editor_user)
    undo = curation_undo(record_id=record.pk, editor=editor_user, reason="Confirmed too fast")
    assert undo.kind == "undo" and undo.undoes_id == record.pk
    after = Authorship.objects.filter(pk=guess.pk).values("method", "confidence", "unconfirmed", "evidence")[
        0
    ]
    assert (
        after == before == {"method": "local", "confidence": 0.6, "unconfirmed": True, "evidence": NAME_ONLY}
    )
    assert not MatchConstraint.objects.exists()
    assert link_of(*GUESSED).researcher_id == guess.researcher_id


def test_confirm_through_the_queue_returns_to_next(guess, editor):
    here = QUEUE + "?block=s+flach&page=1"
    response = editor.post(
        f"{QUEUE}{guess.pk}/confirm/",
        {"researcher": guess.researcher_id, "reason": "Confirmed in the review queue", "next": here},
    )
    assert response.status_code == 302 and response["Location"] == here
    assert CurationRecord.objects.get().kind == "confirm" and not link_of(*GUESSED).unconfirmed
    page = editor.get(here).content.decode()
    assert "0 unconfirmed links" in page and "confirmed as researcher" in page
    # A second click is refused with a message; a foreign next goes to the queue instead.
    response = editor.post(
        f"{QUEUE}{guess.pk}/confirm/",
        {"researcher": guess.researcher_id, "reason": "again", "next": "https://evil.example/"},
    )
    assert response["Location"] == QUEUE and CurationRecord.objects.count() == 1
    assert editor.get(QUEUE + "?page=1").status_code == 200
    assert editor.get(f"{QUEUE}{guess.pk}/confirm/").status_code == 405  # POST only
    # The log offers the undo; its page says what comes back.
    record = CurationRecord.objects.get()
    page = editor.get(f"/admin/curation/undo/{record.pk}/").content.decode()
    assert "1 authorship gets back the method, confidence, mark" in page and "go back to where" not in page
    assert f'value="Undo curation #{record.pk}"' in page


def test_reassign_to_an_existing_researcher_binds_and_undoes(guess, editor_user):
    flach_a, sergej = guess.researcher_id, researcher_of(*SERGEJ)
    record = authorship_reassign(
        authorship_id=guess.pk,
        researcher_id=flach_a,
        target_id=sergej.pk,
        editor=editor_user,
        reason="Same nlin papers as Sergej Flach",
    )
    link = link_of(*GUESSED)
    assert record.kind == "reassign" and record.researcher_ids == sorted([flach_a, sergej.pk])
    assert record.changes["authorships"] == [{"id": guess.pk, "from": flach_a, "to": sergej.pk}]
    assert record.changes["created_researcher"] is None and record.provenance_event.startswith("sha256:")
    assert (link.researcher_id, link.method, link.confidence, link.unconfirmed) == (
        sergej.pk,
        "editor",
        0.95,
        False,
    )
    assert link.evidence == [
        {
            "kind": "editor",
            "action": "reassigned",
            "editor": "ed",
            "curation_id": record.pk,
            "from_researcher": flach_a,
        }
    ]
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 2
    assert Researcher.objects.get(pk=flach_a).paper_count == 2

    # Binding: re-matched from scratch, 0705.0804 stays with Sergej Flach's paper (the matcher
    # alone keeps them apart) and away from #A's.
    rematch(BLOCK)
    found = holders(BLOCK)
    assert found["0705.0804"] == found["0705.0943"] != found["0801.4264"] == found["0801.4296"]


def test_reassign_to_an_existing_researcher_is_undone_by_undo(guess, editor_user):
    flach_a, sergej = guess.researcher_id, researcher_of(*SERGEJ)
    record = authorship_reassign(
        authorship_id=guess.pk,
        researcher_id=flach_a,
        target_id=sergej.pk,
        editor=editor_user,
        reason="Sergej",
    )
    curation_undo(record_id=record.pk, editor=editor_user, reason="Wrong Flach")
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.method, link.confidence, link.unconfirmed) == (
        flach_a,
        "local",
        0.6,
        True,
    )
    assert link.evidence == NAME_ONLY and not MatchConstraint.objects.exists()
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 1
    assert Researcher.objects.get(pk=flach_a).paper_count == 3


def test_reassign_to_a_new_researcher_through_the_page(guess, editor):
    flach_a = guess.researcher_id
    here = QUEUE + "?block=s+flach"
    url = f"{QUEUE}{guess.pk}/reassign/?next={quote(here, safe='')}"
    page = editor.get(url).content.decode()
    assert f'href="{here}" class="button cancel-link">Cancel' in page.replace("&amp;", "&")
    assert "Name only: “S. Flach”, 2 researchers in its name block" in page
    sergej = researcher_of(*SERGEJ)
    assert f'value="{sergej.pk}"' in page and 'value="new"' in page
    # Without a reason nothing happens.
    response = editor.post(url, {"researcher": flach_a, "target": "new", "reason": ""})
    assert response.status_code == 200 and not CurationRecord.objects.exists()
    response = editor.post(
        url,
        {"researcher": flach_a, "target": "new", "display_name": "", "reason": "Nonlinear dynamics, not #A"},
    )
    assert response.status_code == 302 and response["Location"] == here
    record = CurationRecord.objects.get()
    new = Researcher.objects.get(pk=record.changes["target"])
    assert record.kind == "reassign" and record.changes["created_researcher"] == new.pk
    assert (new.display_name, new.paper_count) == ("S. Flach", 1)
    link = link_of(*GUESSED)
    assert link.researcher_id == new.pk and not link.unconfirmed and link.method == "editor"
    # Bound apart from #A: a cannot-link between their anchors in the block.
    (cannot,) = MatchConstraint.objects.filter(kind="cannot")
    anchor = min(link_of(*slot).slot_id for slot in FLACH_A)
    assert {cannot.slot_a_id, cannot.slot_b_id} == {anchor, link.slot_id}
    rematch(BLOCK)
    found = holders(BLOCK)
    assert found["0705.0804"] != found["0801.4264"] == found["0801.4296"]


def test_reassign_to_a_new_researcher_is_undone_by_undo(guess, editor_user):
    flach_a = guess.researcher_id
    record = authorship_reassign(
        authorship_id=guess.pk, researcher_id=flach_a, editor=editor_user, reason="Other"
    )
    created = record.changes["created_researcher"]
    curation_undo(record_id=record.pk, editor=editor_user, reason="Same person after all")
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.unconfirmed, link.evidence) == (flach_a, True, NAME_ONLY)
    assert not Researcher.objects.filter(pk=created).exists() and not MatchConstraint.objects.exists()
    history = curation_history(flach_a)
    assert [(h.record.kind, h.summary, h.undone) for h in history] == [
        ("undo", f"Undid curation #{record.pk}", False),
        ("reassign", f"Paper reassigned to researcher {created}", True),
    ]


def test_reassign_page_refuses_a_stale_link(guess, editor, editor_user):
    sergej = researcher_of(*SERGEJ)
    authorship_reassign(
        authorship_id=guess.pk,
        researcher_id=guess.researcher_id,
        target_id=sergej.pk,
        editor=editor_user,
        reason="x",
    )
    page = editor.post(
        f"{QUEUE}{guess.pk}/reassign/", {"researcher": guess.researcher_id, "target": "new", "reason": "y"}
    ).content.decode()
    assert f"are not researcher {guess.researcher_id}&#x27;s (any more)" in page
    assert CurationRecord.objects.count() == 1


def test_the_queue_pages_and_keeps_the_filter(curation_sample, editor, django_assert_max_num_queries):
    # Every link of the sample's shared name blocks marked, as if the name alone had decided them all.
    shared = (
        Authorship.objects.values("block")
        .annotate(n=Count("researcher_id", distinct=True))
        .filter(n__gte=2)
        .values_list("block", flat=True)
    )
    marked = Authorship.objects.filter(block__in=list(shared)).update(unconfirmed=True, evidence=NAME_ONLY)
    assert marked > 50
    with django_assert_max_num_queries(QUEUE_PAGE_QUERIES):
        page = editor.get(QUEUE).content.decode()
    assert f"{marked} unconfirmed links · page 1 of {(marked + 49) // 50}" in page
    assert page.count('<tr id="link-') == 50 and 'href="?page=2"' in page
    page = editor.get(QUEUE + "?page=2").content.decode()
    assert page.count('<tr id="link-') == min(50, marked - 50)
    # "j lee": 11 links of 9 researchers, one page; the links back carry the filter.
    page = editor.get(QUEUE + "?block=j+lee").content.decode()
    assert "11 unconfirmed links in block “j lee” · page 1 of 1" in page
    assert page.count('<tr id="link-') == 11 and "and 8 in all" not in page
    assert f"next={quote(QUEUE + '?block=j+lee')}" in page


def test_reassign_page_moves_to_a_researcher_of_the_block_or_by_id(guess, editor):
    flach_a, sergej = guess.researcher_id, researcher_of(*SERGEJ)
    url = f"{QUEUE}{guess.pk}/reassign/"
    # "Another existing researcher (id)" needs the id.
    page = editor.post(url, {"researcher": flach_a, "target": "id", "reason": "Sergej"}).content.decode()
    assert "Give the id of the researcher" in page and not CurationRecord.objects.exists()
    # Sergej Flach is offered as a choice of the block; no next: back to the queue.
    response = editor.post(
        url, {"researcher": flach_a, "target": str(sergej.pk), "reason": "Sergej's nlin paper"}
    )
    assert response.status_code == 302 and response["Location"] == QUEUE
    record = CurationRecord.objects.get()
    assert (record.kind, record.changes["source"], record.changes["target"]) == (
        "reassign",
        flach_a,
        sergej.pk,
    )
    assert link_of(*GUESSED).researcher_id == sergej.pk
    # Any link can be reassigned (here one of #A's own): the block's others, an id, a new researcher.
    page = editor.get(f"{QUEUE}{link_of(*FLACH_A[0]).pk}/reassign/").content.decode()
    assert 'value="id"' in page and 'value="new"' in page and f'value="{sergej.pk}"' in page
