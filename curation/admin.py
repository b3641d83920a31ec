"""Admin for the curation log: read-only records (with an Undo link) and pair decisions."""

from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from .models import CurationRecord, PairDecision


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only tables: nothing is added, changed or deleted through the admin."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(CurationRecord)
class CurationRecordAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "researcher_link", "editor_name", "created_at", "short_reason", "undo_link"]
    list_filter = ["kind", "override_orcid", "created_at"]
    search_fields = ["=id", "=researcher_id", "reason", "editor_name"]
    list_select_related = ["undone_by"]
    autocomplete_fields: list[str] = []
    fields = [
        "kind",
        "researcher_id",
        "researcher_ids",
        "editor_name",
        "created_at",
        "reason",
        "override_orcid",
        "undoes",
        "provenance_event",
        "undo_link",
        "changes_pretty",
    ]
    readonly_fields = fields

    @admin.display(description="researcher")
    def researcher_link(self, obj: CurationRecord) -> str:
        return format_html('<a href="/researchers/{}">{}</a>', obj.researcher_id, obj.researcher_id)

    @admin.display(description="reason")
    def short_reason(self, obj: CurationRecord) -> str:
        return obj.reason if len(obj.reason) <= 80 else obj.reason[:79] + "…"

    @admin.display(description="undo")
    def undo_link(self, obj: CurationRecord) -> str:
        undone = getattr(obj, "undone_by", None)
        if undone is not None:
            return format_html(
                'undone by <a href="{}">#{}</a>',
                reverse("admin:curation_curationrecord_change", args=[undone.pk]),
                undone.pk,
            )
        if obj.kind not in (CurationRecord.Kind.MERGE, CurationRecord.Kind.SPLIT):
            return "—"
        return format_html('<a href="{}">Undo…</a>', reverse("curation:undo", args=[obj.pk]))

    @admin.display(description="changes")
    def changes_pretty(self, obj: CurationRecord) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.changes, indent=2, sort_keys=True, default=str))


@admin.register(PairDecision)
class PairDecisionAdmin(ReadOnlyAdmin):
    list_display = ["researcher_low", "researcher_high", "record", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["=researcher_low", "=researcher_high"]
    list_select_related = ["record"]
    autocomplete_fields: list[str] = []
