"""Accounts: what a reader follows, their notification settings, private feed and digests."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from papers.search_filters import describe_terms, terms_query_string


class FollowKind(models.TextChoices):
    """What a follow points at; exactly one of the matching foreign keys is set."""

    RESEARCHER = "researcher", "Researcher"
    INSTITUTION = "institution", "Institution"
    CATEGORY = "category", "Category"


class Follow(models.Model):
    """A user following one researcher, institution or arXiv category.

    Exactly one of ``researcher``/``institution``/``category`` is set (a check constraint),
    and a user follows a thing at most once (one partial unique constraint per kind).
    ``created_at`` is when the follow began: digests only announce papers that reached the
    archive (or were attributed to the researcher/institution) after it. When an editor
    merges researchers, :func:`accounts.services.follows_move` moves the rows to the survivor.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    researcher = models.ForeignKey(
        "researchers.Researcher", null=True, blank=True, on_delete=models.CASCADE, related_name="follows"
    )
    institution = models.ForeignKey(
        "institutions.Institution", null=True, blank=True, on_delete=models.CASCADE, related_name="follows"
    )
    category = models.ForeignKey(
        "papers.Category", null=True, blank=True, on_delete=models.CASCADE, related_name="follows"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(researcher__isnull=False, institution__isnull=True, category__isnull=True)
                    | models.Q(researcher__isnull=True, institution__isnull=False, category__isnull=True)
                    | models.Q(researcher__isnull=True, institution__isnull=True, category__isnull=False)
                ),
                name="follow_exactly_one_target",
            ),
            models.UniqueConstraint(
                fields=["user", "researcher"],
                condition=models.Q(researcher__isnull=False),
                name="follow_researcher_unique",
            ),
            models.UniqueConstraint(
                fields=["user", "institution"],
                condition=models.Q(institution__isnull=False),
                name="follow_institution_unique",
            ),
            models.UniqueConstraint(
                fields=["user", "category"],
                condition=models.Q(category__isnull=False),
                name="follow_category_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.kind} {self.target_key}"

    @property
    def kind(self) -> str:
        """``researcher``, ``institution`` or ``category``."""
        if self.researcher_id is not None:
            return FollowKind.RESEARCHER
        if self.institution_id is not None:
            return FollowKind.INSTITUTION
        return FollowKind.CATEGORY

    @property
    def target(self) -> models.Model:
        """The followed object (one query unless selected with ``select_related``)."""
        return self.researcher or self.institution or self.category

    @property
    def target_key(self) -> str:
        """The followed object's key as used in URLs: an integer id, or a category code."""
        return str(self.researcher_id or self.institution_id or self.category_id)


#: How many saved searches one user may keep: each is matched against every new paper at
#: each digest, and a list longer than this is no longer read by its owner.
SAVED_SEARCHES_MAX = 100


class SavedSearch(models.Model):
    """A keyword search a user saved under a name, followed like a researcher (issue 31).

    The terms are the search page's: words ``q`` (PostgreSQL web-search syntax), an arXiv
    ``category`` code (canonical, as :func:`papers.selectors.category_canonical` gives it),
    inclusive submission years, a researcher, an institution and a collaboration; at least
    the words, the category, the researcher, the institution or the collaboration is set (a form's check, see
    :class:`accounts.forms.SavedSearchForm`). It matches papers as the keyword search does
    (:func:`accounts.selectors.saved_search_q`), so its page and feed links open
    ``mode=keyword``. A digest announces the papers that match and reached the archive
    (``Paper.created_at``) at or after ``matches_since``: when it was saved, moved on when its
    terms change to the start of the digest period under way (the owner's last digest), so
    a broadened search brings that period's papers, not the archive's past
    (:func:`accounts.saved_searches.saved_search_save`). A researcher merged away is read as
    its survivor; a record deleted (a retired junk researcher, a split undone) takes the
    searches filtering by it along, as
    it takes its follows: dropping the filter instead would widen the search to every paper
    of its other terms, and flood the digest.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches"
    )
    name = models.CharField(max_length=120)
    q = models.CharField("words", max_length=500, blank=True)
    category = models.CharField(max_length=32, blank=True)
    year_from = models.PositiveSmallIntegerField(null=True, blank=True)
    year_to = models.PositiveSmallIntegerField(null=True, blank=True)
    researcher = models.ForeignKey(
        "researchers.Researcher", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    institution = models.ForeignKey(
        "institutions.Institution", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    collaboration = models.ForeignKey(
        "papers.Collaboration", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    matches_since = models.DateTimeField(default=timezone.now)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["user", "name"], name="savedsearch_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id}'s search “{self.name}”"

    def get_absolute_url(self) -> str:
        """The search page listing what this search matches: ``/search?q=…&sort=newest``."""
        return f"/search?{self.query_string()}&sort=newest"

    def describe(self) -> str:
        """The terms in words: ``“dark matter” in astro-ph.CO, 2020–2024``."""
        return describe_terms(self)

    def query_string(self) -> str:
        """The search page's query string for these terms, keyword mode:
        ``q=dark+matter&category=astro-ph.CO&mode=keyword``."""
        return terms_query_string(self, mode="keyword")

    def feed_url(self) -> str:
        """The public search feed of these terms: ``/search/feed.xml?q=…&mode=keyword``."""
        return f"/search/feed.xml?{self.query_string()}"


class DigestFrequency(models.TextChoices):
    """How often a user wants the digest email."""

    DAILY = "daily", "Daily"
    WEEKLY = "weekly", "Weekly"
    OFF = "off", "Off"


#: Minimum time between two digests. An hour of slack, so an hourly beat that drifts a few
#: seconds still sends the daily digest every day rather than every other day.
DIGEST_INTERVALS = {
    DigestFrequency.DAILY: timedelta(days=1) - timedelta(hours=1),
    DigestFrequency.WEEKLY: timedelta(days=7) - timedelta(hours=1),
}


def new_feed_token() -> str:
    """A fresh private-feed token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


class AccountSettings(models.Model):
    """One row per user: digest choice, the private RSS token, and when the last digest went.

    ``feed_token`` is the secret in the private feed's URL (``/accounts/feed/<token>.xml``);
    ``None`` when the user has no feed or revoked it. It is stored as is (not hashed) so the
    owner can copy the URL again from their settings page; it only grants reading the list
    of papers from what they follow. ``last_digest_at`` gates the next digest (see
    :data:`DIGEST_INTERVALS`).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings"
    )
    digest_frequency = models.CharField(
        max_length=8, choices=DigestFrequency.choices, default=DigestFrequency.WEEKLY
    )
    feed_token = models.CharField(max_length=64, null=True, blank=True, unique=True)
    feed_token_created_at = models.DateTimeField(null=True, blank=True)
    last_digest_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "account settings"

    def __str__(self) -> str:
        return f"settings of {self.user_id} (digest {self.digest_frequency})"

    def digest_due(self, now) -> bool:
        """Whether a digest may go out at ``now`` (never when the digest is off)."""
        interval = DIGEST_INTERVALS.get(self.digest_frequency)
        if interval is None:
            return False
        return self.last_digest_at is None or self.last_digest_at <= now - interval


class Digest(models.Model):
    """One digest email to one user (an outbox row).

    Created together with its :class:`DigestPaper` rows and notes in one transaction, then
    sent outside it; ``sent_at`` is set once the mail backend accepted it. A retried task
    finds the unsent digest and sends that same digest again instead of building a new one;
    ``claimed_at`` keeps two workers from sending it at the same time (a lease that expires
    after :data:`accounts.services.DIGEST_CLAIM_SECONDS`).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digests")
    frequency = models.CharField(max_length=8, choices=DigestFrequency.choices)
    paper_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "sent_at"], name="digest_user_sent_idx")]

    def __str__(self) -> str:
        state = f"sent {self.sent_at:%Y-%m-%d %H:%M}" if self.sent_at else "pending"
        return f"digest {self.pk} to {self.user_id} ({self.paper_count} papers, {state})"


