"""The owner of a claimed profile marks papers "mine" and "not mine" (issue 31).

The archive is the 13 real papers of ``tests/accounts/conftest.py``: Uwe Aickelin's six
(0801.3971, 0801.4119, 0801.4287, 0801.4307, 0801.4312, 0801.4314). His record is given
Josiah Carberry's iD (ORCID's fictitious test identity, the stand-in's person) so that an
ORCID sign-in proves the claim.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from curation.claims import researcher_claim
from curation.errors import CurationError
from curation.models import CurationRecord
from curation.owner import authorship_mine, authorship_not_mine
from curation.undo import curation_undo
from researchers.models import Authorship, MatchConstraint, Researcher
from researchers.services import researchers_match_authors
from tests.accounts.conftest import aickelin_claimed, make_reader
from tests.accounts.orcid_flow import orcid_sign_in, use_standin
from tests.curation.conftest import signing_key_file
from tests.orcid_standin import orcid_standin

CARBERRY = "0000-0002-1825-0097"
AICKELIN_PAPERS = ["0801.3971", "0801.4119", "0801.4287", "0801.4307", "0801.4312", "0801.4314"]

pytestmark = pytest.mark.django_db
__all__ = ["signing_key_file"]  # the autouse fixture: events signed with a key under tmp_path


def _authorship(researcher, arxiv_id: str) -> Authorship:
    return Authorship.objects.select_related("slot").get(researcher=researcher, paper__arxiv_id=arxiv_id)


def test_mine_through_the_pages_shows_on_the_paper_page_and_its_why(client, settings, archive):
    aickelin = archive["aickelin"]
    Researcher.objects.filter(pk=aickelin.pk).update(orcid=CARBERRY)
    assert sorted(aickelin.authorships.values_list("paper__arxiv_id", flat=True)) == AICKELIN_PAPERS
    with orcid_standin() as standin:
        use_standin(settings, standin)
        orcid_sign_in(client, standin)
    client.post(reverse("claims:claim", args=[aickelin.pk]))
    claim = aickelin.claims.get()
    page = client.get(reverse("claims:papers", args=[claim.pk])).text
    assert page.count(">Not mine</button>") == 6
    link = _authorship(aickelin, "0801.4119")
    done = client.post(reverse("claims:decide", args=[claim.pk, link.pk, "mine"]))
    assert done["Location"] == reverse("claims:papers", args=[claim.pk])
    link.refresh_from_db()
    record = CurationRecord.objects.get(kind="mine")
    assert (link.confidence, link.unconfirmed) == (0.98, False)
    assert link.evidence[-1] == {
        "kind": "owner",
        "action": "confirmed",
        "user": claim.user.get_username(),
        "curation_id": record.pk,
        "strong": True,
    }
    # Must-linked to the record's anchor in the slot's name block (its lowest other slot).
    others = sorted(
        Authorship.objects.filter(researcher=aickelin, block=link.block)
        .exclude(pk=link.pk)
        .values_list("slot_id", flat=True)
    )
    pair = tuple(sorted((link.slot_id, others[0])))
    assert MatchConstraint.objects.get(slot_a_id=pair[0], slot_b_id=pair[1]).kind == "must"
    paper_page = Client().get(link.paper.get_absolute_url()).text
    assert "confirmed by the researcher</span>" in paper_page
    assert "confirmed by the researcher (signed in with ORCID)" in paper_page
    assert "confirmed by you" in client.get(reverse("claims:papers", args=[claim.pk])).text
    assert (
        "Authorship of 0801.4119 confirmed by the researcher"
        in Client().get(aickelin.get_absolute_url()).text
    )


def test_not_mine_survives_match_authors_re_runs(archive):
    aickelin, user = aickelin_claimed(archive)
    link = _authorship(aickelin, "0801.4307")
    record = authorship_not_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    assert record.kind == "not_mine"
    link.refresh_from_db()
    newcomer = link.researcher
    assert newcomer.pk != aickelin.pk
    assert newcomer.display_name == "Uwe Aickelin"
    assert link.evidence[0]["kind"] == "owner"
    assert link.evidence[0]["action"] == "rejected"
    assert link.evidence[0]["from_researcher"] == aickelin.pk
    for _run in range(2):
        researchers_match_authors(sources=[])
        link.refresh_from_db()
        aickelin.refresh_from_db()
        assert link.researcher_id != aickelin.pk
        assert aickelin.paper_count == 5
    assert "0801.4307" not in set(aickelin.authorships.values_list("paper__arxiv_id", flat=True))


def test_an_editor_undoes_not_mine_and_mine(archive):
    aickelin, user = aickelin_claimed(archive)
    editor = make_reader("editor@example.org")
    before = set(MatchConstraint.objects.values_list("slot_a_id", "slot_b_id", "kind"))
    link = _authorship(aickelin, "0801.4307")
    rejected = authorship_not_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    created = rejected.changes["created_researcher"]
    curation_undo(record_id=rejected.pk, editor=editor, reason="The researcher asked: it is theirs")
    link.refresh_from_db()
    aickelin.refresh_from_db()
    assert link.researcher_id == aickelin.pk
    assert aickelin.paper_count == 6
    assert not Researcher.objects.filter(pk=created).exists()
    assert set(MatchConstraint.objects.values_list("slot_a_id", "slot_b_id", "kind")) == before
    marked = authorship_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    curation_undo(record_id=marked.pk, editor=editor, reason="Marked by mistake")
    link.refresh_from_db()
    assert not any(signal["kind"] == "owner" for signal in link.evidence)
    assert set(MatchConstraint.objects.values_list("slot_a_id", "slot_b_id", "kind")) == before


def test_only_the_owner_marks_papers(client, archive):
    aickelin, _user = aickelin_claimed(archive)
    stranger = make_reader("stranger@example.org")
    link = _authorship(aickelin, "0801.4307")
    with pytest.raises(CurationError, match="only the researcher who claimed"):
        authorship_not_mine(user=stranger, researcher_id=aickelin.pk, authorship_id=link.pk)
    client.force_login(stranger)
    claim = aickelin.claims.get()
    assert client.get(reverse("claims:papers", args=[claim.pk])).status_code == 404
    assert client.post(reverse("claims:decide", args=[claim.pk, link.pk, "not-mine"])).status_code == 404
    link.refresh_from_db()
    assert link.researcher_id == aickelin.pk


def test_a_merge_of_records_two_users_own_is_refused_and_one_users_two_records_merge(
    archive, django_user_model
):
    """One record holds one person's word: merging records two users claimed would make one
    user's "mine" and "not mine" bind the other's papers. Two records of one user merge."""
    from django.contrib.auth.models import Group

    from curation.claims import claim_decide, claim_owner
    from curation.errors import CurationConflict
    from curation.merge import researcher_merge

    aickelin, uwe = aickelin_claimed(archive)
    troccaz = archive["troccaz"]
    editor = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    jocelyne = make_reader("jocelyne@example.org")
    pending = researcher_claim(
        user=jocelyne, researcher_id=troccaz.pk, verified_orcid=None, evidence="My page"
    )
    claim_decide(claim_id=pending.pk, editor=editor, approve=True, reason="Her lab page lists the papers")
    with pytest.raises(CurationConflict, match="claimed by different users"):
        researcher_merge(
            survivor_id=aickelin.pk, merged_ids=[troccaz.pk], editor=editor, reason="Same person?"
        )
    assert Researcher.objects.get(pk=troccaz.pk).merged_into_id is None
    # The same user's two records: the merge goes through and the survivor stays theirs.
    undo = CurationRecord.objects.get(kind="claim_approve")
    curation_undo(record_id=undo.pk, editor=editor, reason="Approved by mistake")
    other = researcher_claim(user=uwe, researcher_id=troccaz.pk, verified_orcid=None, evidence="Also me")
    claim_decide(claim_id=other.pk, editor=editor, approve=True, reason="Checked")
    researcher_merge(survivor_id=aickelin.pk, merged_ids=[troccaz.pk], editor=editor, reason="One person")
    assert claim_owner(aickelin.pk).user_id == uwe.pk


def _editor(django_user_model):
    from django.contrib.auth.models import Group

    editor = django_user_model.objects.create_user("ed2", "ed2@example.org", "pw-ed-12345", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    return editor


def _approved(user, researcher_id: int, editor):
    from curation.claims import claim_decide

    claim = researcher_claim(user=user, researcher_id=researcher_id, verified_orcid=None, evidence="My page")
    return claim_decide(claim_id=claim.pk, editor=editor, approve=True, reason="Lab page checked")


def test_a_claim_waiting_on_a_record_merged_into_an_owned_one_is_not_approved(archive, django_user_model):
    """Jocelyne's claim on Troccaz's record waits while an editor merges that record into
    Aickelin's, which Uwe owns (a waiting claim does not stop a merge). Approving her claim
    then would give the survivor two owners; before, ``claim_decide`` asked only who owns
    the merged-away record and approved it."""
    from curation.claims import claim_decide, claim_owner
    from curation.errors import CurationConflict
    from curation.merge import researcher_merge

    aickelin, troccaz = archive["aickelin"], archive["troccaz"]
    editor = _editor(django_user_model)
    uwe, jocelyne = make_reader("uwe@example.org"), make_reader("jocelyne@example.org")
    _approved(uwe, aickelin.pk, editor)
    waiting = researcher_claim(user=jocelyne, researcher_id=troccaz.pk, verified_orcid=None, evidence="Mine")
    researcher_merge(survivor_id=aickelin.pk, merged_ids=[troccaz.pk], editor=editor, reason="One person")
    with pytest.raises(CurationConflict, match="claimed by someone else"):
        claim_decide(claim_id=waiting.pk, editor=editor, approve=True, reason="Her page")
    assert claim_owner(aickelin.pk).user_id == uwe.pk
    waiting.refresh_from_db()
    assert waiting.status == "pending"
