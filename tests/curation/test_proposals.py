"""The owner of a claimed record proposes merging another record of theirs; an editor decides (issue 31).

On the real sample the local matcher keeps two records of one astronomer apart (as in
test_merge.py): "Lucas A. Cieza" (0801.4572, first author) and "Lucas Cieza" (0801.4403,
first author, and 0704.0253, eighth). The owner claims "Lucas Cieza", given Josiah
Carberry's iD (ORCID's fictitious test identity) so that an ORCID sign-in proves the claim,
and proposes "Lucas A. Cieza" as theirs too.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from curation.claims import claim_decide, researcher_claim
from curation.errors import CurationConflict, CurationError, OrcidConflict
from curation.merge import researcher_merge
from curation.models import CurationRecord, MergeProposal
from curation.pairs import pair_mark_distinct
from curation.proposals import merge_propose, proposal_decide
from curation.split import researcher_split
from curation.undo import curation_undo
from provenance.bundles import bundle_build
from provenance.models import Record
from provenance.verify import verify_bundle
from researchers.models import Authorship, MatchConstraint, Researcher
from researchers.services import researchers_match_authors
from tests.accounts.conftest import make_reader

from .conftest import researcher_of, snapshot
from .test_matcher import holders, rematch

pytestmark = pytest.mark.django_db

CARBERRY = "0000-0002-1825-0097"  # Josiah Carberry, ORCID's documented test iD
OTHER_ORCID = "0000-0001-5109-3700"
CONFIRMED = "merge proposed by the researcher, confirmed by an editor"


def cieza() -> tuple[Researcher, Researcher]:
    """("Lucas A. Cieza", 1 paper), ("Lucas Cieza", 2 papers)."""
    return researcher_of("0801.4572", 1), researcher_of("0801.4403", 1)


def owner_of(researcher: Researcher, email: str = "lucas@example.org"):
    """A user whose ORCID sign-in proves their claim on ``researcher``: ``(user, claim)``."""
    Researcher.objects.filter(pk=researcher.pk).update(orcid=CARBERRY)
    user = make_reader(email)
    return user, researcher_claim(user=user, researcher_id=researcher.pk, verified_orcid=CARBERRY)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_proposed_confirmed_merged_and_kept_by_a_re_run(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    owner, editor = signed_in(user), signed_in(editor_user)
    assert f"/accounts/claims/{claim.pk}/merge" in owner.get(reverse("claims:home")).text
    page = owner.get(reverse("claims:merge", args=[claim.pk])).text
    # The same-name queue pairs the two (block "l cieza"): offered as a suggestion.
    assert f'<li id="candidate-{a.pk}">' in page
    assert f'action="/accounts/claims/{claim.pk}/merge/{a.pk}"' in page
    found = owner.get(reverse("claims:merge", args=[claim.pk]), {"q": "Cieza"}).text
    assert "Records named “Cieza”" in found and found.count(f'<li id="candidate-{a.pk}">') == 2

    sent = owner.post(reverse("claims:propose", args=[claim.pk, a.pk]), {"evidence": "My Spitzer c2d paper"})
    assert sent["Location"] == f"/accounts/claims/{claim.pk}/merge"
    proposal = MergeProposal.objects.get()
    assert (proposal.researcher_id, proposal.other_id, proposal.status) == (b.pk, a.pk, "pending")
    assert proposal.evidence == "My Spitzer c2d paper"
    record = proposal.record
    assert (record.kind, record.editor, record.researcher_ids) == (
        "merge_proposal",
        user,
        sorted([a.pk, b.pk]),
    )
    assert 'Lucas A. Cieza</a> <span class="fine">record' in owner.get(reverse("claims:home")).text
    assert ": waiting for an editor" in owner.get(reverse("claims:home")).text

    queue = editor.get(reverse("curation:proposals")).text
    assert f'<tr id="proposal-{proposal.pk}">' in queue and "My Spitzer c2d paper" in queue
    compare = editor.get(reverse("curation:proposal", args=[proposal.pk])).text
    assert "arXiv 0801.4572" in compare and "arXiv 0801.4403" in compare and "arXiv 0704.0253" in compare
    done = editor.post(
        reverse("curation:proposal_decide", args=[proposal.pk]),
        {"decision": "confirm", "reason": "Same astronomer, same c2d survey"},
    )
    assert done["Location"] == "/admin/curation/proposals/"

    a.refresh_from_db()
    b.refresh_from_db()
    proposal.refresh_from_db()
    assert (a.merged_into_id, b.merged_into_id, b.orcid, b.paper_count) == (b.pk, None, CARBERRY, 3)
    merge = proposal.decision
    assert (proposal.status, proposal.editor, merge.kind) == ("confirmed", editor_user, "merge")
    assert (merge.changes["proposal"], merge.changes["claimant"], merge.changes["merged"]) == (
        proposal.pk,
        user.pk,
        [a.pk],
    )
    assert MatchConstraint.objects.filter(kind="must").count() == 2  # three slots, one star
    assert "confirmed: merged" in owner.get(reverse("claims:home")).text
    assert CONFIRMED in Client().get(b.get_absolute_url()).text

    researchers_match_authors(sources=[])  # a re-run keeps the merge on the owner's record
    assert holders("l cieza") == {"0801.4572": b.pk, "0801.4403": b.pk, "0704.0253": b.pk}
    # Re-matched from scratch (the block's links deleted: only the must-links remember), the
    # three slots still go to one researcher.
    rematch("l cieza")
    assert len(set(holders("l cieza").values())) == 1


def _bundle(arxiv_id: str) -> dict:
    record = (
        Record.objects.filter(paper__arxiv_id=arxiv_id).order_by("-source_version", "-created_at").first()
    )
    return bundle_build(record=record)


def _attestations(arxiv_id: str) -> list[dict]:
    bundle = _bundle(arxiv_id)
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    return [e["payload"] for e in bundle["state"]["current"]["author_attestations"]]


def test_the_confirmation_is_signed_and_its_undo_restores_both_records(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    before = snapshot()
    proposal = proposal_decide(
        proposal_id=proposal.pk, editor=editor_user, confirm=True, reason="Same astronomer"
    )
    merge = proposal.decision
    position = Authorship.objects.get(paper__arxiv_id="0801.4572", researcher=b).slot.position
    merged = [p for p in _attestations("0801.4572") if p["attestation"] == "merge"]
    assert merged == [
        {
            "attestation": "merge",
            "curation_id": merge.pk,
            "proposal": proposal.pk,
            "researcher_id": b.pk,
            "merged": [a.pk],
            "arxiv_id": "0801.4572",
            "positions": [position],
            "strong": True,
            "orcid": CARBERRY,
        }
    ]
    assert position == 1

    undo = curation_undo(record_id=merge.pk, editor=editor_user, reason="Two people after all")
    assert snapshot() == before
    assert Researcher.objects.get(pk=a.pk).merged_into_id is None
    assert [p["attestation"] for p in _attestations("0801.4572")] == []
    proposal.refresh_from_db()
    assert (proposal.status, undo.changes["proposal_restored"]) == (
        "pending",
        {"proposal": proposal.pk, "from": "confirmed", "to": "pending"},
    )


def test_refused_leaves_both_and_the_undo_puts_it_back(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    owner, editor = signed_in(user), signed_in(editor_user)
    done = editor.post(
        reverse("curation:proposal_decide", args=[proposal.pk]),
        {"decision": "refuse", "reason": "Different institutes, no shared co-author"},
    )
    assert done["Location"] == "/admin/curation/proposals/"
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decision.kind) == ("refused", "proposal_refuse")
    assert Researcher.objects.filter(pk__in=[a.pk, b.pk], merged_into__isnull=True).count() == 2
    assert ": refused (“Different institutes, no shared co-author”)" in owner.get(reverse("claims:home")).text
    history = Client().get(b.get_absolute_url()).text
    assert f"Merge proposal refused by an editor: researcher {a.pk} stays a separate record" in history

    curation_undo(record_id=proposal.decision_id, editor=editor_user, reason="Refused too fast")
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_the_owner_withdraws_a_waiting_proposal(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    stranger = signed_in(make_reader("stranger@example.org"))
    assert stranger.post(reverse("claims:withdraw", args=[proposal.pk])).status_code == 404
    done = signed_in(user).post(reverse("claims:withdraw", args=[proposal.pk]))
    assert done["Location"] == f"/accounts/claims/{claim.pk}/merge"
    proposal.refresh_from_db()
    undo = CurationRecord.objects.get(undoes=proposal.record)
    assert (proposal.status, undo.editor, undo.reason) == ("withdrawn", user, "Withdrawn by the researcher")
    with pytest.raises(CurationError, match="is withdrawn"):
        proposal_decide(proposal_id=proposal.pk, editor=editor_user, confirm=True, reason="Same astronomer")
    # Withdrawn is final; proposing again is a new proposal.
    again = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    assert again.pk != proposal.pk and again.status == "pending"


def test_only_the_owner_proposes_and_only_an_editor_decides(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    stranger = make_reader("stranger@example.org")
    with pytest.raises(CurationError, match="only the researcher who claimed"):
        merge_propose(user=stranger, claim_id=claim.pk, other_id=a.pk)
    assert signed_in(stranger).get(reverse("claims:merge", args=[claim.pk])).status_code == 404
    assert signed_in(stranger).post(reverse("claims:propose", args=[claim.pk, a.pk])).status_code == 404
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    owner = signed_in(user)
    assert owner.get(reverse("curation:proposals")).status_code == 403
    decided = owner.post(
        reverse("curation:proposal_decide", args=[proposal.pk]), {"decision": "confirm", "reason": "It is me"}
    )
    assert decided.status_code == 403
    with pytest.raises(CurationError, match="only editors decide"):
        proposal_decide(proposal_id=proposal.pk, editor=user, confirm=True, reason="It is me")
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert Researcher.objects.get(pk=a.pk).merged_into_id is None


def test_refusals_own_merged_duplicate_distinct_claimed(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    with pytest.raises(CurationError, match="this is your own record"):
        merge_propose(user=user, claim_id=claim.pk, other_id=b.pk)
    merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    with pytest.raises(CurationError, match="your proposal is waiting for an editor"):
        merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    MergeProposal.objects.update(status="withdrawn")

    record = pair_mark_distinct(researcher_ids=[a.pk, b.pk], editor=editor_user, reason="Two astronomers")
    with pytest.raises(CurationError, match=f"declared it a different person \\(curation #{record.pk}\\)"):
        merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    page = signed_in(user).get(reverse("claims:merge", args=[claim.pk]), {"q": "Lucas Cieza"}).text
    assert f"Cannot be proposed: an editor declared it a different person (curation #{record.pk})." in page


def test_a_record_claimed_by_another_user_is_refused(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    rival = make_reader("rival@example.org")
    theirs = researcher_claim(user=rival, researcher_id=a.pk, verified_orcid=None, evidence="My page")
    claim_decide(claim_id=theirs.pk, editor=editor_user, approve=True, reason="Page checked")
    with pytest.raises(CurationError, match="claimed by someone else"):
        merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    page = signed_in(user).get(reverse("claims:merge", args=[claim.pk])).text
    assert "Cannot be proposed: claimed by someone else" in page
    assert not MergeProposal.objects.exists()


def test_a_merged_away_record_is_followed_and_orcid_rules_apply(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    # An editor splits 0704.0253 off "Lucas Cieza" into a new record, then merges that into
    # "Lucas A. Cieza": proposing the merged-away record proposes its survivor.
    link = Authorship.objects.get(researcher=b, paper__arxiv_id="0704.0253")
    split = researcher_split(researcher_id=b.pk, authorship_ids=[link.pk], editor=editor_user, reason="Check")
    gone = split.changes["target"]
    researcher_merge(survivor_id=a.pk, merged_ids=[gone], editor=editor_user, reason="Same astronomer")
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=gone)
    assert (proposal.researcher_id, proposal.other_id) == (b.pk, a.pk)
    Researcher.objects.filter(pk=a.pk).update(orcid=OTHER_ORCID)
    with pytest.raises(OrcidConflict, match="different ORCID iDs"):
        proposal_decide(proposal_id=proposal.pk, editor=editor_user, confirm=True, reason="Same astronomer")
    proposal = proposal_decide(
        proposal_id=proposal.pk,
        editor=editor_user,
        confirm=True,
        reason="One person, two ORCID records",
        override_orcid=True,
    )
    b.refresh_from_db()
    assert (proposal.status, b.orcid, proposal.decision.override_orcid) == ("confirmed", CARBERRY, True)
    # "Lucas A. Cieza" is now merged into the owner's record: theirs already.
    with pytest.raises(CurationError, match=f"researcher {a.pk} was merged into your record already"):
        merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)


def test_a_proposal_whose_claim_was_undone_cannot_be_confirmed(curation_sample, editor_user):
    a, b = cieza()
    user, claim = owner_of(b)
    proposal = merge_propose(user=user, claim_id=claim.pk, other_id=a.pk)
    curation_undo(record_id=claim.record_id, editor=editor_user, reason="Wrong person signed in")
    with pytest.raises(CurationConflict, match=f"no longer owns researcher {b.pk}"):
        proposal_decide(proposal_id=proposal.pk, editor=editor_user, confirm=True, reason="Same astronomer")
    assert Researcher.objects.get(pk=a.pk).merged_into_id is None
    proposal = proposal_decide(
        proposal_id=proposal.pk, editor=editor_user, confirm=False, reason="Claim undone"
    )
    assert proposal.status == "refused"
