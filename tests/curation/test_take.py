"""The owner of a claimed record takes a paper from an unconfirmed link or the review queue (issue 31).

On the real sample, block "s flach" holds S. Flach #A (0801.4264, 0801.4296), Sergej Flach
(0705.0943) and the "S. Flach" of 0705.0804, whom the fixture of ``test_unconfirmed`` gives
to #A by the name alone (unconfirmed). Sergej Flach claims his record (given Josiah
Carberry's iD, ORCID's fictitious test identity, so that his ORCID sign-in proves it) and
takes 0705.0804: from #A's unconfirmed link, or, in the second case, from the review queue,
where the slot is put with both records as its candidates (as the matcher leaves a slot
nothing decides: ``researchers.matching_local._choose_by_name``).
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from curation.claims import claim_decide, researcher_claim
from curation.errors import CurationError
from curation.models import CurationRecord
from curation.take import authorship_take, review_take, take_candidates
from curation.undo import curation_undo
from provenance.attestations import author_claims_counts
from provenance.bundles import bundle_build
from provenance.models import Event, Record
from provenance.verify import verify_bundle
from researchers.models import Authorship, MatchConstraint, Researcher, SlotReview
from researchers.selectors import slots_for_review
from tests.accounts.conftest import make_reader

from .conftest import researcher_of
from .test_matcher import holders, rematch
from .test_unconfirmed import BLOCK, FLACH_A, GUESSED, NAME_ONLY, SERGEJ, TITLE, guess, link_of

pytestmark = pytest.mark.django_db
__all__ = ["guess"]  # the fixture

CARBERRY = "0000-0002-1825-0097"


def _sergej_claimed():
    """Sergej Flach's record holding Carberry's iD, claimed (proved) by a new user."""
    sergej = researcher_of(*SERGEJ)
    Researcher.objects.filter(pk=sergej.pk).update(orcid=CARBERRY)
    user = make_reader("sergej@example.org")
    claim = researcher_claim(user=user, researcher_id=sergej.pk, verified_orcid=CARBERRY)
    return sergej, user, claim


def _bundle(arxiv_id: str) -> dict:
    record = (
        Record.objects.filter(paper__arxiv_id=arxiv_id).order_by("-source_version", "-created_at").first()
    )
    return bundle_build(record=record)


def test_the_owner_takes_an_unconfirmed_link_through_the_pages_and_it_binds_the_matcher(guess):
    flach_a = guess.researcher_id
    sergej, user, claim = _sergej_claimed()
    client = Client()
    client.force_login(user)
    page = client.get(reverse("claims:take", args=[claim.pk])).text
    assert f'id="link-{guess.pk}"' in page and TITLE in page
    assert "arXiv 0705.0804 · author 1 as “S. Flach” · now on" in page
    assert (
        reverse("claims:take", args=[claim.pk]) in client.get(reverse("claims:papers", args=[claim.pk])).text
    )

    done = client.post(reverse("claims:take_link", args=[claim.pk, guess.pk]))
    assert done["Location"] == reverse("claims:take", args=[claim.pk])
    assert "arXiv 0705.0804: now on your profile." in client.get(done["Location"]).text
    record = CurationRecord.objects.get(kind="take")
    assert (record.researcher_id, sorted(record.researcher_ids)) == (sergej.pk, sorted([flach_a, sergej.pk]))
    assert (record.editor_id, record.reason) == (user.pk, "Taken by the researcher")
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.method, link.confidence, link.unconfirmed) == (
        sergej.pk,
        "editor",
        0.98,
        False,
    )
    assert link.evidence == [
        {
            "kind": "owner",
            "action": "taken",
            "user": user.get_username(),
            "curation_id": record.pk,
            "strong": True,
            "from_researcher": flach_a,
        }
    ]
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 2
    assert Researcher.objects.get(pk=flach_a).paper_count == 2
    assert record.changes["arxiv_id"] == "0705.0804"
    # Both records' public pages tell it.
    sergej_page = Client().get(Researcher.objects.get(pk=sergej.pk).get_absolute_url()).text
    assert f"Authorship of 0705.0804 taken by the researcher from researcher {flach_a}" in sergej_page
    flach_page = Client().get(Researcher.objects.get(pk=flach_a).get_absolute_url()).text
    assert f"Authorship of 0705.0804 taken by the researcher of researcher {sergej.pk}" in flach_page
    # Nothing left to take; the paper page says whose word it is.
    assert take_candidates(sergej.pk).links == []
    assert "confirmed by the researcher</span>" in Client().get(link.paper.get_absolute_url()).text
    # Re-matching the block from scratch keeps it with Sergej's paper (unconstrained, the
    # matcher puts 0705.0804 alone: test_unconfirmed's control).
    rematch(BLOCK)
    found = holders(BLOCK)
    assert found["0705.0804"] == found["0705.0943"] != found["0801.4264"] == found["0801.4296"]


def test_an_editor_undoes_a_take_and_the_guess_is_back(guess, editor_user):
    flach_a = guess.researcher_id
    sergej, user, _claim = _sergej_claimed()
    record = authorship_take(user=user, researcher_id=sergej.pk, authorship_id=guess.pk)
    assert author_claims_counts([guess.paper_id])[guess.paper_id] == {"count": 1, "strong_count": 1}
    curation_undo(record_id=record.pk, editor=editor_user, reason="Not his: a different S. Flach")
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.confidence, link.unconfirmed, link.evidence) == (
        flach_a,
        0.6,
        True,
        NAME_ONLY,
    )
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 1
    # The attestation is withdrawn (superseded by the undo) and the counts say so.
    assert author_claims_counts([guess.paper_id])[guess.paper_id] == {"count": 0, "strong_count": 0}
    assert [a.pk for a in take_candidates(sergej.pk).links] == [guess.pk]


def test_only_the_owner_takes_and_only_a_guess_in_their_names(guess, editor_user):
    sergej, user, _claim = _sergej_claimed()
    stranger = make_reader("someone@example.org")
    with pytest.raises(CurationError, match="only the researcher who claimed record"):
        authorship_take(user=stranger, researcher_id=sergej.pk, authorship_id=guess.pk)
    # A confirmed link is not a guess: an editor decides it.
    confirmed = link_of(*FLACH_A[0])
    with pytest.raises(CurationError, match="only a link the name alone decided"):
        authorship_take(user=user, researcher_id=sergej.pk, authorship_id=confirmed.pk)
    # Another block's guess is not in his names.
    other = Authorship.objects.filter(unconfirmed=True).exclude(block=BLOCK).first()
    with pytest.raises(CurationError, match="only a link the name alone decided"):
        authorship_take(user=user, researcher_id=sergej.pk, authorship_id=other.pk)
    client = Client()
    client.force_login(stranger)
    claim = sergej.claims.get()
    assert client.get(reverse("claims:take", args=[claim.pk])).status_code == 404
    assert client.post(reverse("claims:take_link", args=[claim.pk, guess.pk])).status_code == 404
    assert not CurationRecord.objects.filter(kind="take").exists()
    assert link_of(*GUESSED).researcher_id == guess.researcher_id


@pytest.fixture
def in_review(guess):
    """0705.0804's slot left for review with #A and Sergej Flach as its candidates."""
    flach_a, sergej = guess.researcher_id, researcher_of(*SERGEJ).pk
    Authorship.objects.filter(pk=guess.pk).delete()
    Researcher.objects.filter(pk=flach_a).update(paper_count=2)
    return SlotReview.objects.create(slot_id=guess.slot_id, candidates=sorted([flach_a, sergej]))


