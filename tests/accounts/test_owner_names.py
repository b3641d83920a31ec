"""The owner of a claimed profile adds names and chooses the display name (issue 31).

The archive is the 13 real papers of ``tests/accounts/conftest.py``. Uwe Aickelin's record
(six papers) is given Josiah Carberry's iD (ORCID's fictitious test identity) so that his
claim is proved; he adds "U. Aickelin", the initial form author lists use. Franck Pelissier
is an author of 0801.4355 (arXiv spells the name without accents); his record is claimed
through an editor's approval and he adds the accented "Franck Pélissier" as his display name.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from curation.claims import claim_decide, researcher_claim
from curation.errors import CurationConflict, CurationError
from curation.merge import researcher_merge
from curation.models import CurationRecord
from curation.names import researcher_display_name_choose, researcher_name_add
from curation.owner import authorship_mine, authorship_not_mine
from curation.records import researcher_state
from curation.stories import record_story
from curation.undo import curation_undo
from provenance.bundles import bundle_build
from provenance.models import Event, Record
from provenance.verify import verify_bundle
from researchers.matching_common import researchers_refresh
from researchers.models import Authorship, Researcher
from researchers.services import researchers_match_authors
from tests.accounts.conftest import LATER_XML, aickelin_claimed, harvest, make_reader
from tests.curation.conftest import signing_key_file

CARBERRY = "0000-0002-1825-0097"

pytestmark = pytest.mark.django_db
__all__ = ["signing_key_file"]  # the autouse fixture: events signed with a key under tmp_path


def _pelissier_claimed():
    """Franck Pelissier's record, claimed by a new user and approved by an editor; returns
    the researcher, the user and the claim."""
    pelissier = Researcher.objects.get(display_name="Franck Pelissier")
    user = make_reader("franck@example.org")
    claim = researcher_claim(
        user=user, researcher_id=pelissier.pk, verified_orcid=None, evidence="My page at TIMC-IMAG"
    )
    claim = claim_decide(
        claim_id=claim.pk, editor=make_reader("ed@example.org"), approve=True, reason="Lab page checked"
    )
    return pelissier, user, claim


def _bundle(arxiv_id: str) -> dict:
    record = (
        Record.objects.filter(paper__arxiv_id=arxiv_id).order_by("-source_version", "-created_at").first()
    )
    return bundle_build(record=record)


def _attested(bundle: dict) -> list[tuple[str, str]]:
    """The attestations in force of a bundle, as ``(attestation, name)``, sorted."""
    return sorted(
        (e["payload"]["attestation"], e["payload"].get("name", ""))
        for e in bundle["state"]["current"]["author_attestations"]
    )


def test_a_name_added_survives_match_authors_re_runs_and_name_search_finds_it(archive):
    aickelin, user = aickelin_claimed(archive)
    assert aickelin.name_variants == ["Uwe Aickelin"]
    record = researcher_name_add(user=user, researcher_id=aickelin.pk, name="  U.   Aickelin ")
    assert (record.kind, record.reason, record.editor_id) == (
        "name_variant",
        "Name added by the researcher",
        user.pk,
    )
    assert record.changes["name"] == "U. Aickelin"
    aickelin.refresh_from_db()
    assert aickelin.declared_names == ["U. Aickelin"]
    assert aickelin.name_variants == ["U. Aickelin", "Uwe Aickelin"]
    assert aickelin.display_name == "Uwe Aickelin"
    # Re-runs: matching again, a later harvest matched, the variants recomputed, a paper
    # moved off the record (which refreshes it): the name stays every time.
    researchers_match_authors(sources=[])
    harvest(LATER_XML)
    researchers_refresh(researcher_ids=[aickelin.pk])
    link = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4307")
    authorship_not_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    researchers_match_authors(sources=[])
    aickelin.refresh_from_db()
    assert aickelin.paper_count == 5
    assert aickelin.declared_names == ["U. Aickelin"]
    assert aickelin.name_variants == ["U. Aickelin", "Uwe Aickelin"]
    # Name search reads the stored folded names (the site's list, the API's), which hold it;
    # the record "not mine" made holds only the paper's spelling.
    assert aickelin.names_folded == "uwe aickelin | u. aickelin | uwe aickelin"
    assert list(Researcher.objects.filter(name_variants__contains=["U. Aickelin"])) == [aickelin]
    assert aickelin.pk in set(Researcher.objects.search("U. Aickelin").values_list("pk", flat=True))
    listing = Client().get("/researchers?q=U.+Aickelin").text
    assert aickelin.get_absolute_url() in listing


def test_display_name_through_the_pages_shows_on_the_researcher_page_and_survives_a_re_run(client, archive):
    pelissier, user, claim = _pelissier_claimed()
    assert (pelissier.paper_count, pelissier.slug) == (1, "franck-pelissier")
    client.force_login(user)
    page = client.get(reverse("claims:names", args=[claim.pk]))
    assert page.status_code == 200
    assert ">Use as display name</button>" not in page.text  # his one name is the display name
    done = client.post(
        reverse("claims:names", args=[claim.pk]), {"name": "Franck Pélissier", "action": "display"}
    )
    assert (done.status_code, done["Location"]) == (302, reverse("claims:names", args=[claim.pk]))
    pelissier.refresh_from_db()
    assert pelissier.display_name == "Franck Pélissier"
    assert pelissier.declared_names == ["Franck Pélissier"]  # typed, so declared too
    assert pelissier.name_variants == ["Franck Pelissier", "Franck Pélissier"]
    assert pelissier.slug == "franck-pelissier"
    record = CurationRecord.objects.get(kind="display_name")
    assert record.changes["display_name"] == {"from": "Franck Pelissier", "to": "Franck Pélissier"}
    names_page = client.get(reverse("claims:names", args=[claim.pk])).text
    assert "“Franck Pélissier” is now the name your profile shows." in names_page
    assert names_page.count(">Use as display name</button>") == 1  # for "Franck Pelissier"

    public = Client().get(pelissier.get_absolute_url()).text
    assert '<h1 class="researcher-name">Franck Pélissier</h1>' in public
    assert "Display name chosen by the researcher." in public
    assert 'Names given by the researcher: <span class="declared-name">Franck Pélissier</span>' in public
    assert "Display name “Franck Pélissier” chosen by the researcher" in public  # the history
    # The history's times are valid HTML datetimes (whole seconds: HTML allows at most three
    # digits of a fraction, and Python's isoformat writes six).
    stamps = re.findall(r'<span class="fine"><time datetime="([^"]+)">', public)
    assert len(stamps) == 3  # claim, approval, display name
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000", stamp) for stamp in stamps), stamps

    researchers_match_authors(sources=[])
    harvest(LATER_XML)
    researchers_refresh(researcher_ids=[pelissier.pk])
    pelissier.refresh_from_db()
    assert pelissier.display_name == "Franck Pélissier"
    assert pelissier.name_variants == ["Franck Pelissier", "Franck Pélissier"]
    # Either spelling finds him; the accent is folded away.
    for query in ("Pelissier", "Pélissier", "franck pélissier"):
        assert list(Researcher.objects.search(query).values_list("pk", flat=True)) == [pelissier.pk]
    assert "Display name chosen by the researcher." in Client().get(pelissier.get_absolute_url()).text


def test_a_new_display_name_moves_the_slug_and_the_old_link_redirects(client, archive):
    aickelin, user = aickelin_claimed(archive)
    old_url = aickelin.get_absolute_url()
    assert old_url == f"/researchers/{aickelin.pk}-uwe-aickelin"
    researcher_name_add(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    record = researcher_display_name_choose(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    assert record.changes["declared"] is False  # one of his names already
    aickelin.refresh_from_db()
    assert (aickelin.display_name, aickelin.slug) == ("U. Aickelin", "u-aickelin")
    assert aickelin.declared_names == ["U. Aickelin"]
    moved = Client().get(old_url + "?sort=oldest")
    assert (moved.status_code, moved["Location"]) == (
        301,
        f"/researchers/{aickelin.pk}-u-aickelin?sort=oldest",
    )
    assert Client().get(f"/researchers/{aickelin.pk}")["Location"] == f"/researchers/{aickelin.pk}-u-aickelin"
    assert Client().get(f"/researchers/{aickelin.pk}-u-aickelin").status_code == 200
    # Undoing the name he then chose as display name would leave the choice without its name.
    first = CurationRecord.objects.get(kind="name_variant")
    with pytest.raises(
        CurationConflict, match=f"“U. Aickelin” is researcher {aickelin.pk}'s display name since"
    ):
        curation_undo(record_id=first.pk, editor=make_reader("ed@example.org"), reason="Wrong order")


def test_names_are_escaped_and_bad_input_is_refused_with_what_was_typed_kept(client, archive):
    pelissier, user, claim = _pelissier_claimed()
    client.force_login(user)
    url = reverse("claims:names", args=[claim.pk])
    for typed, error in [
        ("   ", "type a name"),
        ("Franck\x07Pelissier", "a name cannot hold the character U+0007"),
        ("Franck\x1bPelissier", "a name cannot hold the character U+001B"),
        # A bidi override would reverse the page's line after it (and spoof another name).
        ("\u202eFranck Pelissier", "a name cannot hold the character U+202E"),
        ("Franck \u2067Pelissier\u2069", "a name cannot hold the character U+2067"),
        ("F" * 301, "a name has at most 300 characters (this one has 301)"),
        ("1960-", "a name needs at least one letter"),
        ("Franck Pelissier", "“Franck Pelissier” is one of this profile&#x27;s names already"),
    ]:
        answer = client.post(url, {"name": typed, "action": "add"})
        assert answer.status_code == 400, typed
        assert f'<p class="error" role="alert">{error}</p>' in answer.text
    # Without the form's CSRF token, even the owner's post is refused.
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(user)
    assert guarded.post(url, {"name": "F. Pelissier", "action": "add"}).status_code == 403
    kept = client.post(url, {"name": "Franck Pelissier", "action": "add"}).text
    assert 'value="Franck Pelissier"' in kept  # the typed name is still in the field
    assert not CurationRecord.objects.filter(kind__in=["name_variant", "display_name"]).exists()

    # TeX and markup are names too, as typed, and never markup on a page.
    client.post(url, {"name": "Franck P{\\'e}lissier", "action": "add"})
    client.post(url, {"name": "<b>Franck</b>", "action": "add"})
    pelissier.refresh_from_db()
    assert pelissier.declared_names == ["<b>Franck</b>", "Franck P{\\'e}lissier"]
    public = Client().get(pelissier.get_absolute_url()).text
    assert "<b>Franck</b>" not in public
    assert '<span class="declared-name">&lt;b&gt;Franck&lt;/b&gt;</span>' in public
    assert '<span class="declared-name">Franck P{\\&#x27;e}lissier</span>' in public
    assert "<b>Franck</b>" not in client.get(url).text


def test_an_editor_undo_restores_names_exactly_and_in_order(archive, editor):
    aickelin, user = aickelin_claimed(archive)
    editor_client, editor = editor, make_reader("undoer@example.org")
    start = researcher_state(Researcher.objects.get(pk=aickelin.pk))
    assert start == {
        "display_name": "Uwe Aickelin",
        "slug": "uwe-aickelin",
        "name_variants": ["Uwe Aickelin"],
        "declared_names": [],
        "orcid": CARBERRY,
        "merged_into_id": None,
        "paper_count": 6,
    }
    added = researcher_name_add(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    chosen = researcher_display_name_choose(user=user, researcher_id=aickelin.pk, name="Aickelin, Uwe")
    aickelin.refresh_from_db()
    assert aickelin.declared_names == ["Aickelin, Uwe", "U. Aickelin"]
    # The name record first would take away the names the later choice relies on: refused.
    with pytest.raises(
        CurationConflict, match=rf"own names changed since; undo later record\(s\) #{chosen.pk}"
    ):
        curation_undo(record_id=added.pk, editor=editor, reason="Wrong order")
    # The editors' undo page tells the record and what undoing it restores, then undoes it.
    page = editor_client.get(reverse("curation:undo", args=[chosen.pk])).text
    assert "chose “Aickelin, Uwe” as its display name, in place of “Uwe Aickelin”" in page
    assert "The record is named “Uwe Aickelin” again" in page
    done = editor_client.post(reverse("curation:undo", args=[chosen.pk]), {"reason": "Not the name he uses"})
    assert done.status_code == 302
    assert CurationRecord.objects.get(undoes=chosen).reason == "Not the name he uses"
    aickelin.refresh_from_db()
    assert researcher_state(aickelin) == {
        **start,
        "name_variants": ["U. Aickelin", "Uwe Aickelin"],
        "declared_names": ["U. Aickelin"],
    }
    curation_undo(record_id=added.pk, editor=editor, reason="Asked by the researcher")
    aickelin.refresh_from_db()
    assert researcher_state(aickelin) == start
    # And a re-run does not bring anything back.
    researchers_refresh(researcher_ids=[aickelin.pk])
    aickelin.refresh_from_db()
    assert researcher_state(aickelin) == start
    assert "Display name chosen by the researcher." not in Client().get(aickelin.get_absolute_url()).text


def test_undoing_an_older_record_keeps_the_names_given_since(archive):
    aickelin, user = aickelin_claimed(archive)
    editor = make_reader("ed@example.org")
    link = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4119")
    marked = authorship_mine(user=user, researcher_id=aickelin.pk, authorship_id=link.pk)
    gone = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4307")
    rejected = authorship_not_mine(user=user, researcher_id=aickelin.pk, authorship_id=gone.pk)
    researcher_name_add(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    researcher_display_name_choose(user=user, researcher_id=aickelin.pk, name="Aickelin, Uwe")
    # The two paper decisions changed no name: their undo leaves the names given since.
    curation_undo(record_id=rejected.pk, editor=editor, reason="It is his after all")
    curation_undo(record_id=marked.pk, editor=editor, reason="Marked by mistake")
    aickelin.refresh_from_db()
    link.refresh_from_db()
    assert (aickelin.paper_count, aickelin.display_name, aickelin.slug) == (
        6,
        "Aickelin, Uwe",
        "aickelin-uwe",
    )
    assert aickelin.declared_names == ["Aickelin, Uwe", "U. Aickelin"]
    assert aickelin.name_variants == ["Aickelin, Uwe", "U. Aickelin", "Uwe Aickelin"]
    assert not any(signal["kind"] == "owner" for signal in link.evidence)
    assert Authorship.objects.get(slot_id=gone.slot_id).researcher_id == aickelin.pk


def test_a_merge_keeps_the_names_both_researchers_gave(archive):
    aickelin, user = aickelin_claimed(archive)
    editor = make_reader("editor@example.org")
    researcher_name_add(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    # Troccaz's record stands in for a second record of the same person, claimed by the same
    # user (records two users own do not merge: tests/accounts/test_owner.py).
    troccaz = archive["troccaz"]
    claim = researcher_claim(user=user, researcher_id=troccaz.pk, verified_orcid=None, evidence="Mine too")
    claim_decide(claim_id=claim.pk, editor=editor, approve=True, reason="Checked")
    researcher_name_add(user=user, researcher_id=troccaz.pk, name="Aickelin, U.")
    merge = researcher_merge(
        survivor_id=aickelin.pk, merged_ids=[troccaz.pk], editor=editor, reason="Same person"
    )
    assert merge.changes["declared_added"] == ["Aickelin, U."]
    story = " ".join(record_story(merge))
    assert (
        f"Researcher {aickelin.pk} kept the name the merged records' researchers gave: “Aickelin, U.”."
        in story
    )
    aickelin.refresh_from_db()
    assert aickelin.declared_names == ["Aickelin, U.", "U. Aickelin"]
    researchers_match_authors(sources=[])
    researchers_refresh(researcher_ids=[aickelin.pk])
    aickelin.refresh_from_db()
    assert aickelin.name_variants == ["Aickelin, U.", "Jocelyne Troccaz", "U. Aickelin", "Uwe Aickelin"]
    curation_undo(record_id=merge.pk, editor=editor, reason="Not the same person after all")
    aickelin.refresh_from_db()
    assert aickelin.declared_names == ["U. Aickelin"]
    assert aickelin.name_variants == ["U. Aickelin", "Uwe Aickelin"]


def test_only_the_owner_changes_names(client, archive):
    aickelin, _user = aickelin_claimed(archive)
    claim = aickelin.claims.get()
    stranger = make_reader("stranger@example.org")
    with pytest.raises(CurationError, match=f"only the researcher who claimed record {aickelin.pk}"):
        researcher_name_add(user=stranger, researcher_id=aickelin.pk, name="U. Aickelin")
    with pytest.raises(CurationError, match="only the researcher who claimed"):
        researcher_display_name_choose(user=stranger, researcher_id=aickelin.pk, name="U. Aickelin")
    url = reverse("claims:names", args=[claim.pk])
    assert Client().get(url)["Location"].startswith("/accounts/login/")
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    assert client.post(url, {"name": "U. Aickelin", "action": "add"}).status_code == 404
    # A claim waiting for an editor is no ownership either.
    troccaz = archive["troccaz"]
    waiting = researcher_claim(user=stranger, researcher_id=troccaz.pk, verified_orcid=None, evidence="Me")
    assert client.get(reverse("claims:names", args=[waiting.pk])).status_code == 404
    with pytest.raises(CurationError, match="only the researcher who claimed"):
        researcher_name_add(user=stranger, researcher_id=troccaz.pk, name="J. Troccaz")
    aickelin.refresh_from_db()
    assert (aickelin.display_name, aickelin.declared_names) == ("Uwe Aickelin", [])
    assert not CurationRecord.objects.filter(kind__in=["name_variant", "display_name"]).exists()


def test_names_are_signed_into_every_paper_and_the_bundles_verify(archive):
    aickelin, user = aickelin_claimed(archive)
    added = researcher_name_add(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    chosen = researcher_display_name_choose(user=user, researcher_id=aickelin.pk, name="U. Aickelin")
    events = Event.objects.filter(event_type="author_attestation", content__payload__curation_id=added.pk)
    assert sorted(events.values_list("record__paper__arxiv_id", flat=True)) == [
        "0801.3971",
        "0801.4119",
        "0801.4287",
        "0801.4307",
        "0801.4312",
        "0801.4314",
    ]
    assert (added.changes["attestations"], chosen.changes["attestations"]) == (6, 6)
    assert added.provenance_event.startswith("sha256:")
    bundle = _bundle("0801.4119")
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
    position = Authorship.objects.get(researcher=aickelin, paper__arxiv_id="0801.4119").slot.position
    entries = {
        e["payload"]["attestation"]: e["payload"] for e in bundle["state"]["current"]["author_attestations"]
    }
    assert entries["name_variant"] == {
        "attestation": "name_variant",
        "curation_id": added.pk,
        "researcher_id": aickelin.pk,
        "arxiv_id": "0801.4119",
        "positions": [position],
        "strong": True,
        "orcid": CARBERRY,
        "name": "U. Aickelin",
    }
    assert entries["display_name"]["name"] == "U. Aickelin"
    assert _attested(bundle) == [
        ("claim", ""),
        ("display_name", "U. Aickelin"),
        ("name_variant", "U. Aickelin"),
    ]
    latest = bundle["state"]["current"]["graph_snapshots"][-1]["payload"]["graph_snapshot"]
    assert latest["author_claims"] == {"count": 3, "strong_count": 3}

    # An editor's undo withdraws the attestation it made, on every paper.
    curation_undo(record_id=chosen.pk, editor=make_reader("ed@example.org"), reason="Asked by the researcher")
    for arxiv_id in ("0801.4119", "0801.4314"):
        bundle = _bundle(arxiv_id)
        assert verify_bundle(bundle).ok, verify_bundle(bundle).failed
        assert _attested(bundle) == [("claim", ""), ("name_variant", "U. Aickelin")]
