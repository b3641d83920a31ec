"""A researcher's word on a paper outlives a new arXiv version of it (issue 31).

Each arXiv version has its own signed record, and an attestation is signed into the record
that was current. Naoum C. Bacalis, alone on 0801.3673 (the real arXivRaw record, harvested
beside the real sample: ``tests/fixtures/provenance/edited_arXivRaw_0801.3673_comments.xml``,
version 1), claims his record; then version 2 arrives with a new title (``_v2_later``, the
same record with a v2 line, a later datestamp and " of Atoms" after the title) and the
signing stage signs it. The new record carries the claim too, in a bundle that verifies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from curation.claims import researcher_claim
from curation.undo import curation_undo
from papers import harvest as paper_harvest
from papers.models import Paper
from provenance.attestations import author_claims_counts, author_claims_restore
from provenance.bundles import bundle_build
from provenance.models import Event, Record
from provenance.services import records_sign
from provenance.verify import verify_bundle
from researchers.models import Researcher
from researchers.services import researchers_match_authors
from tests.accounts.conftest import make_reader

from .conftest import researcher_of

pytestmark = pytest.mark.django_db

CARBERRY = "0000-0002-1825-0097"
EDITED = Path(__file__).resolve().parents[1] / "fixtures" / "provenance"
V1 = EDITED / "edited_arXivRaw_0801.3673_comments.xml"
V2 = EDITED / "edited_arXivRaw_0801.3673_v2_later.xml"


def _current(paper: Paper) -> Record:
    return Record.objects.filter(paper=paper).order_by("-source_version", "-created_at").first()


def _claims(record: Record) -> dict:
    bundle = bundle_build(record=record)
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    return bundle["state"]["current"]["graph_snapshots"][-1]["payload"]["graph_snapshot"]["author_claims"]


def test_a_new_version_carries_the_attestation_and_an_undo_withdraws_both(editor_user):
    paper_harvest.harvest_files(paths=[V1])
    researchers_match_authors(sources=[])
    paper = Paper.objects.get(arxiv_id="0801.3673")
    bacalis = researcher_of("0801.3673", 1)
    assert bacalis.display_name == "Naoum C. Bacalis"
    records_sign(paper_ids=[paper.pk])
    Researcher.objects.filter(pk=bacalis.pk).update(orcid=CARBERRY)
    claim = researcher_claim(
        user=make_reader("bacalis@example.org"), researcher_id=bacalis.pk, verified_orcid=CARBERRY
    )
    v1 = _current(paper)
    (attested,) = Event.objects.filter(event_type="author_attestation")
    assert attested.record_id == v1.pk and _claims(v1) == {"count": 1, "strong_count": 1}

    paper_harvest.harvest_files(paths=[V2])
    records_sign(paper_ids=[paper.pk])
    v2 = _current(paper)
    assert (v1.source_version, v2.source_version) == (1, 2)
    assert Paper.objects.get(pk=paper.pk).title == "Variational Functionals for Excited States of Atoms"
    assert author_claims_counts([paper.pk])[paper.pk] == {"count": 0, "strong_count": 0}  # not carried yet

    # What the signing stage runs after signing anything.
    author_claims_restore()
    carried = Event.objects.get(event_type="author_attestation", record=v2)
    assert carried.content["payload"] == {
        **attested.content["payload"],
        "carried_from": f"sha256:{attested.content_sha256}",
    }
    assert _claims(v2) == {"count": 1, "strong_count": 1}
    assert author_claims_restore() == []  # idempotent

    # An editor's undo of the claim withdraws it from both records, each in its own log.
    curation_undo(record_id=claim.record_id, editor=editor_user, reason="Not his profile")
    withdrawn = Event.objects.filter(event_type="curation_undone", content__payload__undoes=claim.record_id)
    assert sorted(withdrawn.values_list("record__source_version", flat=True)) == [1, 2]
    assert _claims(v2) == {"count": 0, "strong_count": 0}
    assert author_claims_restore() == []  # nothing withdrawn comes back
