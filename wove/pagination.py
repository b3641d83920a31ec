"""API paging in one place: page number + size, or an opaque keyset cursor, over a stable order."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import urlencode

from django.core import signing
from django.db.models import Expression, F, Q, QuerySet
from django.http import HttpRequest
from ninja import Schema
from pydantic import Field

from .counts import count_cached
from .errors import ApiError

MAX_SIZE = 100
DEFAULT_SIZE = 24
MAX_PAGE = 10_000
_CURSOR_SALT = "wove.api.cursor"
# What encode_cursor writes (django.core.signing.Signer.sign_object, compressed or not):
# URL-safe base64 of the payload ('.'-prefixed when zlib-compressed), ':', and the URL-safe
# base64 HMAC-SHA256 signature (43 characters); or empty (no cursor). Stated in the OpenAPI
# document; a value of this shape not made here (its signature fails) still answers 400.
CURSOR_PATTERN = r"^(\.?[A-Za-z0-9_-]+:[A-Za-z0-9_-]{43})?$"

KeyKind = Literal["datetime", "int", "float", "str"]


class PageParams(Schema):
    """Query parameters of every list: ``page`` and ``size``, or ``cursor`` (wins over ``page``)."""

    page: int = Field(1, ge=1, le=MAX_PAGE, description="1-based page number (page mode)")
    size: int = Field(DEFAULT_SIZE, ge=1, le=MAX_SIZE, description=f"Items per page, at most {MAX_SIZE}")
    cursor: str | None = Field(
        None,
        max_length=1000,
        description="Opaque cursor from a previous answer's `next_cursor` (keyset paging for deep "
        "traversal; the other filters and the sort must stay the same). Only cursors this API "
        "made are valid: it is signed, and any other value answers 400 `invalid_cursor`",
        # Documented, not enforced by pydantic: a malformed cursor keeps its 400 invalid_cursor.
        json_schema_extra={"pattern": CURSOR_PATTERN},
    )


class PageMeta(Schema):
    """Paging facts returned with every list.

    Page mode: ``count`` (total items), ``page``, ``pages``. Cursor mode: those are ``null``
    (no count is run). In both modes ``next_cursor`` continues after the last item (``null``
    at the end) and ``next`` is the URL of the following page.
    """

    count: int | None = Field(None, description="Total items (page mode; null in cursor mode)")
    listed: int | None = Field(
        None,
        description="When fewer items can be paged through than match: how many can (a full-text "
        "query served by the search index lists the first 5,000 matches in the sort asked for; "
        "count stays the number of matches)",
    )
    count_estimated: bool = Field(
        False,
        description="True when count is an estimate: a full-text query whose words may match more "
        "than 25,600 papers is counted on the search index's sample of the archive (about one paper "
        "in 64); when at least 400 of the sample's papers match and they stand for at least 10,000, "
        "count is their number times the archive's papers over the sample's, rounded to two "
        "significant digits (a relative standard error of at most 5 %); else it is exact",
    )
    count_capped: bool = Field(
        False,
        description="True when more items match than were counted: count is then a lower bound "
        "(full-text queries and researcher name searches count at most 5,000 matches, as the "
        "search page does; a semantic or hybrid ranking holds at most 200 papers)",
    )
    page: int | None = Field(None, description="This page's number (page mode)")
    pages: int | None = Field(None, description="Number of pages (page mode)")
    size: int
    next_cursor: str | None = Field(None, description="Cursor of the next page; null on the last")
    next: str | None = Field(None, description="URL of the next page; null on the last")
    previous: str | None = Field(None, description="URL of the previous page (page mode)")


def page_out(meta: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """A page as a :class:`PageMeta` subclass with ``items`` dumps it: every meta field in
    the schema's order (its default where ``meta``, a :attr:`Paged.meta`, lacks it), then
    ``items`` (already dumped dicts), for a list written without the schema's validation
    (issue 28; ``tests/api/test_paper_lists.py`` checks the bytes)."""
    ordered = {name: meta.get(name, field.default) for name, field in PageMeta.model_fields.items()}
    return {**ordered, "items": items}


@dataclass(frozen=True)
class SortKey:
    """One column of a keyset order: an annotation ``name`` for ``expression``, its direction
    and value ``kind`` (how it is written into a cursor).

    NULLs follow PostgreSQL's default: larger than every value (first when descending, last
    when ascending). The last key of an order must be unique (an id) so the order is total.
    """

    name: str
    expression: Expression | F
    descending: bool
    kind: KeyKind


@dataclass
class Paged:
    """One page: the items (model instances) and the :class:`PageMeta` fields as a dict."""

    items: list[Any]
    meta: dict[str, Any]


def _encode_value(value: Any, kind: KeyKind) -> Any:
    if value is None:
        return None
    if kind == "datetime":
        return value.isoformat()
    return value


def _decode_value(value: Any, kind: KeyKind) -> Any:
    if value is None:
        return None
    try:
        if kind == "datetime":
            return datetime.fromisoformat(value)
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ApiError(400, "invalid_cursor", "The cursor is not valid for this list.") from exc


def encode_cursor(order: str, values: list[Any]) -> str:
    """A signed, URL-safe cursor naming the ``order`` and the last item's key ``values``.

    Signed without a timestamp (:class:`django.core.signing.Signer`, not ``signing.dumps``):
    the same page gives the same cursor, so its body and ``ETag`` stay the same from one
    second to the next and conditional GETs of list pages answer 304.
    """
    return signing.Signer(salt=_CURSOR_SALT).sign_object({"o": order, "v": values}, compress=True)


def decode_cursor(cursor: str, order: str, keys: list[SortKey]) -> list[Any]:
    """The key values in ``cursor``; raises :class:`ApiError` 400 ``invalid_cursor`` when it
    was tampered with, made for another sort, or is malformed."""
    try:
        data = signing.Signer(salt=_CURSOR_SALT).unsign_object(cursor)
    except (signing.BadSignature, ValueError) as exc:
        raise ApiError(400, "invalid_cursor", "The cursor is not valid for this list.") from exc
    if not isinstance(data, dict) or data.get("o") != order or not isinstance(data.get("v"), list):
        raise ApiError(400, "invalid_cursor", "The cursor was made for another sort order.")
    values = data["v"]
    if len(values) != len(keys):
        raise ApiError(400, "invalid_cursor", "The cursor is not valid for this list.")
    return [_decode_value(v, k.kind) for v, k in zip(values, keys, strict=True)]


def _after(key: SortKey, value: Any) -> Q | None:
    """Rows strictly after ``value`` on one key (``None``: no row can be after it)."""
    if key.descending:
        # Descending: NULLs come first, then larger values.
        return Q(**{f"{key.name}__isnull": False}) if value is None else Q(**{f"{key.name}__lt": value})
    if value is None:
        return None  # ascending: NULLs come last, nothing follows them on this key
    return Q(**{f"{key.name}__gt": value}) | Q(**{f"{key.name}__isnull": True})


def _equal(key: SortKey, value: Any) -> Q:
    return Q(**{f"{key.name}__isnull": True}) if value is None else Q(**{key.name: value})


def keyset_filter(keys: list[SortKey], values: list[Any]) -> Q:
    """Rows after ``values`` in the lexicographic order of ``keys``:
    ``k1 after v1 OR (k1 = v1 AND k2 after v2) OR ...``."""
    result: Q | None = None
    prefix = Q()
    for key, value in zip(keys, values, strict=True):
        after = _after(key, value)
        if after is not None:
            term = prefix & after
            result = term if result is None else result | term
        prefix &= _equal(key, value)
    return result if result is not None else Q(pk__in=[])


def _url(request: HttpRequest, **changes: Any) -> str:
    params = request.GET.copy()
    for name, value in changes.items():
        if value is None:
            params.pop(name, None)
        else:
            params[name] = str(value)
    query = urlencode(sorted(params.lists()), doseq=True)
    return request.build_absolute_uri(request.path + (f"?{query}" if query else ""))


def paginate(
    request: HttpRequest,
    queryset: QuerySet,
    params: PageParams,
    *,
    order: str,
    keys: list[SortKey],
    count: bool = True,
    count_cap: int | None = None,
    known_count: int | None = None,
    known_listed: int | None = None,
    known_capped: bool = False,
) -> Paged:
    """Page ``queryset`` in the keyset order ``keys`` (named ``order`` in cursors).

    Page mode (no cursor): ``count`` runs one COUNT query (skipped with ``count=False``; at
    most ``count_cap`` rows counted when given, ``count_capped`` then set in the meta, the
    lower-bound total of search engines such as Elasticsearch's ``track_total_hits``) and the
    page is read with OFFSET. Cursor mode: one query, no count, ``WHERE`` on the key
    values of the previous page's last item. Each mode reads ``size + 1`` rows to know
    whether a next page exists. ``known_count``: the number of matches, counted elsewhere
    (the search index), when ``queryset`` holds only the first of them; the meta then gives
    it as ``count`` and the queryset's size (or ``known_listed``, when the queryset holds
    only what this page needs) as ``listed``, and pages run to the last listed;
    ``known_capped``: that count stopped at a cap, as ``count_cap``'s does (``count_capped``).
    Raises :class:`ApiError` 400 for a bad cursor.
    """
    queryset = queryset.annotate(**{k.name: k.expression for k in keys}).order_by(
        *[f"-{k.name}" if k.descending else k.name for k in keys]
    )
    size = params.size
    meta: dict[str, Any] = {"size": size}
    if params.cursor:
        values = decode_cursor(params.cursor, order, keys)
        rows = list(queryset.filter(keyset_filter(keys, values))[: size + 1])
    else:
        page = params.page
        offset = (page - 1) * size
        rows = list(queryset[offset : offset + size + 1])
        if count:
            # When this page is the last one, its rows give the total: no COUNT needed.
            last_page_read = len(rows) <= size and (rows or page == 1)
            if known_count is not None:
                if known_listed is not None:
                    listed = known_listed
                else:
                    listed = offset + len(rows) if last_page_read else count_cached(queryset)
                total = known_count
                if known_count > listed:
                    meta["listed"] = listed
                if known_capped:
                    meta["count_capped"] = True
            elif last_page_read:
                total = offset + len(rows)
            elif count_cap is not None:
                # Count at most count_cap + 1 rows (an exact count of a common word's matches
                # read hundreds of thousands of rows: seconds at a million papers; issue #11).
                total = count_cached(queryset.order_by()[: count_cap + 1])
                if total > count_cap:
                    total = count_cap
                    meta["count_capped"] = True
            else:
                total = count_cached(queryset)
            meta.update(count=total, pages=max(1, -(-meta.get("listed", total) // size)))
        meta["page"] = page
        if page > 1:
            # Past the end, "previous" is the last page that has items, not page - 1.
            previous = min(page - 1, meta.get("pages") or page - 1)
            meta["previous"] = _url(request, page=previous, cursor=None)
    has_more = len(rows) > size
    items = rows[:size]
    if has_more:
        last = items[-1]
        cursor = encode_cursor(order, [_encode_value(getattr(last, k.name), k.kind) for k in keys])
        meta["next_cursor"] = cursor
        if params.cursor:
            meta["next"] = _url(request, cursor=cursor, page=None)
        else:
            meta["next"] = _url(request, page=params.page + 1, cursor=None)
    return Paged(items=items, meta=meta)
