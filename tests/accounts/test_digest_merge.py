"""An editor's merge reaches the merged record's followers in their next digest, once."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts import services
from accounts.models import DigestNote, Follow
from curation.merge import researcher_merge
from curation.undo import curation_undo
from papers.models import Category
from researchers.models import Researcher
from tests.accounts.conftest import LATER_XML, backdate_follows, harvest, make_reader

pytestmark = pytest.mark.django_db

MERGED = "An editor merged U. Aickelin into Uwe Aickelin: one person, one record."


@pytest.fixture
def editor_user(db, django_user_model):
    """A staff member of the Editors group (the group comes from the curation migration)."""
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def html_of(message) -> str:
    return message.alternatives[0][0]


def merge(*, survivor, duplicate, editor):
    return researcher_merge(
        survivor_id=survivor.pk, merged_ids=[duplicate.pk], editor=editor, reason="Same person"
    )


def test_merge_note_reaches_the_next_digest_once(archive, reader, editor_user, settings):
    survivor = archive["aickelin"]
    duplicate = Researcher.objects.create(display_name="U. Aickelin")
    grace = make_reader("grace@example.org")
    alan = make_reader("alan@example.org")
    services.follow_create(user_id=reader.pk, target=duplicate)  # the follow moves
    services.follow_create(user_id=grace.pk, target=duplicate)  # also follows the survivor
    services.follow_create(user_id=grace.pk, target=survivor)
    services.follow_create(user_id=alan.pk, target=survivor)  # never followed the duplicate
    backdate_follows(reader)

    merge(survivor=survivor, duplicate=duplicate, editor=editor_user)

    url = f"{settings.SITE_URL}/researchers/{survivor.pk}-uwe-aickelin"
    text = f"{MERGED} You now follow Uwe Aickelin ({url})."
    notes = DigestNote.objects.order_by("user_id")
    assert [(n.user_id, n.researcher_id, n.text) for n in notes] == sorted(
        [(reader.pk, survivor.pk, text), (grace.pk, survivor.pk, text)]
    )
    # A retried move for the same merge writes no second note (here the reader followed the
    # merged record again behind the service's back, so the retry has a follow to drop).
    Follow.objects.create(user=reader, researcher=duplicate)
    services.follows_move(from_researcher_id=duplicate.pk, to_researcher_id=survivor.pk)
    assert DigestNote.objects.filter(user=reader).count() == 1

    # The digest: Aickelin's six papers and the note, once in each part.
    assert services.digest_run(user_id=reader.pk) == 6
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.body.count(MERGED) == 1
    assert f"You now follow Uwe Aickelin ({url})." in message.body
    assert html_of(message).count(MERGED) == 1
    assert DigestNote.objects.get(user=reader).digest.sent_at is not None

    # The next digest (cs.DC followed, then a harvest brings three cs.DC papers) has the new
    # papers and not the note again.
    services.follow_create(user_id=reader.pk, target=Category.objects.get(code="cs.DC"))
    harvest(LATER_XML)
    assert services.digest_run(user_id=reader.pk, now=timezone.now() + timedelta(days=7)) == 3
    assert len(mail.outbox) == 2
    assert "An editor merged" not in mail.outbox[1].body
    assert "An editor merged" not in html_of(mail.outbox[1])

    # Alan never followed the merged record: no note.
    assert not DigestNote.objects.filter(user=alan).exists()


def test_merge_then_undo_before_the_digest_leaves_no_note(archive, reader, editor_user):
    survivor = archive["aickelin"]
    duplicate = Researcher.objects.create(display_name="U. Aickelin")
    services.follow_create(user_id=reader.pk, target=duplicate)
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    backdate_follows(reader)

    record = merge(survivor=survivor, duplicate=duplicate, editor=editor_user)
    assert DigestNote.objects.filter(user=reader).count() == 1
    curation_undo(record_id=record.pk, editor=editor_user, reason="Not the same person")
    assert not DigestNote.objects.exists()
    assert Follow.objects.filter(user=reader, researcher=duplicate).exists()

    # The digest goes out for the three JHU papers, with no word of the undone merge.
    assert services.digest_run(user_id=reader.pk) == 3
    assert len(mail.outbox) == 1
    assert "An editor merged" not in mail.outbox[0].body
    assert "An editor merged" not in html_of(mail.outbox[0])


def test_merge_again_after_a_sent_note_and_an_undo_tells_again(archive, reader, editor_user):
    survivor = archive["aickelin"]
    duplicate = Researcher.objects.create(display_name="U. Aickelin")
    services.follow_create(user_id=reader.pk, target=duplicate)

    record = merge(survivor=survivor, duplicate=duplicate, editor=editor_user)
    assert services.digest_run(user_id=reader.pk) == 0  # no new papers: the note alone
    assert mail.outbox[0].body.count(MERGED) == 1
    curation_undo(record_id=record.pk, editor=editor_user, reason="Not the same person")
    # The sent note stays with its digest (the reader's export lists it).
    sent = DigestNote.objects.get(user=reader)
    assert sent.digest_id is not None

    merge(survivor=survivor, duplicate=duplicate, editor=editor_user)
    assert DigestNote.objects.filter(user=reader, digest__isnull=True).count() == 1
    week = timezone.now() + timedelta(days=7)
    assert services.digest_run(user_id=reader.pk, now=week) == 0
    assert len(mail.outbox) == 2
    assert mail.outbox[1].body.count(MERGED) == 1


def test_merge_note_names_are_escaped_in_the_html_digest(archive, reader, editor_user):
    survivor = archive["aickelin"]
    duplicate = Researcher.objects.create(display_name="Aickelin & <b>Uwe</b>")
    services.follow_create(user_id=reader.pk, target=duplicate)

    merge(survivor=survivor, duplicate=duplicate, editor=editor_user)
    services.digest_run(user_id=reader.pk)
    (message,) = mail.outbox
    # The text part is plain text: the name as it is. The HTML part escapes it.
    assert "An editor merged Aickelin & <b>Uwe</b> into Uwe Aickelin" in message.body
    html = html_of(message)
    assert "An editor merged Aickelin &amp; &lt;b&gt;Uwe&lt;/b&gt; into Uwe Aickelin" in html
    assert not re.search(r"<b>Uwe</b>", html)
