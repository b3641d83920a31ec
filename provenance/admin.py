"""Admin for provenance: read-only views of keys, records and the append-only event log."""

from __future__ import annotations

from django.contrib import admin, messages

from wove.admin_mixins import ReadOnlyAdmin

from .models import Event, PaperSigning, PublicKey, Record
from .tasks import sign_records


@admin.register(PublicKey)
class PublicKeyAdmin(ReadOnlyAdmin):
    list_display = ["key_id", "fingerprint", "algorithm", "created_at", "rotates_at"]
    list_filter = ["algorithm"]
    search_fields = ["key_id", "fingerprint", "public_key_hex"]
    list_select_related: list[str] = []
    autocomplete_fields: list[str] = []


@admin.register(Record)
class RecordAdmin(ReadOnlyAdmin):
    list_display = ["pith_number", "source_id", "source_version", "key", "created_at"]
    list_filter = ["source_kind", "key"]
    search_fields = ["pith_number", "pith_body", "source_id", "canonical_sha256"]
    list_select_related = ["key"]
    autocomplete_fields = ["paper"]
    actions = ["sign_changed"]

    @admin.action(description="Sign new and changed papers now (background task)")
    def sign_changed(self, request, queryset) -> None:
        sign_records.delay()
        self.message_user(request, "Signing queued: provenance.sign_records", messages.SUCCESS)


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["content_sha256", "event_type", "target", "record", "key", "created_at"]
    list_filter = ["event_type", "key"]
    search_fields = ["content_sha256", "record__pith_number", "record__source_id"]
    list_select_related = ["record", "key"]
    autocomplete_fields = ["record"]


@admin.register(PaperSigning)
class PaperSigningAdmin(ReadOnlyAdmin):
    list_display = ["paper", "content_hash", "signed_at"]
    list_filter = ["signed_at"]
    search_fields = ["paper__arxiv_id"]
    list_select_related = ["paper"]
    autocomplete_fields = ["paper"]
