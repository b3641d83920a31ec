"""Digest e-mails: exactly the new papers of a reader's follows, each paper sent once ever."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts import services, tasks
from accounts.models import AccountSettings, Digest, DigestNote, DigestPaper
from papers.models import Category, Paper
from tests.accounts.conftest import LATER_XML, backdate_follows, harvest, make_reader

pytestmark = pytest.mark.django_db

AICKELIN = ["0801.3971", "0801.4119", "0801.4287", "0801.4307", "0801.4312", "0801.4314"]
JHU = ["0801.3849", "0801.4381", "0801.4386"]
CS_DC = ["0801.3710", "0801.4082", "0801.4150"]


def listed_ids(message) -> list[str]:
    """arXiv ids in the digest's HTML part, in order."""
    html = message.alternatives[0][0]
    return re.findall(r'data-arxiv-id="([^"]+)"', html)


def test_digest_holds_exactly_the_new_papers_of_several_follows(archive, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    services.follow_create(user_id=reader.pk, target=archive["jhu"])
    backdate_follows(reader)  # they followed yesterday; today's harvest brought the papers
    # cs.DC is followed now, after the harvest: none of the archive's papers are new to it.
    services.follow_create(user_id=reader.pk, target=Category.objects.get(code="cs.DC"))
    # Someone else follows Troccaz: her four papers are not this reader's.
    other = make_reader("grace@example.org")
    services.follow_create(user_id=other.pk, target=archive["troccaz"])

    assert services.digest_run(user_id=reader.pk) == 9
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.org"]
    assert message.subject == "wovepaper: 9 new papers from what you follow"
    # Grouped by what brought them, researchers before institutions (issue 31); in each group
    # newest v1 submission first, hand-checked against the records' <version version='v1'> dates.
    assert listed_ids(message) == [
        "0801.4119",  # Mon, 28 Jan 2008 15:36:56 GMT (Aickelin)
        "0801.4314",  # 15:32:05
        "0801.4312",  # 15:26:59
        "0801.4307",  # 15:14:45
        "0801.4287",  # 14:19:12
        "0801.3971",  # Fri, 25 Jan 2008 16:07:25 GMT (Aickelin)
        "0801.4386",  # Mon, 28 Jan 2008 21:29:19 GMT (JHU)
        "0801.4381",  # Mon, 28 Jan 2008 21:26:35 GMT (JHU)
        "0801.3849",  # Thu, 24 Jan 2008 21:03:11 GMT (JHU)
    ]
    assert "== By Uwe Aickelin: 6 new papers ==" in message.body
    assert "== From Johns Hopkins University: 3 new papers ==" in message.body
    assert sorted(listed_ids(message)) == sorted(AICKELIN + JHU)
    assert "0801.3711" not in message.body  # Troccaz
    stored = DigestPaper.objects.filter(user=reader).values_list("paper__arxiv_id", flat=True)
    assert sorted(stored) == sorted(AICKELIN + JHU)

    # Later harvest: the three cs.DC papers are new to the cs.DC follow; 0801.4549 (quant-ph,
    # MIT) matches nothing the reader follows. A week on, the next digest has exactly those.
    harvest(LATER_XML)
    week = timezone.now() + timedelta(days=7)
    assert services.digest_run(user_id=reader.pk, now=week) == 3
    assert len(mail.outbox) == 2
    assert sorted(listed_ids(mail.outbox[1])) == CS_DC
    assert "== In cs.DC: 3 new papers ==" in mail.outbox[1].body

    # The other reader's digest: Troccaz's four papers only.
    backdate_follows(other, days=2)
    assert services.digest_run(user_id=other.pk, now=week) == 4
    assert sorted(listed_ids(mail.outbox[2])) == ["0801.3711", "0801.3965", "0801.4355", "0801.4483"]


def test_a_retried_digest_task_sends_nothing_twice(archive, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    assert tasks.send_digest.run(user_id=reader.pk) == 6
    # The task delivered but its ack was lost: the broker redelivers it, twice.
    assert tasks.send_digest.run(user_id=reader.pk) == 0
    assert tasks.send_digest.run(user_id=reader.pk) == 0
    # Even once the interval has passed, nothing already sent comes again.
    later = timezone.now() + timedelta(days=8)
    assert services.digest_run(user_id=reader.pk, now=later) == 0
    assert len(mail.outbox) == 1
    assert DigestPaper.objects.filter(user=reader).count() == 6
    assert Digest.objects.get(user=reader).sent_at is not None


class FlakyBackend:
    """A mail backend that refuses the first message, like an SMTP server timing out."""

    failures = 1

    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        if FlakyBackend.failures:
            FlakyBackend.failures -= 1
            raise TimeoutError("smtp timed out")
        mail.outbox.extend(messages)
        return len(messages)


def test_a_failed_send_is_retried_with_the_same_digest(archive, reader, settings):
    settings.EMAIL_BACKEND = "tests.accounts.test_digest.FlakyBackend"
    FlakyBackend.failures = 1
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    with pytest.raises(TimeoutError):  # OSError: the task's autoretry catches it
        tasks.send_digest.run(user_id=reader.pk)
    digest = Digest.objects.get(user=reader)
    assert digest.sent_at is None and digest.claimed_at is None
    assert digest.last_error == "TimeoutError: smtp timed out"
    # The retry sends the digest that was built, once.
    assert tasks.send_digest.run(user_id=reader.pk) == 6
    assert tasks.send_digest.run(user_id=reader.pk) == 0
    assert len(mail.outbox) == 1
    assert sorted(listed_ids(mail.outbox[0])) == AICKELIN
    assert Digest.objects.filter(user=reader).count() == 1
    assert Digest.objects.get(user=reader).attempts == 2


def test_a_claimed_digest_is_not_sent_by_a_second_worker(archive, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    digest = services.digest_prepare(user_id=reader.pk)
    now = timezone.now()
    Digest.objects.filter(pk=digest.pk).update(claimed_at=now)  # another worker is sending it
    assert services.digest_send(digest_id=digest.pk, now=now + timedelta(seconds=5)) is False
    assert mail.outbox == []
    # That worker died: after the lease, the digest goes out once.
    lease = timedelta(seconds=services.DIGEST_CLAIM_SECONDS + 1)
    assert services.digest_send(digest_id=digest.pk, now=now + lease) is True
    assert services.digest_send(digest_id=digest.pk, now=now + 2 * lease) is False
    assert len(mail.outbox) == 1


def test_digest_respects_frequency_off_and_unverified_addresses(archive, reader):
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    services.account_settings_update(user_id=reader.pk, digest_frequency="off")
    assert services.digest_due_user_ids() == []
    assert services.digest_run(user_id=reader.pk) == 0

    services.account_settings_update(user_id=reader.pk, digest_frequency="daily")
    unverified = make_reader("unverified@example.org", verified=False)
    services.follow_create(user_id=unverified.pk, target=archive["aickelin"])
    backdate_follows(unverified)
    # Never to an unverified address, and so never due: no task a sweep for nothing.
    assert services.digest_due_user_ids() == [reader.pk]
    assert services.digest_run(user_id=unverified.pk) == 0
    assert services.digest_run(user_id=reader.pk) == 6
    # Daily: not due again within the day, due the next day (nothing new, so nothing sent).
    row = AccountSettings.objects.get(user=reader)
    assert not row.digest_due(timezone.now() + timedelta(hours=12))
    assert row.digest_due(timezone.now() + timedelta(hours=24))
    assert reader.pk not in services.digest_due_user_ids()
    assert len(mail.outbox) == 1


def test_a_check_that_finds_nothing_new_waits_an_interval(archive, reader):
    """A weekly reader with nothing new stayed due, and every 15-minute sweep queued a digest
    task for them that sent nothing (the digests stage never emptied; a newcomer saw it)."""
    services.account_settings_update(user_id=reader.pk, digest_frequency="weekly")
    now = timezone.now()
    assert services.digest_due_user_ids(now=now) == [reader.pk]
    assert services.digest_run(user_id=reader.pk, now=now) == 0
    assert services.digest_due_user_ids(now=now + timedelta(minutes=15)) == []
    assert services.digests_backlog(now=now + timedelta(minutes=15)).waiting == 0
    assert services.digest_due_user_ids(now=now + timedelta(days=7)) == [reader.pk]
    assert len(mail.outbox) == 0


def test_hidden_papers_are_left_out(archive, reader):
    Paper.objects.filter(arxiv_id="0801.4314").update(hidden=True)
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    assert services.digest_run(user_id=reader.pk) == 5
    assert "0801.4314" not in listed_ids(mail.outbox[0])


def test_split_note_reaches_the_next_digest_once(archive, reader):
    from researchers.models import Researcher

    services.follow_create(user_id=reader.pk, target=archive["troccaz"])
    split_off = Researcher.objects.create(display_name="Jocelyne Troccaz")
    # The curation split service calls this; a retried call (same key) writes nothing twice.
    assert (
        services.follows_note_split(
            researcher_id=archive["troccaz"].pk, new_researcher_ids=[split_off.pk], key="curation:split:17"
        )
        == 1
    )
    assert (
        services.follows_note_split(
            researcher_id=archive["troccaz"].pk, new_researcher_ids=[split_off.pk], key="curation:split:17"
        )
        == 1
    )
    assert DigestNote.objects.filter(user=reader).count() == 1
    # No new paper (the follow is newer than the attributions), but the note goes out.
    assert services.digest_run(user_id=reader.pk) == 0
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == "wovepaper: news about researchers you follow"
    assert "An editor split Jocelyne Troccaz into separate researcher records." in message.body
    assert f"/researchers/{split_off.pk}-jocelyne-troccaz" in message.body
    # Told once: the next digest (a week on, still nothing new) is not sent at all.
    assert services.digest_run(user_id=reader.pk, now=timezone.now() + timedelta(days=8)) == 0
    assert len(mail.outbox) == 1


def test_beat_job_queues_one_task_per_due_user(archive, reader, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.send_digest, "delay", lambda **kwargs: queued.append(kwargs))
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    make_reader("nofollows@example.org")  # no settings row: never followed anything
    assert tasks.send_digests.run() == 1
    assert queued == [{"user_id": reader.pk}]


def test_beat_sweeps_the_digest_stage_every_15_minutes(settings):
    from wove.pipeline import STAGES

    entry = settings.CELERY_BEAT_SCHEDULE["pipeline-sweep"]
    assert entry["task"] == "wove.sweep_pipeline"
    assert entry["schedule"] == 15 * 60
    assert STAGES[-1].name == "digests" and STAGES[-1].task == "accounts.send_digests"


def test_a_long_digest_lists_the_newest_and_counts_the_rest(archive, reader, monkeypatch, settings):
    monkeypatch.setattr(services, "DIGEST_GROUP_LISTED", 2)
    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    assert services.digest_run(user_id=reader.pk) == 6
    message = mail.outbox[0]
    assert message.subject == "wovepaper: 6 new papers from what you follow"
    assert listed_ids(message) == ["0801.4119", "0801.4314"]
    digest_id = DigestPaper.objects.filter(user=reader).values_list("digest_id", flat=True).first()
    aickelin = archive["aickelin"].pk
    assert (
        f"…and 4 more: {settings.SITE_URL}/accounts/digests/{digest_id}#g-researcher-{aickelin}"
        in message.body
    )
    # All six count as announced: none comes back in a later digest.
    assert DigestPaper.objects.filter(user=reader).count() == 6
