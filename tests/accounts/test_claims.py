"""Claiming a researcher profile (issue 31): proved by ORCID sign-in at once, else reviewed by an editor.

The archive is the 13 real papers of ``tests/accounts/conftest.py``. Real records hold no
ORCID iD here (arXiv's metadata has none), so each test gives one: Josiah Carberry's
``0000-0002-1825-0097`` (ORCID's fictitious test identity, the stand-in's default person)
and ORCID's sandbox test account ``0000-0002-7319-2192`` (the sample record's own iD).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from accounts.orcid.selectors import verified_orcid
from curation.claims import researcher_claim, researcher_for_orcid
from curation.errors import CurationConflict, CurationError
from curation.merge import researcher_merge
from curation.models import CurationRecord, ResearcherClaim
from curation.owner import authorship_mine
from curation.undo import curation_undo
from researchers.models import Researcher
from tests.accounts.conftest import make_reader
from tests.accounts.orcid_flow import orcid_sign_in, use_standin
from tests.curation.conftest import signing_key_file
from tests.orcid_standin import orcid_standin

CARBERRY = "0000-0002-1825-0097"
SANDBOX = "0000-0002-7319-2192"
CLAIMED = "claimed by the researcher"

pytestmark = pytest.mark.django_db
__all__ = ["signing_key_file"]  # the autouse fixture: events signed with a key under tmp_path


@pytest.fixture
def editor_client(db, django_user_model) -> Client:
    """A signed-in member of the Editors group, in a client of its own."""
    user = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def _give_orcid(researcher: Researcher, orcid: str) -> None:
    Researcher.objects.filter(pk=researcher.pk).update(orcid=orcid)


def test_a_claim_with_a_matching_id_is_approved_at_once(client, settings, archive):
    aickelin = archive["aickelin"]
    _give_orcid(aickelin, CARBERRY)
    assert CLAIMED not in client.get(aickelin.get_absolute_url()).text
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
    home = client.get(reverse("claims:home")).text
    assert f'You signed in with ORCID iD <a href="https://orcid.org/{CARBERRY}"' in home
    assert "Uwe Aickelin</a> holds your iD: claim it now" in home
    done = client.post(reverse("claims:claim", args=[aickelin.pk]))
    assert done.status_code == 302
    assert done["Location"] == aickelin.get_absolute_url()
    claim = ResearcherClaim.objects.get()
    assert (claim.researcher_id, claim.status, claim.strong, claim.orcid) == (
        aickelin.pk,
        "approved",
        True,
        CARBERRY,
    )
    record = claim.record
    assert (record.kind, record.editor, record.researcher_id) == ("claim", claim.user, aickelin.pk)
    assert record.reason == "Claimed by the researcher, proved by ORCID sign-in"
    # Every visitor sees it; the owner gets a link to their profile page.
    assert CLAIMED in client.get(aickelin.get_absolute_url()).text
    assert CLAIMED in Client().get(aickelin.get_absolute_url()).text
    assert "Claimed by a user" in Client().get(aickelin.get_absolute_url()).text


def test_a_claim_on_a_merged_record_holding_the_id_as_its_second_identity(client, settings, archive):
    aickelin = archive["aickelin"]
    _give_orcid(aickelin, SANDBOX)
    other = Researcher.objects.create(display_name="U. Aickelin", orcid=CARBERRY)
    editor = make_reader("merger@example.org")
    researcher_merge(
        survivor_id=aickelin.pk,
        merged_ids=[other.pk],
        editor=editor,
        reason="One person, two iDs",
        override_orcid=True,
    )
    aickelin.refresh_from_db()
    assert aickelin.orcid == SANDBOX
    assert list(aickelin.identities.filter(source="orcid").values_list("external_id", flat=True)) == [
        CARBERRY
    ]
    assert researcher_for_orcid(CARBERRY) == aickelin
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
    # Claimed through the merged-away id: the claim lands on the survivor, proved.
    done = client.post(reverse("claims:claim", args=[other.pk]))
    assert done["Location"] == aickelin.get_absolute_url()
    claim = ResearcherClaim.objects.get()
    assert (claim.researcher_id, claim.status, claim.strong) == (aickelin.pk, "approved", True)


def test_a_typed_id_is_never_proof_and_an_editor_approves(follower, reader, editor_client, archive):
    troccaz = archive["troccaz"]
    _give_orcid(troccaz, CARBERRY)
    form = follower.get(reverse("claims:claim", args=[troccaz.pk])).text
    assert "Without ORCID, an editor reviews your claim" in form
    sent = follower.post(
        reverse("claims:claim", args=[troccaz.pk]),
        {"orcid": f"https://orcid.org/{CARBERRY}", "evidence": "My page: https://example.org/troccaz"},
    )
    assert sent.status_code == 302
    claim = ResearcherClaim.objects.get()
    assert (claim.status, claim.strong, claim.orcid) == ("pending", False, CARBERRY)
    assert (
        "Your claim on this profile is waiting for an editor" in follower.get(troccaz.get_absolute_url()).text
    )
    assert CLAIMED not in Client().get(troccaz.get_absolute_url()).text
    queue = editor_client.get(reverse("curation:claims")).text
    assert "1 claim waiting" in queue
    assert "My page: https://example.org/troccaz" in queue
    assert f"holds {CARBERRY}" in queue
    decided = editor_client.post(
        reverse("curation:claim_decide", args=[claim.pk]), {"decision": "approve", "reason": "Page checked"}
    )
    assert decided.status_code == 302
    claim.refresh_from_db()
    assert claim.status == "approved"
    assert (claim.decision.kind, claim.decision.reason) == ("claim_approve", "Page checked")
    assert CLAIMED in Client().get(troccaz.get_absolute_url()).text
    assert "No claims waiting" in editor_client.get(reverse("curation:claims")).text


def test_a_claim_an_editor_refuses(follower, reader, editor_client, archive):
    aickelin = archive["aickelin"]
    follower.post(reverse("claims:claim", args=[aickelin.pk]), {"evidence": "I am Uwe"})
    claim = ResearcherClaim.objects.get()
    assert (claim.status, claim.orcid, claim.evidence) == ("pending", "", "I am Uwe")
    # The refusal needs a reason.
    editor_client.post(
        reverse("curation:claim_decide", args=[claim.pk]), {"decision": "refuse", "reason": ""}
    )
    claim.refresh_from_db()
    assert claim.status == "pending"
    editor_client.post(
        reverse("curation:claim_decide", args=[claim.pk]),
        {"decision": "refuse", "reason": "Nothing to check"},
    )
    claim.refresh_from_db()
    assert (claim.status, claim.decision.kind) == ("refused", "claim_refuse")
    assert CLAIMED not in Client().get(aickelin.get_absolute_url()).text
    assert "refused" in follower.get(reverse("claims:home")).text


def test_an_orcid_the_record_does_not_hold_goes_to_review(client, settings, archive):
    aickelin = archive["aickelin"]
    _give_orcid(aickelin, SANDBOX)
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
    client.post(reverse("claims:claim", args=[aickelin.pk]))
    claim = ResearcherClaim.objects.get()
    # The proved iD is Carberry's, the record holds the sandbox one: evidence, not proof.
    assert (claim.status, claim.strong, claim.orcid) == ("pending", False, CARBERRY)


def test_one_owner_per_researcher_and_a_claim_without_anything_is_refused(archive):
    aickelin = archive["aickelin"]
    _give_orcid(aickelin, CARBERRY)
    first, second = make_reader("one@example.org"), make_reader("two@example.org")
    researcher_claim(user=first, researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    with pytest.raises(CurationError, match="already claimed by someone else"):
        researcher_claim(user=second, researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    with pytest.raises(CurationError, match="say why this record is yours"):
        researcher_claim(user=second, researcher_id=archive["troccaz"].pk, verified_orcid=None)
    with pytest.raises(CurationError, match="not an ORCID iD"):
        researcher_claim(
            user=second, researcher_id=archive["troccaz"].pk, verified_orcid=None, typed_orcid="1234"
        )
    assert ResearcherClaim.objects.count() == 1


def test_an_editor_undoes_a_claim_and_an_approval(archive, editor_client):
    aickelin, troccaz = archive["aickelin"], archive["troccaz"]
    _give_orcid(aickelin, CARBERRY)
    user = make_reader("uwe@example.org")
    editor = make_reader("undoer@example.org")
    proved = researcher_claim(user=user, researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    # The editors' undo page and the record's page read it as sentences.
    preview = editor_client.get(reverse("curation:undo", args=[proved.record_id]))
    assert preview.status_code == 200
    story = editor_client.get(reverse("admin:curation_curationrecord_change", args=[proved.record_id]))
    assert "Claim on" in story.text
    undo = curation_undo(record_id=proved.record_id, editor=editor, reason="Claimed by mistake")
    proved.refresh_from_db()
    assert proved.status == "withdrawn"
    assert undo.changes["claim_restored"] == {"claim": proved.pk, "from": "approved", "to": "withdrawn"}
    assert CLAIMED not in Client().get(aickelin.get_absolute_url()).text
    # An approval undone puts the claim back in the queue; then its claim record cannot be
    # undone until the approval is (the claim is no longer what that record left).
    reviewed = researcher_claim(user=user, researcher_id=troccaz.pk, verified_orcid=None, evidence="My page")
    editor_client.post(
        reverse("curation:claim_decide", args=[reviewed.pk]), {"decision": "approve", "reason": "Checked"}
    )
    reviewed.refresh_from_db()
    with pytest.raises(CurationConflict, match=f"claim {reviewed.pk} is approved now, not pending"):
        curation_undo(record_id=reviewed.record_id, editor=editor, reason="Wrong order")
    curation_undo(record_id=reviewed.decision_id, editor=editor, reason="Approved too fast")
    reviewed.refresh_from_db()
    assert reviewed.status == "pending"
    assert CurationRecord.objects.filter(kind="undo").count() == 2


def test_the_verified_id_is_the_social_account_uid(client, settings, reader):
    assert verified_orcid(reader) is None
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
    user = get_user_model().objects.get(socialaccount__provider="orcid")
    assert verified_orcid(user) == CARBERRY


def test_a_claimed_record_merged_into_another_makes_the_survivor_claimed(archive):
    aickelin = archive["aickelin"]
    other = Researcher.objects.create(display_name="U. Aickelin", orcid=CARBERRY)
    user = make_reader("uwe@example.org")
    researcher_claim(user=user, researcher_id=other.pk, verified_orcid=CARBERRY)
    assert CLAIMED not in Client().get(aickelin.get_absolute_url()).text
    researcher_merge(
        survivor_id=aickelin.pk,
        merged_ids=[other.pk],
        editor=make_reader("ed@example.org"),
        reason="Same man",
    )
    assert CLAIMED in Client().get(aickelin.get_absolute_url()).text
    link = aickelin.authorships.get(paper__arxiv_id="0801.4119")
    record = authorship_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    assert (record.kind, record.researcher_id) == ("mine", aickelin.pk)
