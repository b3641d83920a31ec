"""Admin base classes shared by every app (a wove helper: it imports no app)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """An admin for rows nothing edits by hand (append-only logs, signed records, published
    keys, stage runs): no add, change or delete permission for anyone, superusers included;
    the list and detail pages still show every field."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
