"""Authorship events (issue 20): each link of an author slot to a researcher is signed with its
evidence, once, and again when it changes; the bundles still verify."""

import pytest

from provenance.authorships import authorships_sign
from provenance.bundles import bundle_build
from provenance.models import Event
from provenance.selectors import pith_for_paper
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
