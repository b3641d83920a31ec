"""Admin for accounts: follows, settings and the digest outbox (read-mostly)."""

from django.contrib import admin

from .models import AccountSettings, Digest, DigestNote, DigestPaper, Follow


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    """Follows; created by users from the site, so editable only for support."""

    list_display = ["user", "researcher", "institution", "category", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["user__email", "researcher__display_name", "institution__name", "category__code"]
    list_select_related = ["user", "researcher", "institution", "category"]
    autocomplete_fields = ["user", "researcher", "institution"]
    raw_id_fields = ["category"]


@admin.register(AccountSettings)
class AccountSettingsAdmin(admin.ModelAdmin):
    """Digest choice and feed state per user; the feed token itself is never shown."""

    list_display = ["user", "digest_frequency", "has_feed", "last_digest_at"]
    list_filter = ["digest_frequency"]
    search_fields = ["user__email"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
    exclude = ["feed_token"]
    readonly_fields = ["feed_token_created_at", "last_digest_at"]

    @admin.display(boolean=True, description="private feed")
    def has_feed(self, obj: AccountSettings) -> bool:
        return bool(obj.feed_token)


class DigestPaperInline(admin.TabularInline):
    model = DigestPaper
    extra = 0
    can_delete = False
    readonly_fields = ["paper"]
    fields = ["paper"]
    raw_id_fields = ["paper"]


@admin.register(Digest)
class DigestAdmin(admin.ModelAdmin):
    """The digest outbox: what went to whom, and failures."""

    list_display = ["pk", "user", "frequency", "paper_count", "created_at", "sent_at", "attempts"]
    list_filter = ["frequency", ("sent_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__email"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
    readonly_fields = ["paper_count", "created_at", "claimed_at", "sent_at", "attempts", "last_error"]
    inlines = [DigestPaperInline]


@admin.register(DigestNote)
class DigestNoteAdmin(admin.ModelAdmin):
    """Notes waiting for (or carried by) a digest."""

    list_display = ["user", "researcher", "created_at", "digest"]
    list_filter = [("digest", admin.EmptyFieldListFilter)]
    search_fields = ["user__email", "text"]
    list_select_related = ["user", "researcher", "digest"]
    autocomplete_fields = ["user", "researcher"]
    raw_id_fields = ["digest"]
