"""Authorship events (issue 20): each link of an author slot to a researcher is signed with its
evidence, once, and again when it changes; the bundles still verify."""

import pytest

from curation.confirm import authorship_confirm
from curation.reassign import authorship_reassign
from provenance.authorships import authorships_sign
from provenance.bundles import bundle_build
from provenance.models import Event
from provenance.selectors import pith_for_paper
from provenance.signing import signing_backlog
from provenance.tasks import signing_stage
from provenance.verify import verify_bundle
from researchers.models import Authorship
from researchers.services import researchers_match_authors

pytestmark = pytest.mark.django_db


def test_each_authorship_is_signed_with_its_evidence(signed_raw_page):
    # The three real arXivRaw records 0801.3673-0801.3675, signed, then matched locally.
    researchers_match_authors(sources=[])
    count = Authorship.objects.count()
    assert count > 0
    assert authorships_sign() == count
    assert authorships_sign() == 0  # recorded once

    authorship = Authorship.objects.select_related("slot", "paper").order_by(
        "paper__arxiv_id", "slot__position"
    )[0]
    event = Event.objects.get(
        event_type="authorship_matched",
        target=f"authorship:{authorship.slot.position}",
        record__paper=authorship.paper,
    )
    assert event.content["payload"] == {
        "position": authorship.slot.position,
        "name": authorship.slot.name,
        "researcher_id": authorship.researcher_id,
        "method": "local",
        "source": "",
        "confidence": "0.50",  # alone in three papers: a researcher of one slot
        "evidence": [{"kind": "name", "name": authorship.slot.name, "block": authorship.block}],
        "unconfirmed": False,
    }
    record = pith_for_paper(authorship.paper)
    assert verify_bundle(bundle_build(record=record)).ok

    # A changed link (an editor's signal, with a float the signed content must not hold) is
    # recorded again, superseding the first event on its chain.
    Authorship.objects.filter(pk=authorship.pk).update(
        evidence=[{"kind": "editor", "score": 0.5}, *authorship.evidence], confidence=1.0, method="editor"
    )
    assert authorships_sign() == 1
    second = (
        Event.objects.filter(
            event_type="authorship_matched",
            target=f"authorship:{authorship.slot.position}",
            record__paper=authorship.paper,
        )
        .exclude(pk=event.pk)
        .get()
    )
    assert second.content["supersedes"] == [f"sha256:{event.pk}"]
    assert second.content["prev_event"] == f"sha256:{event.pk}"
    assert second.content["payload"]["evidence"][0] == {"kind": "editor", "score": "0.5"}
    assert (second.content["payload"]["method"], second.content["payload"]["confidence"]) == (
        "editor",
        "1.00",
    )
    bundle = bundle_build(record=record)
    assert verify_bundle(bundle).ok
    current = bundle["state"]["current"]["authorship_matches"]
    assert f"sha256:{second.pk}" in [e["event_id"] for e in current]
    assert f"sha256:{event.pk}" not in [e["event_id"] for e in current]


def test_the_signing_stage_records_authorships(signed_raw_page):
    researchers_match_authors(sources=[])
    result = signing_stage(trigger="test")
    assert result["authorships_recorded"] == Authorship.objects.count()


def test_an_editors_decisions_wait_in_the_signing_backlog_until_signed(signed_raw_page, django_user_model):
    """The signing backlog (``pipeline_status``) counted papers to sign and deletions only:
    an editor's confirmation or reassignment waiting for its ``authorship_matched`` event
    showed as nothing to do. It counts each signed paper with a link waiting, too."""
    researchers_match_authors(sources=[])
    # The three papers (0801.3673-0801.3675) are signed; their new links are not recorded yet.
    assert signing_backlog().waiting == 3
    links = list(
        Authorship.objects.select_related("slot", "paper").order_by("paper__arxiv_id", "slot__position")
    )
    guess, moved = links[0], next(a for a in links if a.paper_id != links[0].paper_id)
    # A guess as the matcher leaves one (the name alone, unconfirmed), recorded as such.
    Authorship.objects.filter(pk=guess.pk).update(
        unconfirmed=True, evidence=[{"kind": "name", "name": guess.slot.name, "block": guess.block}]
    )
    assert authorships_sign() == len(links)
    assert signing_backlog().waiting == 0

    editor = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    authorship_confirm(authorship_id=guess.pk, editor=editor)
    backlog = signing_backlog()
    assert backlog.waiting == 1  # the confirmed link's paper
    assert backlog.oldest == Authorship.objects.get(pk=guess.pk).modified_at
    authorship_reassign(
        authorship_id=moved.pk, researcher_id=moved.researcher_id, editor=editor, reason="Another person"
    )
    assert signing_backlog().waiting == 2  # and the reassigned link's paper

    result = signing_stage(trigger="test")
    assert (result["records_created"], result["authorships_recorded"]) == (0, 2)
    assert signing_backlog().waiting == 0


def test_an_authorship_that_cannot_be_signed_is_skipped_not_the_batch(signed_raw_page, caplog):
    """Evidence holding an integer past I-JSON's range (2**60: RFC 8785 refuses it) is logged
    and left for the next run; the other authorships of the batch are signed."""
    from provenance.models import AuthorshipSigning

    researchers_match_authors(sources=[])
    count = Authorship.objects.count()
    bad = Authorship.objects.order_by("paper__arxiv_id", "slot__position")[1]
    Authorship.objects.filter(pk=bad.pk).update(evidence=[{"kind": "editor", "id": 2**60}])

    assert authorships_sign() == count - 1
    assert f"cannot sign the authorship of slot {bad.slot_id} " in caplog.text
    assert not AuthorshipSigning.objects.filter(slot_id=bad.slot_id).exists()  # tried again next run
    assert AuthorshipSigning.objects.count() == count - 1
