"""Saved searches (issue 31): create, edit and delete a user's searches, one validation for
the Following page and the API (:class:`accounts.forms.SavedSearchForm`).

What a saved search matches and brings to the digest is in :mod:`accounts.selectors`
(:func:`~accounts.selectors.saved_search_q`, :func:`~accounts.selectors.saved_search_new`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max

from .forms import SavedSearchForm
from .models import SAVED_SEARCHES_MAX, Digest, SavedSearch
from .services import account_settings_get


class SavedSearchInvalid(ValueError):
    """The terms or name given cannot be saved; ``errors`` maps each field (``__all__`` for
    the whole search) to its messages, as a Django form's ``errors`` does."""

    def __init__(self, errors: Mapping[str, list[str]]):
        self.errors = {field: list(messages) for field, messages in errors.items()}
        first = next(iter(self.errors.values()), ["invalid"])[0]
        super().__init__(first)


# What a search matches: a change of any of them moves ``matches_since`` on (a name does not).
TERM_FIELDS = ("q", "category", "year_from", "year_to", "researcher_id", "institution_id", "collaboration_id")


def _terms(saved: SavedSearch) -> tuple:
    return tuple(getattr(saved, name) for name in TERM_FIELDS)


def saved_search_form(
    *, user_id: int, data: Mapping[str, Any] | None = None, saved: SavedSearch | None = None
):
    """The form editing ``saved`` (a new search of ``user_id`` when ``None``), bound to
    ``data`` when given."""
    return SavedSearchForm(data, instance=saved or SavedSearch(user_id=user_id))


def saved_search_save(
    *, user_id: int, data: Mapping[str, Any], saved: SavedSearch | None = None
) -> SavedSearch:
    """Create a saved search of ``user_id`` from ``data`` (the form's fields: ``name``, ``q``,
    ``category``, ``year_from``, ``year_to``, ``researcher``, ``institution``,
    ``collaboration``), or update
    ``saved`` with it. A new search matches the papers archived from now on. Changed terms
    match from the start of the digest period under way (``matches_since`` moves on to the
    user's last digest, never back): a search broadened a year after it was saved brings the
    papers since the last digest, not a year of them. A new name alone changes nothing. The
    user's digest settings are made when missing (weekly, as a first follow makes them).

    Raises :class:`SavedSearchInvalid` for bad terms, or when the user already keeps
    :data:`accounts.models.SAVED_SEARCHES_MAX` searches (a new one only).
    """
    # Read before validation, which copies the typed terms onto ``saved``.
    before = _terms(saved) if saved is not None else None
    form = saved_search_form(user_id=user_id, data=data, saved=saved)
    if not form.is_valid():
        raise SavedSearchInvalid(form.errors)
    with transaction.atomic():
        if saved is None:
            # Count and insert under a lock on the user's row, so two concurrent saves
            # cannot pass the limit together.
            get_user_model().objects.select_for_update().filter(pk=user_id).first()
            if SavedSearch.objects.filter(user_id=user_id).count() >= SAVED_SEARCHES_MAX:
                message = f"You keep {SAVED_SEARCHES_MAX} saved searches, the most allowed; delete one first."
                raise SavedSearchInvalid({"__all__": [message]})
        saved = form.save(commit=False)
        if before is not None and _terms(saved) != before:
            last = Digest.objects.filter(user_id=user_id).aggregate(at=Max("created_at"))["at"]
            saved.matches_since = max(saved.matches_since, last or saved.matches_since)
        saved.save()
    # The digest goes to users with settings (a follow makes them too): weekly by default.
    account_settings_get(user_id=user_id)
    return saved


def saved_search_get(*, user_id: int, pk: int) -> SavedSearch | None:
    """The user's saved search ``pk`` (``None`` when it is not theirs or does not exist)."""
    return (
        SavedSearch.objects.select_related("researcher", "institution", "collaboration")
        .filter(user_id=user_id, pk=pk)
        .first()
    )


def saved_search_delete(*, user_id: int, pk: int) -> bool:
    """Delete the user's saved search ``pk``; ``False`` when there was none. Papers it already
    brought stay in the digests that carried them."""
    deleted, _ = SavedSearch.objects.filter(user_id=user_id, pk=pk).delete()
    return bool(deleted)