def test_the_owner_takes_a_slot_from_the_review_queue_and_an_undo_puts_it_back(in_review, editor_user):
    sergej, user, claim = _sergej_claimed()
    client = Client()
    client.force_login(user)
    page = client.get(reverse("claims:take", args=[claim.pk])).text
    assert f'id="slot-{in_review.slot_id}"' in page and "arXiv 0705.0804 · author 1 as “S. Flach”" in page
    client.post(reverse("claims:take_review", args=[claim.pk, in_review.slot_id]))
    assert CurationRecord.objects.get(kind="take").researcher_id == sergej.pk
    link = link_of(*GUESSED)
    assert (link.researcher_id, link.confidence, link.unconfirmed, link.block) == (
        sergej.pk,
        0.98,
        False,
        BLOCK,
    )
    assert link.evidence[0]["action"] == "taken" and link.evidence[0]["from_review"] is True
    assert not SlotReview.objects.filter(slot_id=in_review.slot_id).exists()
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 2
    # Must-linked to Sergej's slot on 0705.0943; a re-match of the block keeps it there.
    (must,) = MatchConstraint.objects.filter(kind="must")
    assert {must.slot_a_id, must.slot_b_id} == {link.slot_id, link_of(*SERGEJ).slot_id}
    rematch(BLOCK)
    assert holders(BLOCK)["0705.0804"] == holders(BLOCK)["0705.0943"]


