"""Admin for the curation log (read-only records with an Undo link, pair decisions) and the
curation actions on the researcher admin."""

from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from researchers.admin import ResearcherAdmin
from researchers.models import Researcher
from wove.admin_mixins import ReadOnlyAdmin

from .actions import CurationActionsMixin
from .models import UNDOABLE_KINDS, CurationRecord, PairDecision

# researchers registers its admin first (curation comes later in INSTALLED_APPS, and the
# admin autodiscovers in that order); curation adds its Merge and Split actions to it.
admin.site.unregister(Researcher)


@admin.register(Researcher)
class CuratedResearcherAdmin(CurationActionsMixin, ResearcherAdmin):
    """The researcher admin of :mod:`researchers.admin` with the curation actions (editors only)."""


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
        if obj.kind not in UNDOABLE_KINDS:
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
