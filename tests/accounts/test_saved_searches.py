"""Saved searches (issue 31): saved, edited and deleted on the site and through the API; their
new matches reach the digest with the follows', each paper once, grouped by what matched it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts import services
from accounts.models import Digest, DigestPaper, SavedSearch
from accounts.saved_searches import saved_search_save
from papers.models import Paper
from tests.accounts.conftest import backdate_follows, make_reader

pytestmark = pytest.mark.django_db

# Hand-checked in tests/fixtures/arxiv/oai/edited_accounts_follows_arXivRaw.xml: "luminosity"
# is in the abstracts of the three Johns Hopkins papers only; "ultrasound" in three of Jocelyne
# Troccaz's: 0801.4483 (its abstract: "the impact of using 2D or 3D ultrasound"), 0801.3965
# ("Framework for 3D TransRectal Ultrasound") and 0801.3711 ("3D-Ultrasound probe
# calibration ..."), newest first.
JHU = ["0801.4386", "0801.4381", "0801.3849"]
ULTRASOUND = ["0801.4483", "0801.3965", "0801.3711"]


def listed_ids(message) -> list[str]:
    """arXiv ids in the digest's HTML part, in order."""
    return re.findall(r'data-arxiv-id="([^"]+)"', message.alternatives[0][0])


def save(user, name: str, *, days_ago: int = 1, **terms) -> SavedSearch:
    """A saved search of ``user`` made ``days_ago`` days back (before the archive's harvest)."""
    saved = saved_search_save(user_id=user.pk, data={"name": name, **terms})
    then = timezone.now() - timedelta(days=days_ago)
    SavedSearch.objects.filter(pk=saved.pk).update(created_at=then, matches_since=then)
    saved.refresh_from_db()
    return saved


def test_saved_searches_and_follows_hold_each_new_paper_once(archive, reader):
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    backdate_follows(reader)
    save(reader, "Luminous", q="luminosity")  # the same three papers as the JHU follow
    save(reader, "Ultrasound imaging", q="ultrasound")
    save(reader, "Saved today", q="immune", days_ago=0)  # after the harvest: nothing new to it

    assert services.digest_run(user_id=reader.pk) == 6
    message = mail.outbox[0]
    assert message.subject == "wovepaper: 6 new papers from what you follow"
    # Grouped by what matched: the follow first, then the saved search; each paper once.
    assert listed_ids(message) == JHU + ULTRASOUND
    assert "== From Johns Hopkins University: 3 new papers ==" in message.body
    assert "== Your search “Ultrasound imaging”: 3 new papers ==" in message.body
    assert message.body.count("also matches your search “Luminous”") == 3
    assert "Luminous”: " not in message.body  # no group of its own: its papers came by the follow
    assert sorted(
        DigestPaper.objects.filter(user=reader).values_list("paper__arxiv_id", flat=True)
    ) == sorted(JHU + ULTRASOUND)
    # Sent once: a week on, nothing new.
    assert services.digest_run(user_id=reader.pk, now=timezone.now() + timedelta(days=8)) == 0


def test_an_edit_changes_the_next_digest(archive, reader, follower):
    saved = save(reader, "Imaging", q="ultrasound")
    response = follower.get(f"/accounts/saved-searches/{saved.pk}")
    assert response.status_code == 200
    assert re.findall(r'data-preview-count="(\d+)"', response.content.decode()) == ["3"]

    response = follower.post(
        f"/accounts/saved-searches/{saved.pk}",
        {"name": "X-ray galaxies", "q": "luminosity", "category": "astro-ph"},
    )
    assert response.status_code == 303
    saved.refresh_from_db()
    assert (saved.name, saved.q, saved.category) == ("X-ray galaxies", "luminosity", "astro-ph")
    page = follower.get(f"/accounts/saved-searches/{saved.pk}").content.decode()
    assert re.findall(r'data-preview-count="(\d+)"', page) == ["3"]
    for arxiv_id in JHU:
        assert f"/papers/{arxiv_id}" in page

    assert services.digest_run(user_id=reader.pk) == 3
    assert listed_ids(mail.outbox[0]) == JHU
    assert "Your search “X-ray galaxies”" in mail.outbox[0].body


def test_an_edit_brings_the_current_period_not_the_archives_past(archive, reader, follower):
    """A search broadened after a digest brings the papers since that digest, not every older
    paper its new terms match (which had been listed in no digest of its own)."""
    saved = save(reader, "Imaging", q="ultrasound", days_ago=30)
    assert services.digest_run(user_id=reader.pk) == 3  # the three ultrasound papers
    digest = Digest.objects.get(user=reader)
    # Renamed only: nothing moves.
    follower.post(f"/accounts/saved-searches/{saved.pk}", {"name": "Ultrasound", "q": "ultrasound"})
    saved.refresh_from_db()
    assert saved.matches_since == saved.created_at
    # Broadened to the JHU papers (archived before the digest): from the digest on, none.
    follower.post(f"/accounts/saved-searches/{saved.pk}", {"name": "Luminous", "q": "luminosity"})
    saved.refresh_from_db()
    assert saved.matches_since == digest.created_at
    page = follower.get(f"/accounts/saved-searches/{saved.pk}").content.decode()
    assert re.findall(r'data-preview-count="(\d+)"', page) == ["0"]
    assert services.digest_run(user_id=reader.pk, now=timezone.now() + timedelta(days=8)) == 0