def test_an_undone_review_take_puts_the_slot_back_in_the_queue(in_review, editor_user):
    sergej, user, _claim = _sergej_claimed()
    record = review_take(user=user, researcher_id=sergej.pk, slot_id=in_review.slot_id)
    assert [r.slot_id for r in slots_for_review()] == []
    curation_undo(record_id=record.pk, editor=editor_user, reason="Taken by mistake")
    assert not Authorship.objects.filter(slot_id=in_review.slot_id).exists()
    assert [(r.slot_id, r.candidates) for r in slots_for_review()] == [
        (in_review.slot_id, in_review.candidates)
    ]
    assert Researcher.objects.get(pk=sergej.pk).paper_count == 1
    assert not MatchConstraint.objects.exists()
    with pytest.raises(CurationError, match="only the researcher who claimed"):
        review_take(user=make_reader("x@example.org"), researcher_id=sergej.pk, slot_id=in_review.slot_id)


def test_a_take_is_signed_into_a_bundle_that_verifies(guess):
    sergej, user, claim = _sergej_claimed()
    record = authorship_take(user=user, researcher_id=sergej.pk, authorship_id=guess.pk)
    (event,) = Event.objects.filter(event_type="author_attestation", record__paper__arxiv_id="0705.0804")
    assert event.content["payload"] == {
        "attestation": "take",
        "curation_id": record.pk,
        "researcher_id": sergej.pk,
        "arxiv_id": "0705.0804",
        "positions": [1],
        "strong": True,
        "orcid": CARBERRY,
    }
    bundle = _bundle("0705.0804")
    assert verify_bundle(bundle).ok
    snapshot = bundle["state"]["current"]["graph_snapshots"][-1]["payload"]["graph_snapshot"]
    assert snapshot["author_claims"] == {"count": 1, "strong_count": 1}


def test_a_guess_on_a_record_another_user_owns_is_not_taken(guess, editor_user):
    """#A (the record holding the guessed 0705.0804) is claimed by another user: the link is
    that owner's to settle. Before, Sergej's owner saw it under "Take it" and took it, which
    confirmed it on his record, where #A's owner could not take it back."""
    sergej, user, claim = _sergej_claimed()
    other = make_reader("flach-a@example.org")
    pending = researcher_claim(
        user=other, researcher_id=guess.researcher_id, verified_orcid=None, evidence="Mine"
    )
    claim_decide(claim_id=pending.pk, editor=editor_user, approve=True, reason="Lab page checked")
    assert take_candidates(sergej.pk).links == []
    client = Client()
    client.force_login(user)
    assert f'id="link-{guess.pk}"' not in client.get(reverse("claims:take", args=[claim.pk])).text
    with pytest.raises(CurationError, match="only a link the name alone decided"):
        authorship_take(user=user, researcher_id=sergej.pk, authorship_id=guess.pk)
    assert link_of(*GUESSED).researcher_id == guess.researcher_id
    # The owner of both records takes from one into the other.
    curation_undo(
        record_id=CurationRecord.objects.get(kind="claim_approve").pk, editor=editor_user, reason="No"
    )
    mine_too = researcher_claim(
        user=user, researcher_id=guess.researcher_id, verified_orcid=None, evidence="Me"
    )
    claim_decide(claim_id=mine_too.pk, editor=editor_user, approve=True, reason="Checked")
    assert [link.pk for link in take_candidates(sergej.pk).links] == [guess.pk]
