"""Claims and owners' decisions signed into the papers' provenance (issue 31), in bundles that verify.

The archive is the 13 real papers of ``tests/accounts/conftest.py``; Uwe Aickelin's record
(six papers) is given Josiah Carberry's iD (ORCID's fictitious test identity) so that a
claim is proved, Jocelyne Troccaz's (four papers) none so that an editor approves hers.
"""

from __future__ import annotations

import pytest

from curation.claims import claim_decide, researcher_claim
from curation.owner import authorship_mine, authorship_not_mine
from curation.undo import curation_undo
from papers.models import Paper
from provenance.attestations import author_claims_counts
from provenance.bundles import bundle_build
from provenance.models import Event, Record
from provenance.verify import verify_bundle
from researchers.models import Authorship, Researcher
from tests.accounts.conftest import make_reader
from tests.curation.conftest import signing_key_file

CARBERRY = "0000-0002-1825-0097"

pytestmark = pytest.mark.django_db
__all__ = ["signing_key_file"]  # the autouse fixture: events signed with a key under tmp_path


def _bundle(arxiv_id: str) -> dict:
    record = (
        Record.objects.filter(paper__arxiv_id=arxiv_id).order_by("-source_version", "-created_at").first()
    )
    return bundle_build(record=record)


def _claims(bundle: dict) -> dict:
    """The author_claims block of the bundle's latest graph snapshot in force."""
    return bundle["state"]["current"]["graph_snapshots"][-1]["payload"]["graph_snapshot"]["author_claims"]


def _position(researcher, arxiv_id: str) -> int:
    return Authorship.objects.get(researcher=researcher, paper__arxiv_id=arxiv_id).slot.position


def test_a_proved_claim_and_the_owner_decisions_are_signed_and_verify(archive):
    aickelin = archive["aickelin"]
    Researcher.objects.filter(pk=aickelin.pk).update(orcid=CARBERRY)
    user = make_reader("uwe@example.org")
    claim = researcher_claim(user=user, researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    # One attestation on each of his six papers; the record names the first.
    attested = Event.objects.filter(event_type="author_attestation")
    assert sorted(attested.values_list("record__paper__arxiv_id", flat=True)) == [
        "0801.3971",
        "0801.4119",
        "0801.4287",
        "0801.4307",
        "0801.4312",
        "0801.4314",
    ]
    assert claim.record.provenance_event.startswith("sha256:")
    bundle = _bundle("0801.4119")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    (entry,) = bundle["state"]["current"]["author_attestations"]
    assert entry["payload"] == {
        "attestation": "claim",
        "curation_id": claim.record_id,
        "researcher_id": aickelin.pk,
        "arxiv_id": "0801.4119",
        "positions": [_position(aickelin, "0801.4119")],
        "strong": True,
        "orcid": CARBERRY,
    }
    assert _claims(bundle) == {"count": 1, "strong_count": 1}

    link = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4119")
    mine = authorship_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    bundle = _bundle("0801.4119")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    # In force, in (created_at, event id) order: events of one second sort by their hash.
    kinds = sorted(e["payload"]["attestation"] for e in bundle["state"]["current"]["author_attestations"])
    assert kinds == ["claim", "mine"]
    assert _claims(bundle) == {"count": 2, "strong_count": 2}

    # An editor's undo withdraws the owner's attestation: superseded, out of the counts.
    curation_undo(record_id=mine.pk, editor=make_reader("ed@example.org"), reason="Marked by mistake")
    bundle = _bundle("0801.4119")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    # In force, in (created_at, event id) order: events of one second sort by their hash.
    kinds = sorted(e["payload"]["attestation"] for e in bundle["state"]["current"]["author_attestations"])
    assert kinds == ["claim"]
    assert _claims(bundle) == {"count": 1, "strong_count": 1}

    gone = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4307")
    authorship_not_mine(user=user, researcher_id=aickelin.pk, authorship_id=gone.pk)
    bundle = _bundle("0801.4307")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    # In force, in (created_at, event id) order: events of one second sort by their hash.
    kinds = sorted(e["payload"]["attestation"] for e in bundle["state"]["current"]["author_attestations"])
    assert kinds == ["claim", "not_mine"]
    assert _claims(bundle) == {"count": 2, "strong_count": 2}


def test_an_approved_claim_counts_but_is_not_strong_and_its_undo_withdraws_it(archive):
    troccaz = archive["troccaz"]
    user = make_reader("jocelyne@example.org")
    editor = make_reader("ed@example.org")
    claim = researcher_claim(user=user, researcher_id=troccaz.pk, verified_orcid=None, evidence="My lab page")
    assert not Event.objects.filter(event_type="author_attestation").exists()
    claim = claim_decide(claim_id=claim.pk, editor=editor, approve=True, reason="Lab page checked")
    papers = sorted(troccaz.authorships.values_list("paper__arxiv_id", flat=True))
    assert papers == ["0801.3711", "0801.3965", "0801.4355", "0801.4483"]
    bundle = _bundle("0801.3711")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    (entry,) = bundle["state"]["current"]["author_attestations"]
    assert (entry["payload"]["strong"], entry["payload"]["orcid"]) == (False, "")
    assert _claims(bundle) == {"count": 1, "strong_count": 0}
    curation_undo(record_id=claim.decision_id, editor=editor, reason="Approved too fast")
    bundle = _bundle("0801.3711")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    assert bundle["state"]["current"]["author_attestations"] == []
    assert _claims(bundle) == {"count": 0, "strong_count": 0}
    ids = list(Paper.objects.filter(arxiv_id__in=papers).values_list("pk", flat=True))
    assert set(map(tuple, (sorted(c.items()) for c in author_claims_counts(ids).values()))) == {
        (("count", 0), ("strong_count", 0))
    }


def test_a_new_snapshot_from_the_record_alone_gets_the_claims_counts_back(archive):
    """The signing stage snapshots a changed paper from its record alone (author_claims back
    at the seed's zeros); provenance.attestations.author_claims_restore, which the stage runs
    after signing anything, puts the counts of the claims on it back."""
    import copy

    from provenance.attestations import author_claims_restore
    from provenance.services import EventSpec, events_append

    aickelin = archive["aickelin"]
    Researcher.objects.filter(pk=aickelin.pk).update(orcid=CARBERRY)
    researcher_claim(user=make_reader("uwe@example.org"), researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    assert _claims(_bundle("0801.4119")) == {"count": 1, "strong_count": 1}
    # As the stage would on a respelled author line: a snapshot whose block is the seed's.
    tip = _bundle("0801.4119")["state"]["current"]["graph_snapshots"][-1]
    payload = copy.deepcopy(tip["payload"])
    payload["graph_snapshot"]["author_claims"] = {"count": 0, "strong_count": 0}
    payload["graph_snapshot"]["paper"]["authors_text"] += " "
    record = (
        Record.objects.filter(paper__arxiv_id="0801.4119").order_by("-source_version", "-created_at").first()
    )
    events_append(items=[EventSpec(record, "graph_snapshot", payload, supersedes=(tip["event_id"],))])
    assert _claims(_bundle("0801.4119")) == {"count": 0, "strong_count": 0}

    assert len(author_claims_restore()) == 1  # only that paper's counts differed
    bundle = _bundle("0801.4119")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    latest = bundle["state"]["current"]["graph_snapshots"][-1]["payload"]["graph_snapshot"]
    assert latest["author_claims"] == {"count": 1, "strong_count": 1}
    assert latest["paper"]["authors_text"].endswith(" ")  # the change itself kept
    assert author_claims_restore() == []  # nothing left to restore
