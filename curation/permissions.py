"""Who may curate: the ``Editors`` group, its permissions, and the check every curation view uses."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .models import CURATE_PERMISSION

EDITORS_GROUP = "Editors"
# Exactly what curation needs: see researchers in the admin (to select them for a merge or
# split), read the curation log and decisions, and curate. Nothing can be edited directly.
EDITOR_PERMISSIONS = [
    ("researchers", "view_researcher"),
    ("curation", "view_curationrecord"),
    ("curation", "view_pairdecision"),
    ("curation", "curate_researchers"),
]


def user_can_curate(user) -> bool:
    """True for an active staff member holding ``curation.curate_researchers`` (the Editors
    group, or a superuser); anonymous and other users are False."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.has_perm(CURATE_PERMISSION)
    )


def editor_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Decorator: everyone who may not curate, signed in or not, gets a 403 page saying why
    (``curation/refused.html``: a sign-in link for visitors, who to ask for signed-in users);
    the view does not run, so nothing changes."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not user_can_curate(request.user):
            return render(request, "curation/refused.html", status=403)
        return view(request, *args, **kwargs)

    return wrapped


def editors_group_sync(*, using: str = "default") -> None:
    """Give the ``Editors`` group exactly :data:`EDITOR_PERMISSIONS` (creating it if needed).

    Run after every ``migrate`` (post_migrate, see :class:`curation.apps.CurationConfig`):
    Wagtail's own data migrations add CMS permissions to a group of the same name, and a
    test database flush empties groups; this puts the set back to exactly ours.
    """
    from django.contrib.auth.models import Group, Permission
    from django.db.models import Q

    query = Q()
    for app_label, codename in EDITOR_PERMISSIONS:
        query |= Q(content_type__app_label=app_label, codename=codename)
    permissions = list(Permission.objects.using(using).filter(query))
    if len(permissions) != len(EDITOR_PERMISSIONS):
        return  # permissions not created yet (an app before ours in this migrate run)
    group, _ = Group.objects.using(using).get_or_create(name=EDITORS_GROUP)
    group.permissions.set(permissions)


def editors_group_sync_after_migrate(sender, using: str = "default", **kwargs) -> None:
    """``post_migrate`` receiver (connected in ``CurationConfig.ready``): keep the Editors
    group and its permission in step after every migrate."""
    editors_group_sync(using=using)
