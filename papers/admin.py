"""Admin for papers: source fields (from arXiv) are read-only; editorial fields editable."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import Category, Collaboration, HarvestRun, Paper, PaperAuthor, PaperVersion
from .upsert import ORDER_FIELDS, SOURCE_FIELDS


class PaperAuthorInline(admin.TabularInline):
    model = PaperAuthor
    extra = 0
    can_delete = False
    fields = ["position", "name", "keyname", "forenames", "suffix", "affiliations", "is_collaboration"]
    readonly_fields = fields
    ordering = ["position"]

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class PaperVersionInline(admin.TabularInline):
    model = PaperVersion
    extra = 0
    can_delete = False
    fields = ["version", "submitted_at", "size_kb", "source_type"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    list_display = ["arxiv_id", "title", "primary_category", "submitted_at", "withdrawn", "deleted", "hidden"]
    list_filter = [
        "withdrawn",
        "deleted",
        "hidden",
        "submitted_day_precision",
        "versions_source",
        "authors_source",
    ]
    # ``dois__icontains`` matches the array's text form: any one DOI, or part of one.
    search_fields = ["arxiv_id", "title", "authors_text", "dois__icontains"]
    list_select_related = ["primary_category"]
    autocomplete_fields = ["primary_category"]
    date_hierarchy = "submitted_at"
    readonly_fields = [
        "arxiv_id",
        *[f for f in SOURCE_FIELDS if f != "primary_category"],
        "primary_category",
        *ORDER_FIELDS,
        "created_at",
        "modified_at",
    ]
    fieldsets = [
        ("Editorial", {"fields": ["hidden", "editor_note", "cited_by_count"]}),
        (
            "From arXiv (read-only)",
            {"fields": ["arxiv_id", *[f for f in SOURCE_FIELDS if f != "content_hash"]]},
        ),
        (
            "Bookkeeping",
            {"classes": ["collapse"], "fields": ["content_hash", *ORDER_FIELDS, "created_at", "modified_at"]},
        ),
    ]
    inlines = [PaperAuthorInline, PaperVersionInline]
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # papers come from harvesting only


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "group", "active", "canonical"]
    list_filter = ["group", "active"]
    search_fields = ["code", "name"]
    list_select_related = ["canonical"]
    autocomplete_fields = ["canonical"]


@admin.register(HarvestRun)
class HarvestRunAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "kind",
        "metadata_prefix",
        "set_spec",
        "from_date",
        "until_date",
        "status",
        "records_seen",
        "records_written",
        "records_skipped",
        "started_at",
        "finished_at",
    ]
    list_filter = ["status", "kind", "metadata_prefix"]
    search_fields = ["set_spec", "resumption_token", "error"]
    list_select_related: list[str] = []
    autocomplete_fields: list[str] = []
    readonly_fields = [f.name for f in HarvestRun._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Collaboration)
class CollaborationAdmin(admin.ModelAdmin):
    """Collaborations are written from author slots by harvests; an editor may rename one
    or fix its slug (its key, which joins spellings across papers, stays read-only)."""

    list_display = ["name", "key", "slug", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["name", "key"]
    list_select_related: list[str] = []
    autocomplete_fields: list[str] = []
    readonly_fields = ["key", "created_at"]
