"""Admin for researchers: identities, external ids, authorships and matching constraints."""

from django.contrib import admin

from .models import Authorship, ExternalIdentity, MatchConstraint, Researcher, SlotReview


class ExternalIdentityInline(admin.TabularInline):
    model = ExternalIdentity
    extra = 0
    fields = ["source", "external_id", "name"]


@admin.register(Researcher)
class ResearcherAdmin(admin.ModelAdmin):
    """Researcher records; curation adds its Merge and Split actions (:mod:`curation.admin`)."""

    list_display = ["id", "display_name", "orcid", "paper_count", "merged_into", "modified_at"]
    list_filter = ["identities__source", ("merged_into", admin.EmptyFieldListFilter)]
    search_fields = ["display_name", "orcid", "=id", "identities__external_id"]
    list_select_related = ["merged_into"]
    autocomplete_fields = ["merged_into"]
    # declared_names: only the owner of a claimed record changes them (curation.names), audited.
    readonly_fields = ["paper_count", "name_variants", "declared_names", "created_at", "modified_at"]
    inlines = [ExternalIdentityInline]


@admin.register(ExternalIdentity)
class ExternalIdentityAdmin(admin.ModelAdmin):
    list_display = ["source", "external_id", "name", "researcher"]
    list_filter = ["source"]
    search_fields = ["external_id", "name", "researcher__display_name"]
    list_select_related = ["researcher"]
    autocomplete_fields = ["researcher"]


@admin.register(Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ["slot", "paper", "researcher", "method", "source", "confidence"]
    list_filter = ["method", "source"]
    search_fields = ["slot__name", "paper__arxiv_id", "researcher__display_name"]
    list_select_related = ["slot", "paper", "researcher"]
    autocomplete_fields = ["researcher"]
    raw_id_fields = ["slot", "paper"]
    readonly_fields = ["block", "created_at"]


@admin.register(MatchConstraint)
class MatchConstraintAdmin(admin.ModelAdmin):
    list_display = ["kind", "slot_a", "slot_b", "note", "created_at"]
    list_filter = ["kind"]
    search_fields = ["slot_a__name", "slot_b__name", "note"]
    list_select_related = ["slot_a", "slot_b"]
    raw_id_fields = ["slot_a", "slot_b"]
    autocomplete_fields: list[str] = []


@admin.register(SlotReview)
class SlotReviewAdmin(admin.ModelAdmin):
    """Author slots the matcher could not tell apart between researchers (ambiguous names)."""

    list_display = ["slot", "paper_id", "candidates", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["slot__name", "slot__paper__arxiv_id"]
    list_select_related = ["slot"]
    raw_id_fields = ["slot"]
    autocomplete_fields: list[str] = []

    @admin.display(description="paper")
    def paper_id(self, obj: SlotReview) -> str:
        return obj.slot.paper.arxiv_id if obj.slot_id else ""
