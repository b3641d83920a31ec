"""The "Merge" and "Split" actions of the researcher admin: they open the confirmation pages.

``curation/admin.py`` mixes :class:`CurationActionsMixin` into ``researchers.admin.ResearcherAdmin``
and registers the result for :class:`~researchers.models.Researcher`; the actions only redirect
(the confirmation views and services do the work) and are offered to editors only
(``has_curate_permission``).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse

from .permissions import user_can_curate


@admin.action(description="Merge selected researchers…", permissions=["curate"])
def merge_researchers(modeladmin, request: HttpRequest, queryset) -> HttpResponseRedirect | None:
    """Open the merge confirmation for the selected records (two or more)."""
    ids = sorted(queryset.values_list("pk", flat=True))
    if len(ids) < 2:
        modeladmin.message_user(request, "Select at least two researchers to merge.", messages.WARNING)
        return None
    return HttpResponseRedirect(f"{reverse('curation:merge')}?ids={','.join(map(str, ids))}")


@admin.action(description="Split selected researcher…", permissions=["curate"])
def split_researcher(modeladmin, request: HttpRequest, queryset) -> HttpResponseRedirect | None:
    """Open the split page of the one selected record."""
    ids = list(queryset.values_list("pk", flat=True)[:2])
    if len(ids) != 1:
        modeladmin.message_user(request, "Select exactly one researcher to split.", messages.WARNING)
        return None
    return HttpResponseRedirect(reverse("curation:split", args=[ids[0]]))


class CurationActionsMixin:
    """ModelAdmin mixin adding the curation actions, visible to editors and superusers only."""

    actions = [merge_researchers, split_researcher]

    def has_curate_permission(self, request: HttpRequest) -> bool:
        return user_can_curate(request.user)