def test_the_search_page_saves_a_search_and_following_lists_it(archive, reader, follower):
    page = follower.get("/search?q=ultrasound&category=cs.OH").content.decode()
    assert 'action="/accounts/saved-searches"' in page
    assert 'name="name" value="“ultrasound” in cs.OH"' in page
    response = follower.post(
        "/accounts/saved-searches",
        {"name": "Ultrasound", "q": "ultrasound", "category": "cs.OH", "next": "/search?q=ultrasound"},
    )
    saved = SavedSearch.objects.get(user=reader)
    assert response.status_code == 303 and response["Location"] == f"/accounts/saved-searches/{saved.pk}"
    assert (saved.q, saved.category, saved.researcher_id) == ("ultrasound", "cs.OH", None)
    assert saved.get_absolute_url() == "/search?q=ultrasound&category=cs.OH&mode=keyword&sort=newest"

    following = follower.get("/accounts/following").content.decode()
    assert f'data-saved-search="{saved.pk}"' in following
    assert "“ultrasound” in cs.OH" in following

    # Signed out, the page offers to sign in instead of a form.
    follower.logout()
    page = follower.get("/search?q=ultrasound").content.decode()
    assert "Sign in to save this search" in page and 'action="/accounts/saved-searches"' not in page


def test_bad_terms_are_refused_with_the_reason(archive, reader, follower):
    follower.post("/accounts/saved-searches", {"name": "Nothing", "q": "  "})
    follower.post("/accounts/saved-searches", {"name": "Bad category", "category": "hep-xx"})
    follower.post("/accounts/saved-searches", {"name": "No one", "researcher": "999999"})
    assert SavedSearch.objects.count() == 0
    messages = [str(m) for m in follower.get("/accounts/following").context["messages"]]
    assert len(messages) == 3
    assert "a search of everything would bring every new paper" in messages[0]
    assert "No arXiv category “hep-xx”." in messages[1]
    assert "No researcher with that id or ORCID iD." in messages[2]


def test_only_the_owner_sees_edits_or_deletes_a_saved_search(archive, reader, client):
    saved = save(reader, "Mine", q="ultrasound")
    other = make_reader("grace@example.org")
    client.force_login(other)
    assert client.get(f"/accounts/saved-searches/{saved.pk}").status_code == 404
    assert client.post(f"/accounts/saved-searches/{saved.pk}", {"name": "Hers", "q": "x"}).status_code == 404
    assert client.post(f"/accounts/saved-searches/{saved.pk}/delete").status_code == 404
    assert SavedSearch.objects.get(pk=saved.pk).name == "Mine"
    client.force_login(reader)
    assert client.post(f"/accounts/saved-searches/{saved.pk}/delete").status_code == 303
    assert not SavedSearch.objects.filter(pk=saved.pk).exists()


def test_the_private_feed_includes_saved_searches(archive, reader, follower):
    save(reader, "Imaging", q="ultrasound")
    token = services.feed_token_regenerate(user_id=reader.pk)
    body = follower.get(f"/accounts/feed/{token}.xml").content.decode()
    items = re.findall(r"<link>http[^<]*/papers/([0-9.]+)[^<]*</link>", body)
    assert items == ULTRASOUND


def test_a_researcher_filter_follows_a_merge(archive, reader):
    """A saved search by a researcher an editor later merged away reads the survivor's papers."""
    from researchers.models import Researcher

    aickelin = archive["aickelin"]
    saved = save(reader, "Aickelin", researcher=str(aickelin.pk))
    twin = Researcher.objects.create(display_name="U. Aickelin")
    Researcher.objects.filter(pk=aickelin.pk).update(merged_into=twin)
    from accounts.selectors import saved_search_new

    # The survivor holds none of the authorships itself; the merged record's six count.
    assert [p.arxiv_id for p in saved_search_new(saved)] == [
        "0801.4119",
        "0801.4314",
        "0801.4312",
        "0801.4307",
        "0801.4287",
        "0801.3971",
    ]


