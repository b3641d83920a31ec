"""The editor's desk in a real browser (issue 21): from the same-name queue to the comparison
in one click, Cancel and a merge both come back to the queue's page and row, the message
links the curation record, which reads as sentences."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from curation.queue import same_name_queue
from researchers.models import Authorship
from researchers.services import researchers_match_authors
from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def matched_sample(sample_papers, tmp_path, settings):
    """The real sample matched to researchers; curation signs with a throw-away key."""
    settings.PROVENANCE_SIGNING_KEY_FILE = str(tmp_path / "keys" / "provenance-ed25519.pem")
    settings.PROVENANCE_KEY_ID = ""
    researchers_match_authors(sources=[])


def sign_in_as_editor(page, live_server, django_user_model, settings) -> None:
    # The live server speaks plain http: cookies marked Secure would not come back.
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    user = django_user_model.objects.create_user("desk", "desk@example.org", "pw-desk-12345", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    page.goto(live_server.url + "/admin/login/")
    page.fill("input[name=username]", "desk")
    page.fill("input[name=password]", "pw-desk-12345")
    page.click("input[type=submit]")
    page.wait_for_load_state()


def test_queue_comparison_and_back(live_server, page, matched_sample, django_user_model, settings):
    sign_in_as_editor(page, live_server, django_user_model, settings)
    # Lucas A. Cieza (0801.4572) and Lucas Cieza (0801.4403, 0704.0253): a pair of the queue.
    a = Authorship.objects.get(slot__paper__arxiv_id="0801.4572", slot__position=1).researcher
    b = Authorship.objects.get(slot__paper__arxiv_id="0801.4403", slot__position=1).researcher
    position = [(c.a.pk, c.b.pk) for c in same_name_queue()].index(tuple(sorted((a.pk, b.pk))))
    back = f"/admin/curation/queue/?page={position // 50 + 1}#row-{position % 50 + 1}"
    page.goto(live_server.url + back)
    compare = page.locator(f"#row-{position % 50 + 1}")  # the row's Compare link

    # One click opens the comparison, with the papers of both records; Cancel comes back.
    compare.click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Merge researchers"
    assert page.locator("a", has_text="The Evolution of Primordial Circumstellar Disks").count() == 1
    screenshot(page, "desk-comparison")
    page.click("a.cancel-link")
    page.wait_for_load_state()
    assert page.url == live_server.url + back

    # Merge: back at the queue's page and row, the message linking the curation record.
    compare.click()
    page.wait_for_load_state()
    page.check(f"input[name=survivor][value='{b.pk}']")
    page.fill("textarea[name=reason]", "Same astronomer: Spitzer disks, both at Texas")
    page.click("input[type=submit][value='Merge into the chosen record']")
    page.wait_for_load_state()
    assert page.url == live_server.url + back
    message = page.locator(".messagelist .success")
    assert message.inner_text().startswith(f"Merged researcher {a.pk} into researcher {b.pk} (curation #")
    screenshot(page, "desk-queue-after-merge")

    # The record reads as sentences.
    message.locator("a").click()
    page.wait_for_load_state()
    story = page.locator(".field-story").inner_text()
    assert f"Merged researcher {a.pk} (Lucas A. Cieza, 1 paper) into researcher {b.pk}" in story
    assert "Stored record (for auditors)" in page.locator("details summary").inner_text()
    screenshot(page, "desk-curation-record")
