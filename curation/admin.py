"""Admin for the curation log (read-only records with an Undo link, pair decisions) and the
curation actions on the researcher admin."""

from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from researchers.admin import ResearcherAdmin
from researchers.models import Researcher
from wove.admin_mixins import ReadOnlyAdmin

from .actions import CurationActionsMixin
from .models import UNDOABLE_KINDS, CurationRecord, MergeProposal, PairDecision, ResearcherClaim
from .stories import record_story

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
    # The record reads as sentences first; the stored fields and the raw JSON the undo works
    # from stay one click away (collapsed) for auditors.
    fieldsets = [
        (None, {"fields": ["story", "reason", "editor_name", "created_at", "undo_link"]}),
        (
            "Stored record (for auditors)",
            {
                "classes": ["collapse"],
                "fields": [
                    "kind",
                    "researcher_id",
                    "researcher_ids",
                    "orcid_override",
                    "undoes",
                    "provenance_event",
                    "changes_pretty",
                ],
            },
        ),
    ]
    readonly_fields = [name for _title, options in fieldsets for name in options["fields"]]

    class Media:
        css = {"all": ["curation/curation.css"]}

    @admin.display(description="what happened")
    def story(self, obj: CurationRecord) -> str:
        """The record as sentences with links (:func:`curation.stories.record_story`)."""
        return format_html_join("", "<p>{}</p>", ((line,) for line in record_story(obj)))

    @admin.display(description="ORCID override")
    def orcid_override(self, obj: CurationRecord) -> str:
        return "yes: merged despite different ORCID iDs" if obj.override_orcid else "no"

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

    @admin.display(description="changes (JSON)")
    def changes_pretty(self, obj: CurationRecord) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.changes, indent=2, sort_keys=True, default=str))


@admin.register(PairDecision)
class PairDecisionAdmin(ReadOnlyAdmin):
    list_display = ["researcher_low", "researcher_high", "record", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["=researcher_low", "=researcher_high"]
    list_select_related = ["record"]
    autocomplete_fields: list[str] = []


@admin.register(ResearcherClaim)
class ResearcherClaimAdmin(ReadOnlyAdmin):
    """Claims as stored (read-only): editors decide them in the claims queue
    (``/admin/curation/claims/``), and undo decisions from the curation log."""

    list_display = ["id", "researcher", "user", "status", "strong", "orcid", "created_at", "decided_at"]
    list_filter = ["status", "strong", "created_at"]
    search_fields = ["=id", "=researcher__id", "orcid", "user__username", "user__email"]
    list_select_related = ["researcher", "user"]
    autocomplete_fields: list[str] = []


@admin.register(MergeProposal)
class MergeProposalAdmin(ReadOnlyAdmin):
    """Researchers' merge proposals as stored (read-only): editors decide them in the
    proposals queue (``/admin/curation/proposals/``) and undo decisions from the curation log."""

    list_display = ["id", "researcher", "other", "user", "status", "created_at", "decided_at"]
    list_filter = ["status", "created_at"]
    search_fields = ["=id", "=researcher__id", "=other__id", "user__username", "user__email"]
    list_select_related = ["researcher", "other", "user"]
    autocomplete_fields: list[str] = []