def test_sixty_matches_give_fifty_in_the_mail_and_a_link(sample_papers, reader, client, settings):
    """The bundled sample's 60 newest hep-th papers (the others hidden) in one saved search:
    all 60 counted, the newest 50 in the e-mail, the other 10 on the digest page it links to."""
    hep_th = list(Paper.objects.public().in_category("hep-th").newest().values_list("arxiv_id", flat=True))
    Paper.objects.filter(arxiv_id__in=hep_th[60:]).update(hidden=True)
    hep_th = hep_th[:60]
    save(reader, "Strings", category="hep-th")
    assert services.digest_run(user_id=reader.pk) == 60
    message = mail.outbox[0]
    assert message.subject == "wovepaper: 60 new papers from what you follow"
    assert listed_ids(message) == hep_th[:50]
    digest_id = DigestPaper.objects.filter(user=reader).values_list("digest_id", flat=True).first()
    saved_id = SavedSearch.objects.get(user=reader).pk
    link = f"{settings.SITE_URL}/accounts/digests/{digest_id}#g-search-{saved_id}"
    assert f"…and 10 more: {link}" in message.body
    assert f'<a href="{link}">…and 10 more</a>' in message.alternatives[0][0]
    client.force_login(reader)
    page = client.get(f"/accounts/digests/{digest_id}").content.decode()
    assert f'id="g-search-{saved_id}"' in page
    for arxiv_id in hep_th:
        assert f"/papers/{arxiv_id}" in page
    # Another user's digest is not theirs to read.
    client.force_login(make_reader("grace@example.org"))
    assert client.get(f"/accounts/digests/{digest_id}").status_code == 404


def test_a_rejected_edit_previews_what_is_stored(archive, reader, follower):
    """The breaker's find: the page answering a refused edit showed the typed words' papers
    as the preview (validation had copied them onto the search), not what the digest holds."""
    saved = save(reader, "Imaging", q="ultrasound")
    response = follower.post(
        f"/accounts/saved-searches/{saved.pk}",
        {"name": "Galaxies", "q": "luminosity", "researcher": "999999"},
    )
    assert response.status_code == 422
    page = response.content.decode()
    assert "No researcher with that id or ORCID iD." in page
    assert re.findall(r'data-preview-count="(\d+)"', page) == ["3"]
    assert "<h1>Imaging</h1>" in page and 'value="luminosity"' in page  # the form keeps what was typed
    for arxiv_id in ULTRASOUND:
        assert f"/papers/{arxiv_id}" in page
    saved.refresh_from_db()
    assert (saved.name, saved.q) == ("Imaging", "ultrasound")


def test_odd_digits_are_a_form_error_not_a_crash(archive, reader, follower, client):
    response = follower.post(
        "/accounts/saved-searches", {"name": "Odd", "q": "ultrasound", "researcher": "²"}
    )
    assert response.status_code == 303
    assert not SavedSearch.objects.exists()
    for query in ("q=x&researcher=²", "q=x&institution=²", "q=x&collaboration=²", "q=x&from=²&page=²"):
        assert client.get(f"/search?{query}").status_code == 200, query
        assert client.get(f"/search/feed.xml?{query}").status_code == 200, query


def test_the_digest_leaves_out_papers_hidden_since_it_was_built(archive, reader, client):
    save(reader, "Imaging", q="ultrasound")
    digest = services.digest_prepare(user_id=reader.pk)
    Paper.objects.filter(arxiv_id="0801.4483").update(hidden=True)
    Paper.objects.filter(arxiv_id="0801.3965").update(deleted=True)
    services.digest_send(digest_id=digest.pk)
    assert listed_ids(mail.outbox[0]) == ["0801.3711"]
    client.force_login(reader)
    page = client.get(f"/accounts/digests/{digest.pk}").content.decode()
    assert "/papers/0801.3711" in page and "/papers/0801.4483" not in page and "/papers/0801.3965" not in page


def test_a_search_made_after_a_paper_arrived_does_not_claim_it_in_the_digest(archive, reader):
    """Two searches match the Troccaz papers; only the older one saw them arrive, so the
    digest files them under it, not under the newer (whose name sorts first)."""
    save(reader, "Zonal imaging", q="ultrasound", days_ago=1)
    save(reader, "An ultrasound search", q="ultrasound", days_ago=0)
    assert services.digest_run(user_id=reader.pk) == 3
    body = mail.outbox[0].body
    assert "== Your search “Zonal imaging”: 3 new papers ==" in body
    assert "An ultrasound search" not in body


def test_a_search_by_a_withdrawn_institution_follows_its_successor(archive, reader):
    """Links of a withdrawn or inactive record move to the active one it names as successor;
    a saved search by the old record follows them there, as a follow does."""
    from accounts.selectors import saved_search_new
    from institutions.models import Institution
    from institutions.services import affiliation_links_repoint

    jhu = archive["jhu"]
    saved = save(reader, "Hopkins", institution=str(jhu.pk))
    assert [p.arxiv_id for p in saved_search_new(saved)] == JHU
    successor = Institution.objects.exclude(pk=jhu.pk).order_by("pk").first()
    Institution.objects.filter(pk=jhu.pk).update(superseded_by=successor, status="withdrawn")
    affiliation_links_repoint()
    saved = SavedSearch.objects.get(pk=saved.pk)
    assert [p.arxiv_id for p in saved_search_new(saved)] == JHU
