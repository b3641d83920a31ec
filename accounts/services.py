"""Account services: follow and unfollow, follows across merges and splits, the private feed
token, digests (build, send, idempotently), data export and account deletion."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.template.loader import render_to_string
from django.utils import timezone

from institutions.models import Institution
from papers.models import Category, Paper
from researchers.models import Researcher
from wove.backlog import Backlog

from .models import (
    DIGEST_INTERVALS,
    AccountSettings,
    Digest,
    DigestFrequency,
    DigestNote,
    DigestPaper,
    Follow,
    SavedSearch,
    new_feed_token,
)
from .selectors import Reason, digest_candidates, follow_target, kind_of, match_reasons, papers_for_user

logger = logging.getLogger(__name__)

#: A worker that claimed a digest and died frees it for another after this many seconds.
DIGEST_CLAIM_SECONDS = 600
#: A digest's e-mail lists at most this many papers of each group (what matched them); every
#: paper is counted, and the rest of a group are one link away on the site (the digest page).
DIGEST_GROUP_LISTED = 50
#: The private feed holds this many newest papers.
FEED_SIZE = 50

Followable = Researcher | Institution | Category


# -- Settings ---------------------------------------------------------------------------


def account_settings_get(*, user_id: int) -> AccountSettings:
    """The user's :class:`AccountSettings`, created with the defaults (weekly digest, no
    feed) on first use. Safe under concurrent first use (upsert on the unique user)."""
    row, _ = AccountSettings.objects.get_or_create(user_id=user_id)
    return row


def account_settings_update(*, user_id: int, digest_frequency: str) -> AccountSettings:
    """Set the digest frequency (``daily``, ``weekly`` or ``off``).

    Raises ``ValueError`` for any other value.
    """
    if digest_frequency not in DigestFrequency.values:
        raise ValueError(f"unknown digest frequency {digest_frequency!r}")
    row = account_settings_get(user_id=user_id)
    row.digest_frequency = digest_frequency
    row.save(update_fields=["digest_frequency", "modified_at"])
    return row


# -- Follows ----------------------------------------------------------------------------


def follow_create(*, user_id: int, target: Followable) -> tuple[Follow, bool]:
    """Follow ``target`` (a researcher, institution or category); returns ``(follow, created)``.

    Idempotent: following twice keeps the first follow and its start time. A researcher that
    was merged away is followed through its survivor, a withdrawn or inactive institution
    through the active record it leads to (``superseded_by``). Raises ``TypeError`` for anything
    else and ``ValueError`` for a merged researcher without a survivor.
    """
    kind = kind_of(target)
    if isinstance(target, Researcher) and target.merged_into_id:
        target = follow_target("researcher", str(target.pk))
        if target is None:
            raise ValueError("the researcher was merged into a record that no longer exists")
    if isinstance(target, Institution) and target.superseded_by_id:
        target = target.superseded_by
    account_settings_get(user_id=user_id)
    try:
        with transaction.atomic():
            return Follow.objects.get_or_create(user_id=user_id, **{kind: target})
    except IntegrityError:
        # A concurrent request created it between the SELECT and the INSERT.
        return Follow.objects.get(user_id=user_id, **{kind: target}), False


def follow_delete(*, user_id: int, target: Followable) -> bool:
    """Stop following ``target``; returns whether a follow existed (unfollowing twice is fine)."""
    deleted, _ = Follow.objects.filter(user_id=user_id, **{kind_of(target): target}).delete()
    return bool(deleted)


def follows_move(*, from_researcher_id: int, to_researcher_id: int) -> dict[str, Any]:
    """Move every follow of a merged-away researcher to the survivor (the receiver of
    curation's merge signal calls this in its transaction, :mod:`accounts.receivers`).

    A user who already follows the survivor keeps that follow, and their follow of the
    merged record is deleted. Returns the undo data, JSON-serialisable for an audit log::

        {"from_researcher_id": 7, "to_researcher_id": 3,
         "moved": [12, 15],                       # Follow ids now pointing at the survivor
         "dropped": [{"user_id": 4, "created_at": "2026-11-02T10:00:00+00:00"}]}

    Every user who followed the merged record (moved or dropped) gets one
    :class:`DigestNote` for their next digest, keyed by the two ids
    (:func:`_merge_note_key`), so a retried call writes none twice.

    Pass it to :func:`follows_move_undo` to put things back. Idempotent: a second call finds
    nothing left to move and returns empty lists.
    """
    if from_researcher_id == to_researcher_id:
        raise ValueError("cannot move follows of a researcher onto itself")
    with transaction.atomic():
        rows = list(
            Follow.objects.select_for_update().filter(researcher_id=from_researcher_id).order_by("pk")
        )
        already = set(
            Follow.objects.filter(
                researcher_id=to_researcher_id, user_id__in=[row.user_id for row in rows]
            ).values_list("user_id", flat=True)
        )
        moved = [row.pk for row in rows if row.user_id not in already]
        dropped = [row for row in rows if row.user_id in already]
        Follow.objects.filter(pk__in=moved).update(researcher_id=to_researcher_id)
        Follow.objects.filter(pk__in=[row.pk for row in dropped]).delete()
        if rows:
            _follows_note_merge(
                from_researcher_id=from_researcher_id,
                to_researcher_id=to_researcher_id,
                user_ids=[row.user_id for row in rows],
            )
    logger.info(
        "follows moved from researcher %s to %s: %d moved, %d already followed the survivor",
        from_researcher_id,
        to_researcher_id,
        len(moved),
        len(dropped),
    )
    return {
        "from_researcher_id": from_researcher_id,
        "to_researcher_id": to_researcher_id,
        "moved": moved,
        "dropped": [{"user_id": row.user_id, "created_at": row.created_at.isoformat()} for row in dropped],
    }


def _merge_note_key(from_researcher_id: int, to_researcher_id: int) -> str:
    """The :class:`DigestNote` key of the merge of one researcher record into another."""
    return f"follows:merge:{from_researcher_id}:{to_researcher_id}"


def _follows_note_merge(*, from_researcher_id: int, to_researcher_id: int, user_ids: list[int]) -> None:
    """One digest note per user in ``user_ids``: the merged record's followers now follow the
    survivor. Stored as plain text; the HTML digest escapes it when rendering."""
    records = Researcher.objects.in_bulk([from_researcher_id, to_researcher_id])
    survivor, merged = records.get(to_researcher_id), records.get(from_researcher_id)
    if survivor is None:
        return
    where = f"{survivor.display_name} ({settings.SITE_URL}{survivor.get_absolute_url()})"
    if merged is not None and merged.display_name != survivor.display_name:
        told = f"An editor merged {merged.display_name} into {survivor.display_name}: one person, one record."
    else:
        told = f"An editor merged a duplicate record of {survivor.display_name} into the main one."
    text = f"{told} You now follow {where}."
    key = _merge_note_key(from_researcher_id, to_researcher_id)
    DigestNote.objects.bulk_create(
        [
            DigestNote(user_id=user_id, researcher=survivor, text=text, key=key)
            for user_id in sorted(set(user_ids))
        ],
        ignore_conflicts=True,
    )


def follows_move_undo(*, undo: dict[str, Any]) -> int:
    """Reverse :func:`follows_move` from its returned data (on a curation undo, :mod:`accounts.receivers`).

    Moved follows that still point at the survivor go back to the merged record; dropped
    follows are re-created with their original start time. Follows a user removed since are
    left alone. The merge's digest notes are deleted while unsent; a note a digest already
    carried stays with it but gives up its key, so merging the two again tells the followers
    again. Returns the number of follows restored. Idempotent.
    """
    source, survivor = int(undo["from_researcher_id"]), int(undo["to_researcher_id"])
    with transaction.atomic():
        notes = DigestNote.objects.filter(researcher_id=survivor, key=_merge_note_key(source, survivor))
        notes.filter(digest__isnull=True).delete()
        notes.update(key="")
        restored = Follow.objects.filter(pk__in=undo.get("moved", []), researcher_id=survivor).update(
            researcher_id=source
        )
        for item in undo.get("dropped", []):
            _, created = Follow.objects.get_or_create(
                user_id=item["user_id"],
                researcher_id=source,
                defaults={"created_at": datetime.fromisoformat(item["created_at"])},
            )
            restored += int(created)
    return restored


def follows_note_split(*, researcher_id: int, new_researcher_ids: list[int], key: str = "") -> int:
    """Tell every follower of ``researcher_id`` in their next digest that an editor split it
    into ``new_researcher_ids`` (on a curation split, :mod:`accounts.receivers`).

    The note names the new records so the reader can follow them; the follow itself stays
    on ``researcher_id``. ``key`` (e.g. the curation action id) makes a retried call write
    nothing twice. Returns the number of followers holding the note.
    """
    researcher = Researcher.objects.filter(pk=researcher_id).first()
    if researcher is None:
        return 0
    others = list(Researcher.objects.filter(pk__in=new_researcher_ids).order_by("display_name", "pk"))
    site = settings.SITE_URL
    named = "; ".join(f"{other.display_name} ({site}{other.get_absolute_url()})" for other in others)
    text = (
        f"An editor split {researcher.display_name} into separate researcher records. "
        f"You still follow {researcher.display_name} ({site}{researcher.get_absolute_url()})"
        + (
            f"; papers moved to: {named}. Follow them from their pages if they are who you meant."
            if named
            else "."
        )
    )
    notes = [
        DigestNote(user_id=user_id, researcher=researcher, text=text, key=key)
        for user_id in Follow.objects.filter(researcher_id=researcher_id).values_list("user_id", flat=True)
    ]
    created = DigestNote.objects.bulk_create(notes, ignore_conflicts=bool(key))
    if key:
        return DigestNote.objects.filter(key=key, researcher=researcher).count()
    return len(created)


# -- Private feed -------------------------------------------------------------------------


def feed_token_regenerate(*, user_id: int) -> str:
    """Give the user a new private-feed token (the old URL stops working at once); returns it."""
    row = account_settings_get(user_id=user_id)
    row.feed_token = new_feed_token()
    row.feed_token_created_at = timezone.now()
    row.save(update_fields=["feed_token", "feed_token_created_at", "modified_at"])
    return row.feed_token


def feed_token_revoke(*, user_id: int) -> None:
    """Revoke the private feed: its URL answers 404 from now on."""
    AccountSettings.objects.filter(user_id=user_id).update(
        feed_token=None, feed_token_created_at=None, modified_at=timezone.now()
    )


def feed_user_for_token(token: str) -> int | None:
    """The id of the active user whose feed ``token`` opens, or ``None``."""
    if not token or len(token) > 64:
        return None
    return (
        AccountSettings.objects.filter(feed_token=token, user__is_active=True)
        .values_list("user_id", flat=True)
        .first()
    )


# -- Digests ------------------------------------------------------------------------------


def digest_address(user_id: int) -> str | None:
    """The verified primary address of the user (allauth ``EmailAddress``), else any verified
    one; ``None`` when the user has none, so nothing is sent to an unverified address."""
    row = (
        EmailAddress.objects.filter(user_id=user_id, verified=True)
        .order_by("-primary", "pk")
        .values_list("email", flat=True)
        .first()
    )
    return row


def digest_due_user_ids(*, now: datetime | None = None) -> list[int]:
    """Users a digest may go to at ``now``: a verified address, digest on and its interval
    passed since the last digest or the last check that found nothing new; or an earlier
    digest still unsent (so a failed send is retried by the next beat)."""
    now = now or timezone.now()
    due = Q()
    for frequency, interval in DIGEST_INTERVALS.items():
        due |= Q(digest_frequency=frequency) & (
            Q(last_digest_at__isnull=True) | Q(last_digest_at__lte=now - interval)
        )
    # Only users a digest can go to: a verified address (digest_address), else every sweep
    # queued a task for them that sent nothing.
    verified = EmailAddress.objects.filter(user_id=OuterRef("user_id"), verified=True)
    settings_rows = AccountSettings.objects.filter(due, Exists(verified), user__is_active=True)
    ids = set(settings_rows.values_list("user_id", flat=True))
    ids |= set(
        Digest.objects.filter(sent_at__isnull=True, user__is_active=True).values_list("user_id", flat=True)
    )
    return sorted(ids)


def digests_backlog(*, now: datetime | None = None) -> Backlog:
    """Users :func:`digest_due_user_ids` holds (the pipeline's digests stage; a due user with
    nothing new gets no mail)."""
    return Backlog(waiting=len(digest_due_user_ids(now=now)), unit="users")


def digest_prepare(*, user_id: int, now: datetime | None = None) -> Digest | None:
    """Build the user's next digest if one is due, or return the unsent one; else ``None``.

    In one transaction, under a row lock on the user's settings (so two workers build one
    digest): pick :func:`accounts.selectors.digest_candidates` and the pending notes, record
    every candidate as a :class:`DigestPaper` (unique per user and paper) and attach the
    notes. Nothing is built when the digest is off, not yet due, the user has no verified
    address, or there is nothing new. Network-free: sending is :func:`digest_send`.
    """
    now = now or timezone.now()
    with transaction.atomic():
        row = (
            AccountSettings.objects.select_for_update().filter(user_id=user_id, user__is_active=True).first()
        )
        if row is None:
            return None
        pending = (
            Digest.objects.filter(user_id=user_id, sent_at__isnull=True).order_by("created_at", "pk").first()
        )
        if pending is not None:
            return pending
        if not row.digest_due(now) or digest_address(user_id) is None:
            return None
        paper_ids = list(digest_candidates(user_id).values_list("pk", flat=True))
        note_ids = list(
            DigestNote.objects.filter(user_id=user_id, digest__isnull=True).values_list("pk", flat=True)
        )
        if not paper_ids and not note_ids:
            # Checked and nothing new: the next check is one interval on (the papers that
            # arrive meanwhile wait for it), not every sweep until something comes.
            row.last_digest_at = now
            row.save(update_fields=["last_digest_at", "modified_at"])
            return None
        digest = Digest.objects.create(
            user_id=user_id, frequency=row.digest_frequency, paper_count=len(paper_ids), created_at=now
        )
        # No ignore_conflicts: candidates exclude sent papers and the lock serialises
        # builders, so a conflict here would be a bug and must roll the digest back.
        DigestPaper.objects.bulk_create(
            [DigestPaper(user_id=user_id, paper_id=paper_id, digest=digest) for paper_id in paper_ids]
        )
        DigestNote.objects.filter(pk__in=note_ids).update(digest=digest)
        row.last_digest_at = now
        row.save(update_fields=["last_digest_at", "modified_at"])
    return digest


@dataclass
class DigestGroup:
    """The papers of one digest that one follow or saved search brought, newest first.

    ``reason`` is what matched them (``None``: papers whose follow or search is gone since
    the digest was built); ``items`` the listed ``(paper, other reasons)`` pairs, at most
    ``listed`` of them; ``count`` every paper of the group; ``anchor`` the group's fragment
    on the digest page (``g-researcher-12``).
    """

    reason: Reason | None
    items: list[tuple[Paper, list[Reason]]]
    count: int
    anchor: str

    @property
    def more(self) -> int:
        """Papers of the group not listed."""
        return self.count - len(self.items)


@dataclass
class DigestContent:
    """What a digest says: its papers grouped by what matched them, and its notes."""

    digest: Digest
    groups: list[DigestGroup]
    notes: list[DigestNote]

    @property
    def more(self) -> int:
        """Papers counted but not listed, over every group."""
        return sum(group.more for group in self.groups)


def digest_groups(user_id: int, paper_ids: list[int], *, listed: int | None = None) -> list[DigestGroup]:
    """``paper_ids`` (newest first) grouped by what matched them (:func:`match_reasons`):
    each paper once, in the group of its first reason (followed researchers, institutions,
    categories, then saved searches), its other reasons beside it.
    ``listed`` caps the papers loaded and listed per group (``None``: all); every paper is
    counted. Groups go by kind in that order, then by heading; papers nothing matches any
    more come last, in a group without reason."""
    reasons = match_reasons(user_id, paper_ids, new_only=True)
    grouped: dict[str, tuple[Reason | None, list[int]]] = {}
    for pk in paper_ids:
        found = reasons.get(pk) or []
        key = found[0].key if found else ""
        grouped.setdefault(key, (found[0] if found else None, []))[1].append(pk)
    kinds = ["researcher", "institution", "category", "search", ""]
    order = sorted(
        grouped,
        key=lambda key: (
            kinds.index(key.partition(":")[0]),
            grouped[key][0].heading.casefold() if key else "",
        ),
    )
    keep = {pk for key in order for pk in grouped[key][1][:listed]}
    papers = Paper.objects.filter(pk__in=keep).select_related("primary_category").in_bulk()
    groups = []
    for key in order:
        reason, ids = grouped[key]
        items = [(papers[pk], reasons[pk][1:]) for pk in ids[:listed] if pk in papers]
        anchor = "g-" + (key.replace(":", "-").replace(".", "-") if key else "other")
        groups.append(DigestGroup(reason=reason, items=items, count=len(ids), anchor=anchor))
    return groups


def digest_content(digest: Digest, *, listed: int | None = None) -> DigestContent:
    """The content of ``digest``, read back from its rows (so a resend says the same papers),
    grouped by :func:`digest_groups`, ``listed`` papers a group (``None``: all, as the
    digest page shows them; the e-mail lists :data:`DIGEST_GROUP_LISTED`)."""
    # Public papers only: one hidden or deleted since the digest was built is left out.
    ids = list(
        Paper.objects.public()
        .filter(pk__in=digest.items.values("paper_id"))
        .newest()
        .values_list("pk", flat=True)
    )
    return DigestContent(
        digest=digest,
        groups=digest_groups(digest.user_id, ids, listed=listed),
        notes=list(digest.notes.order_by("created_at", "pk")),
    )


def digest_message(digest: Digest, *, to: str) -> EmailMultiAlternatives:
    """The digest as a multipart email (text and HTML, both autoescaped templates)."""
    content = digest_content(digest, listed=DIGEST_GROUP_LISTED)
    context = {
        "content": content,
        "digest_url": f"{settings.SITE_URL}/accounts/digests/{digest.pk}",
        "SITE_URL": settings.SITE_URL,
        "frequency": digest.get_frequency_display().lower(),
    }
    count = digest.paper_count
    subject = (
        f"wovepaper: {count} new paper{'s' if count != 1 else ''} from what you follow"
        if count
        else "wovepaper: news about researchers you follow"
    )
    message = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string("accounts/email/digest.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={"List-Unsubscribe": f"<{settings.SITE_URL}/accounts/settings>"},
    )
    message.attach_alternative(render_to_string("accounts/email/digest.html", context), "text/html")
    return message


def digest_send(*, digest_id: int, now: datetime | None = None) -> bool:
    """Send one prepared digest unless it was sent already; returns whether this call sent it.

    Claims the digest with a conditional UPDATE (unsent, and unclaimed or its claim older
    than :data:`DIGEST_CLAIM_SECONDS`), so concurrent workers send it once. A failing mail
    backend frees the claim, records the error and re-raises (the task retries). Skips (and
    leaves pending) when the user has no verified address any more.
    """
    now = now or timezone.now()
    claimed = (
        Digest.objects.filter(pk=digest_id, sent_at__isnull=True)
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - timedelta(seconds=DIGEST_CLAIM_SECONDS)))
        .update(claimed_at=now, attempts=F("attempts") + 1)
    )
    if not claimed:
        return False
    digest = Digest.objects.select_related("user").get(pk=digest_id)
    address = digest_address(digest.user_id)
    if address is None:
        Digest.objects.filter(pk=digest_id).update(claimed_at=None, last_error="no verified address")
        return False
    try:
        digest_message(digest, to=address).send()
    except Exception as exc:
        Digest.objects.filter(pk=digest_id).update(
            claimed_at=None, last_error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    Digest.objects.filter(pk=digest_id).update(sent_at=timezone.now(), last_error="")
    return True


def digest_run(*, user_id: int, now: datetime | None = None) -> int:
    """Prepare and send the user's digest; returns the number of papers sent (0 when none).

    Safe to run twice and to retry after a failure: a paper is only ever in one digest of a
    user, and a digest is only ever sent once.
    """
    digest = digest_prepare(user_id=user_id, now=now)
    if digest is None:
        return 0
    return digest.paper_count if digest_send(digest_id=digest.pk, now=now) else 0


# -- Export and deletion ------------------------------------------------------------------


def account_export(*, user_id: int) -> dict[str, Any]:
    """Everything the accounts features store about a user, as a JSON-ready dict.

    Shape: ``{"exported_at", "user": {username, email, date_joined, last_login},
    "email_addresses": [{email, verified, primary}], "settings": {digest_frequency,
    private_feed_url, last_digest_at}, "follows": [{kind, id, name, url, followed_at}],
    "saved_searches": [{name, terms, search_url, saved_at}],
    "digests": [{created_at, sent_at, papers: [arXiv id], notes: [text]}],
    "pending_notes": [text]}``. Times are ISO 8601 UTC.
    """
    user = get_user_model().objects.get(pk=user_id)
    row = account_settings_get(user_id=user_id)

    def iso(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    follows = []
    for follow in Follow.objects.filter(user_id=user_id).select_related(
        "researcher", "institution", "category"
    ):
        target = follow.target
        follows.append(
            {
                "kind": follow.kind,
                "id": follow.target_key,
                "name": getattr(target, "display_name", None) or getattr(target, "name", ""),
                "url": settings.SITE_URL
                + (
                    target.get_absolute_url()
                    if hasattr(target, "get_absolute_url")
                    else f"/papers/?category={target.pk}"
                ),
                "followed_at": iso(follow.created_at),
            }
        )
    digests = []
    for digest in Digest.objects.filter(user_id=user_id).order_by("created_at", "pk"):
        digests.append(
            {
                "created_at": iso(digest.created_at),
                "sent_at": iso(digest.sent_at),
                "papers": sorted(
                    Paper.objects.filter(pk__in=digest.items.values("paper_id")).values_list(
                        "arxiv_id", flat=True
                    )
                ),
                "notes": [note.text for note in digest.notes.all()],
            }
        )
    return {
        "exported_at": iso(timezone.now()),
        "user": {
            "username": user.get_username(),
            "email": user.email,
            "date_joined": iso(user.date_joined),
            "last_login": iso(user.last_login),
        },
        "email_addresses": [
            {"email": address.email, "verified": address.verified, "primary": address.primary}
            for address in EmailAddress.objects.filter(user_id=user_id).order_by("pk")
        ],
        "settings": {
            "digest_frequency": row.digest_frequency,
            "private_feed_url": f"{settings.SITE_URL}/accounts/feed/{row.feed_token}.xml"
            if row.feed_token
            else None,
            "last_digest_at": iso(row.last_digest_at),
        },
        "follows": follows,
        "saved_searches": _saved_searches_export(user_id),
        "digests": digests,
        "pending_notes": list(
            DigestNote.objects.filter(user_id=user_id, digest__isnull=True).values_list("text", flat=True)
        ),
    }


def _saved_searches_export(user_id: int) -> list[dict[str, Any]]:
    """The user's saved searches for :func:`account_export`: ``[{name, terms, search_url,
    saved_at}]``."""
    rows = SavedSearch.objects.filter(user_id=user_id).select_related(
        "researcher", "institution", "collaboration"
    )
    return [
        {
            "name": saved.name,
            "terms": saved.describe(),
            "search_url": settings.SITE_URL + saved.get_absolute_url(),
            "saved_at": saved.created_at.isoformat(),
        }
        for saved in rows
    ]


def account_delete(*, user_id: int) -> None:
    """Delete the user and everything stored about them: follows, saved searches, settings and
    feed token, digests and their paper lists, notes, email addresses (all cascade from the
    user)."""
    get_user_model().objects.filter(pk=user_id).delete()


def feed_papers(*, user_id: int) -> list[Paper]:
    """The newest :data:`FEED_SIZE` papers of the user's follows (the private RSS feed)."""
    return list(papers_for_user(user_id)[:FEED_SIZE])
