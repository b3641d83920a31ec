"""``/api/v1/me/saved-searches``: the signed-in user's saved searches (issue 31), for the
site's own scripts and the user's browser: session authentication (allauth's sign-in
cookie), and a CSRF token on every unsafe method (``X-CSRFToken`` header, Django's
https://docs.djangoproject.com/en/5.2/howto/csrf/#using-csrf-protection-with-ajax).
Answers are private: never stored by a shared cache.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Router, Schema, Status
from ninja.security import django_auth
from pydantic import ConfigDict, Field

from wove.errors import ApiError, Error

from . import saved_searches
from .models import SavedSearch
from .selectors import saved_search_new, saved_searches_for_user

router = Router(tags=["me"], auth=django_auth)


class SavedSearchIn(Schema):
    """A saved search's name and terms. ``researcher`` is a researcher's id or ORCID iD,
    ``institution`` an institution's id or ROR ID, ``collaboration`` a collaboration's id or
    name; at least ``q``, ``category``, ``researcher``, ``institution`` or ``collaboration`` is
    given."""

    name: str = Field(min_length=1, max_length=120, examples=["Dark matter in cosmology"])
    q: str = Field("", max_length=500, description="Words, as the keyword search takes them")
    category: str = Field("", max_length=32, examples=["astro-ph.CO"])
    year_from: int | None = Field(None, ge=1986, le=2100)
    year_to: int | None = Field(None, ge=1986, le=2100)
    researcher: int | str = Field("", description="A researcher's id or ORCID iD")
    institution: int | str = Field("", description="An institution's id or ROR ID")
    collaboration: int | str = Field("", description="A collaboration's id or name")

    # A misspelt field ("categroy") must not save a broader search than was meant.
    model_config = ConfigDict(extra="forbid")


class SavedSearchPatch(Schema):
    """Any of :class:`SavedSearchIn`'s fields; those left out keep their value."""

    name: str | None = Field(None, min_length=1, max_length=120)
    q: str | None = Field(None, max_length=500)
    category: str | None = Field(None, max_length=32)
    year_from: int | None = Field(None, ge=1986, le=2100)
    year_to: int | None = Field(None, ge=1986, le=2100)
    researcher: int | str | None = None
    institution: int | str | None = None
    collaboration: int | str | None = None

    model_config = ConfigDict(extra="forbid")


class NamedRecord(Schema):
    """A researcher or institution a search filters by: its id, name and page."""

    id: int
    name: str
    url: str


class SavedSearchOut(Schema):
    """A saved search: its terms, where they are on the site (``search_url``, keyword mode)
    and their public RSS feed (``feed_url``), and ``new_count``: the papers the next digest
    holds from it (archived since it was saved, matching now, in no digest yet)."""

    id: int
    name: str
    q: str
    category: str
    year_from: int | None
    year_to: int | None
    researcher: NamedRecord | None
    institution: NamedRecord | None
    collaboration: NamedRecord | None
    description: str = Field(examples=["“dark matter” in astro-ph.CO, 2020–…"])
    search_url: str
    feed_url: str
    page_url: str = Field(description="Its page on the site: edit it and preview the next digest")
    new_count: int
    created_at: datetime
    modified_at: datetime


class SavedSearchList(Schema):
    """The user's saved searches, by name."""

    count: int
    items: list[SavedSearchOut]


def _out(saved: SavedSearch) -> dict:
    site = settings.SITE_URL
    researcher = saved.researcher
    institution = saved.institution
    collaboration = saved.collaboration
    return {
        "id": saved.pk,
        "name": saved.name,
        "q": saved.q,
        "category": saved.category,
        "year_from": saved.year_from,
        "year_to": saved.year_to,
        "researcher": {
            "id": researcher.pk,
            "name": researcher.display_name,
            "url": site + researcher.get_absolute_url(),
        }
        if researcher
        else None,
        "institution": {
            "id": institution.pk,
            "name": institution.name,
            "url": site + institution.get_absolute_url(),
        }
        if institution
        else None,
        "collaboration": {
            "id": collaboration.pk,
            "name": collaboration.name,
            "url": site + collaboration.get_absolute_url(),
        }
        if collaboration
        else None,
        "description": saved.describe(),
        "search_url": site + saved.get_absolute_url(),
        "feed_url": site + saved.feed_url(),
        "page_url": f"{site}/accounts/saved-searches/{saved.pk}",
        "new_count": saved_search_new(saved).count(),
        "created_at": saved.created_at,
        "modified_at": saved.modified_at,
    }


