"""The admin's Pipeline page: each stage's state above the log of stage runs (staff only)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import StageRun
from .pipeline import format_age, format_counts, pipeline_status
from .replicas import describe_replica, replica_status


@admin.register(StageRun)
class StageRunAdmin(admin.ModelAdmin):
    """Pipeline: per stage the last run, papers waiting, the oldest one's age, the last error
    and a failing flag (three failed runs in a row), then every run. Read-only; any staff
    member may look, nobody edits (the stages write these rows)."""

    change_list_template = "admin/wove/stagerun/change_list.html"
    list_display = ["stage", "outcome", "trigger", "started_at", "finished_at", "counts_text"]
    list_filter = ["stage", "outcome", "trigger"]
    search_fields = ["stage", "error"]
    list_select_related = []
    autocomplete_fields = []
    date_hierarchy = "started_at"
    readonly_fields = ["stage", "trigger", "outcome", "started_at", "finished_at", "counts", "error"]

    @admin.display(description="counts")
    def counts_text(self, obj: StageRun) -> str:
        return format_counts(obj.counts or {}) or "—"

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context=None):
        rows = [
            {
                "status": row,
                "oldest": format_age(row.oldest_age),
                "eta": format_age(row.eta),
                "counts": format_counts(row.counts or {}),
            }
            for row in pipeline_status()
        ]
        replicas = [{"health": health, "text": describe_replica(health)} for health in replica_status()]
        extra_context = {
            **(extra_context or {}),
            "pipeline_rows": rows,
            "replica_rows": replicas,
            "title": "Pipeline",
        }
        return super().changelist_view(request, extra_context=extra_context)
