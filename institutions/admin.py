"""Admin for institutions: ROR records are read-only here (the registry is the source)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .models import AuthorAffiliation, Institution, InstitutionName, InstitutionRelationship
from .tasks import match_affiliations


class InstitutionNameInline(admin.TabularInline):
    model = InstitutionName
    extra = 0
    fields = ["value", "kind", "lang"]
    readonly_fields = fields
    can_delete = False


class InstitutionRelationshipInline(admin.TabularInline):
    model = InstitutionRelationship
    fk_name = "institution"
    extra = 0
    fields = ["type", "ror_id", "label"]
    readonly_fields = fields
    can_delete = False


@admin.register(Institution)
class InstitutionAdmin(admin.ModelAdmin):
    """ROR records: fields come from the registry (reload with ``load_ror``), so read-only."""

    list_display = ["name", "ror_id", "status", "country_code", "city", "record_modified"]
    list_filter = ["status", "country_code", "schema_version"]
    search_fields = ["name", "ror_id", "names__value"]
    list_select_related: list[str] = []
    autocomplete_fields: list[str] = []
    readonly_fields = [
        "ror_id", "name", "slug", "status", "types", "established", "country_code", "country_name",
        "city", "locations", "website", "wikipedia_url", "links", "domains", "external_ids",
        "record_modified", "schema_version", "content_hash", "created_at", "modified_at",
    ]  # fmt: skip
    inlines = [InstitutionNameInline, InstitutionRelationshipInline]
    actions = ["rematch_affiliations"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Institution]:
        return super().get_queryset(request).distinct()

    @admin.action(description="Re-run affiliation matching (all author slots)")
    def rematch_affiliations(self, request: HttpRequest, queryset: QuerySet[Institution]) -> None:
        services.affiliation_marks_clear()  # every slot pending again; the stage re-matches all
        match_affiliations.delay()
        self.message_user(request, "Affiliation matching queued.", messages.SUCCESS)


@admin.register(AuthorAffiliation)
class AuthorAffiliationAdmin(admin.ModelAdmin):
    """Author slot ↔ institution links and how each was found."""

    list_display = [
        "slot", "institution", "source", "confidence", "matched_string", "matched_institution", "resolution",
        "modified_at",
    ]  # fmt: skip
    list_filter = ["source", "resolution"]
    search_fields = ["institution__name", "institution__ror_id", "matched_string", "slot__name"]
    list_select_related = ["slot", "institution", "matched_institution"]
    autocomplete_fields = ["institution", "matched_institution"]
    raw_id_fields = ["slot"]