def _form_data(saved: SavedSearch | None, given: dict) -> dict:
    """The form's fields: ``saved``'s current values overlaid with those ``given``."""
    fields = ("name", "q", "category", "year_from", "year_to", "researcher", "institution", "collaboration")
    data: dict = dict.fromkeys(fields, "")
    if saved is not None:
        data.update(
            name=saved.name,
            q=saved.q,
            category=saved.category,
            year_from=saved.year_from or "",
            year_to=saved.year_to or "",
            researcher=saved.researcher_id or "",
            institution=saved.institution_id or "",
            collaboration=saved.collaboration_id or "",
        )
    data.update({key: ("" if value is None else value) for key, value in given.items()})
    return data


def _save(request: HttpRequest, given: dict, saved: SavedSearch | None = None) -> SavedSearch:
    try:
        return saved_searches.saved_search_save(
            user_id=request.user.pk, data=_form_data(saved, given), saved=saved
        )
    except saved_searches.SavedSearchInvalid as exc:
        errors = [
            # The location ninja's own validation gives a body field: ["body", "payload", name].
            {
                "loc": ["body", "payload"] + ([] if field == "__all__" else [field]),
                "msg": message,
                "type": "invalid",
            }
            for field, messages in exc.errors.items()
            for message in messages
        ]
        raise ApiError(422, "validation_error", str(exc), errors=errors) from exc


def _mine(request: HttpRequest, saved_search_id: int) -> SavedSearch:
    saved = saved_searches.saved_search_get(user_id=request.user.pk, pk=saved_search_id)
    if saved is None:
        raise ApiError(404, "not_found", f"You have no saved search {saved_search_id}.")
    return saved


def _private(response: HttpResponse) -> None:
    response["Cache-Control"] = "private, no-store"


@router.get(
    "",
    response={200: SavedSearchList, 401: Error, 429: Error},
    summary="Your saved searches",
    operation_id="me_saved_searches_list",
)
def saved_search_list(request: HttpRequest, response: HttpResponse):
    """Every saved search of the signed-in user, by name."""
    _private(response)
    items = [_out(saved) for saved in saved_searches_for_user(request.user.pk)]
    return {"count": len(items), "items": items}


@router.post(
    "",
    response={201: SavedSearchOut, 401: Error, 403: Error, 422: Error, 429: Error},
    summary="Save a search",
    operation_id="me_saved_searches_create",
)
def saved_search_create(request: HttpRequest, response: HttpResponse, payload: SavedSearchIn):
    """Save a search; its digest announces the papers archived from now on that match.
    422 for unknown terms or past 100 saved searches; 403 without the CSRF token."""
    _private(response)
    saved = _save(request, payload.dict())
    response["Location"] = f"{settings.SITE_URL}/api/v1/me/saved-searches/{saved.pk}"
    return Status(201, _out(saved))


@router.get(
    "/{saved_search_id}",
    response={200: SavedSearchOut, 401: Error, 404: Error, 429: Error},
    summary="One of your saved searches",
    operation_id="me_saved_searches_get",
)
def saved_search_get(request: HttpRequest, response: HttpResponse, saved_search_id: int):
    """One saved search of the signed-in user; 404 for another user's."""
    _private(response)
    return _out(_mine(request, saved_search_id))


@router.put(
    "/{saved_search_id}",
    response={200: SavedSearchOut, 401: Error, 403: Error, 404: Error, 422: Error, 429: Error},
    summary="Replace a saved search's name and terms",
    operation_id="me_saved_searches_replace",
)
def saved_search_replace(
    request: HttpRequest, response: HttpResponse, saved_search_id: int, payload: SavedSearchIn
):
    """Replace every field (those left out are emptied); the next digest follows the new terms."""
    _private(response)
    saved = _mine(request, saved_search_id)
    # Every field is in the payload (those left out at their defaults): all are replaced.
    return _out(_save(request, payload.dict(), saved))


@router.patch(
    "/{saved_search_id}",
    response={200: SavedSearchOut, 401: Error, 403: Error, 404: Error, 422: Error, 429: Error},
    summary="Change some of a saved search's fields",
    operation_id="me_saved_searches_update",
)
def saved_search_update(
    request: HttpRequest, response: HttpResponse, saved_search_id: int, payload: SavedSearchPatch
):
    """Change the fields given; the others keep their value."""
    _private(response)
    saved = _mine(request, saved_search_id)
    return _out(_save(request, payload.dict(exclude_unset=True), saved))


@router.delete(
    "/{saved_search_id}",
    response={204: None, 401: Error, 403: Error, 404: Error, 429: Error},
    summary="Delete a saved search",
    operation_id="me_saved_searches_delete",
)
def saved_search_delete(request: HttpRequest, response: HttpResponse, saved_search_id: int):
    """Delete it; papers it brought stay in the digests that carried them."""
    _private(response)
    _mine(request, saved_search_id)
    saved_searches.saved_search_delete(user_id=request.user.pk, pk=saved_search_id)
    return Status(204, None)