class DigestPaper(models.Model):
    """A paper announced to a user, in which digest: each (user, paper) at most once, ever.

    The unique constraint is the idempotency guarantee: a paper that is in any digest of a
    user can never be put in another one.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="+")
    digest = models.ForeignKey(Digest, on_delete=models.CASCADE, related_name="items")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="digestpaper_unique")]

    def __str__(self) -> str:
        return f"paper {self.paper_id} to {self.user_id} in digest {self.digest_id}"


class DigestNote(models.Model):
    """A line for a user's next digest, e.g. "a researcher you follow was split".

    Curation merges and splits write these (through :mod:`accounts.receivers`; see
    :func:`accounts.services.follows_note_split`); ``digest`` is set when a digest carries
    the note, so a note is told once.
    ``researcher`` is the record the note is about, kept for the link (nullable so a later
    deletion of the record keeps the note). A non-empty ``key`` is unique per user, so a
    retried curation call writes its note once.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_notes")
    researcher = models.ForeignKey(
        "researchers.Researcher", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    text = models.TextField()
    key = models.CharField(
        max_length=200, blank=True, help_text="Caller's idempotency key, e.g. the curation action id"
    )
    created_at = models.DateTimeField(default=timezone.now)
    digest = models.ForeignKey(Digest, null=True, blank=True, on_delete=models.SET_NULL, related_name="notes")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"], condition=~models.Q(key=""), name="digestnote_key_unique"
            )
        ]
        indexes = [
            models.Index(
                fields=["user"], condition=models.Q(digest__isnull=True), name="digestnote_pending_idx"
            )
        ]

    def __str__(self) -> str:
        return f"note for {self.user_id}: {self.text[:60]}"
