"""The arXiv API (``export.arxiv.org/api/query``, Atom 1.0): parse its feeds into
:class:`papers.records.ArxivRecord` and fetch single papers politely.

Follows the arXiv API User's Manual: entries carry ``<id>http://arxiv.org/abs/<id>v<N></id>``,
``<published>`` (v1), ``<updated>`` (vN), ``<arxiv:primary_category>``, ``<category>``,
``<arxiv:doi>``, ``<arxiv:journal_ref>``, ``<arxiv:comment>`` and ``<author><name>`` with
``<arxiv:affiliation>``. An error is a feed whose one entry has the title ``Error`` and an id
under ``/api/errors``. arXiv asks for at most one request every 3 seconds; the client waits
for a slot shared by every worker (a Redis key set with NX and a 3 s expiry). A listing
(:meth:`ArxivApiClient.list_records`) pages by the entries actually received and retries an
empty page, which arXiv sometimes sends mid-list (BUGS.md API-01).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import httpx
from lxml import etree

from .authors import AuthorSlot, slot_from_parts, split_name
from .identifiers import InvalidArxivId, parse_arxiv_id
from .records import (
    ArxivRecord,
    FieldTooLong,
    RecordError,
    VersionInfo,
    clean_abstract,
    doi_field,
    text_field,
)

logger = logging.getLogger(__name__)

ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
RATE_KEY = "wove:arxiv-api:next-slot"
# An empty page that should have entries is asked for again after 3 s, 6 s, 12 s: arXiv's
# API guidance is 3 s between calls, and its empty answers come in bursts.
EMPTY_PAGE_RETRIES = 3
EMPTY_PAGE_BACKOFF = 3.0


class ArxivApiError(Exception):
    """The API answered with an error feed (``incorrect id format``) or a non-Atom body."""


def _t(element: etree._Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


def _when(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def parse_entry(entry: etree._Element) -> ArxivRecord:
    """One ``<entry>`` as an ``ArxivRecord`` (``source="api"``). Versions: v1 at
    ``published`` and, when the id names a later version N, vN at ``updated`` (the API
    gives no dates for versions in between). Raises ``RecordError`` on an unusable entry."""
    raw_id = _t(entry.find(f"{{{ATOM}}}id"))
    try:
        parsed = parse_arxiv_id(raw_id.replace("http://", "https://"))
    except InvalidArxivId as exc:
        raise RecordError(None, f"entry id {raw_id!r}: {exc}") from exc
    try:
        return _entry_record(entry, parsed)
    except FieldTooLong as exc:
        raise RecordError(parsed.id, str(exc)) from exc


def _entry_record(entry: etree._Element, parsed) -> ArxivRecord:
    title = text_field(_t(entry.find(f"{{{ATOM}}}title")), 5000, "title")
    if not title:
        raise RecordError(parsed.id, "entry has no title")
    primary = entry.find(f"{{{ARXIV}}}primary_category")
    codes = [primary.get("term", "")] if primary is not None else []
    for cat in entry.findall(f"{{{ATOM}}}category"):
        term = cat.get("term", "")
        # Some entries list ACM/MSC classes as categories ("F.2.2", "68Q25"): not arXiv codes.
        if term and term not in codes and not term[:1].isdigit() and not term[:1].isupper():
            codes.append(term)
    codes = [c for c in codes if c]
    if not codes:
        raise RecordError(parsed.id, "entry has no categories")
    authors: list[AuthorSlot] = []
    for author in entry.findall(f"{{{ATOM}}}author"):
        name = " ".join(_t(author.find(f"{{{ATOM}}}name")).split())
        if not name:
            continue
        affiliations = [_t(a) for a in author.findall(f"{{{ARXIV}}}affiliation") if _t(a)]
        # slot_from_parts tells persons, members ("X for the CMS Collaboration"),
        # collaborations and junk apart (issue 19), as for the OAI formats.
        keyname, forenames, suffix = split_name(name)
        authors.append(slot_from_parts(keyname, forenames, suffix, affiliations))
    published = _when(_t(entry.find(f"{{{ATOM}}}published")))
    updated = _when(_t(entry.find(f"{{{ATOM}}}updated")))
    versions = [VersionInfo(1, published)]
    if parsed.version and parsed.version > 1:
        versions.append(VersionInfo(parsed.version, updated))
    return ArxivRecord(
        arxiv_id=parsed.id,
        source="api",
        title=title,
        abstract=clean_abstract(_t(entry.find(f"{{{ATOM}}}summary"))),
        authors=authors,
        authors_text=", ".join(a.name for a in authors),
        categories=codes,
        dois=doi_field(_t(entry.find(f"{{{ARXIV}}}doi"))),
        journal_ref=text_field(_t(entry.find(f"{{{ARXIV}}}journal_ref")), 2000, "journal-ref"),
        comments=text_field(_t(entry.find(f"{{{ARXIV}}}comment")), 5000, "comment"),
        versions=versions,
        created=published.date() if published else None,
        updated=updated.date() if updated else None,
    )


@dataclass(frozen=True)
class FeedPage:
    """One API answer: ``records`` (usable entries, feed order), ``entries`` (every
    ``<entry>`` received, the usable and the skipped: what ``start`` advances by),
    ``total_results`` (``opensearch:totalResults``, 0 when absent)."""

    records: list[ArxivRecord]
    entries: int
    total_results: int


def parse_page(body: bytes | str) -> FeedPage:
    """An API feed as a :class:`FeedPage`; a bad entry is logged and skipped (but counted).

    Raises ``ArxivApiError`` for an error feed or a body that is not an Atom feed.
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    try:
        root = etree.fromstring(body, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        raise ArxivApiError(f"not XML: {exc}") from exc
    if root.tag != f"{{{ATOM}}}feed":
        raise ArxivApiError(f"not an Atom feed: <{root.tag}>")
    records = []
    entries = root.findall(f"{{{ATOM}}}entry")
    for entry in entries:
        entry_id = _t(entry.find(f"{{{ATOM}}}id"))
        if "/api/errors" in entry_id:
            raise ArxivApiError(_t(entry.find(f"{{{ATOM}}}summary")) or "arXiv API error")
        try:
            records.append(parse_entry(entry))
        except RecordError as exc:
            logger.warning("arXiv API: skipped an entry: %s", exc)
    total = _t(root.find(f"{{{OPENSEARCH}}}totalResults"))
    return FeedPage(records, len(entries), int(total) if total.isdigit() else 0)


def parse_feed(body: bytes | str) -> list[ArxivRecord]:
    """All usable entries of an API feed, in feed order; a bad entry is logged and skipped.

    Raises ``ArxivApiError`` for an error feed or a body that is not an Atom feed.
    """
    return parse_page(body).records


@dataclass
class ApiListing:
    """What a listing read: ``records`` (unique by arXiv id, first-seen order; a later copy
    of the same paper replaces the earlier), ``total_results`` (the largest
    ``opensearch:totalResults`` seen), ``next_start`` (the offset to resume from: where the
    listing stopped), ``complete`` (False when an empty page was still empty after its
    retries; pass ``start=next_start`` to resume), ``requests`` (calls sent)."""

    records: list[ArxivRecord]
    total_results: int
    next_start: int
    complete: bool
    requests: int


class ArxivApiClient:
    """Fetches entries from the arXiv API, at most one request per ``min_interval`` seconds
    across every process sharing ``redis`` (any client with ``set(..., nx=True, px=...)``
    and ``pttl``; ``None`` limits this process only). ``sleep`` and ``clock`` (seconds,
    monotonic) are injectable so tests script time instead of waiting. Use as a context
    manager."""

    def __init__(
        self,
        endpoint: str,
        *,
        min_interval: float = 3.0,
        timeout: float = 30.0,
        user_agent: str = "wovepaper",
        redis=None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.endpoint = endpoint
        self.min_interval = min_interval
        self.redis = redis
        self.sleep = sleep
        self.clock = clock
        self._last = 0.0
        self._http = httpx.Client(
            timeout=timeout, headers={"User-Agent": user_agent}, transport=transport, follow_redirects=True
        )

    def __enter__(self) -> ArxivApiClient:
        return self

    def __exit__(self, *exc) -> None:
        self._http.close()

    def wait_for_slot(self, *, max_wait: float = 120.0) -> float:
        """Block until this process may send a request; returns the seconds waited.

        With Redis: ``SET key 1 NX PX <interval>`` succeeds for exactly one caller per
        interval, whichever worker it runs in; the others sleep for the key's remaining
        time and try again. Raises ``TimeoutError`` after ``max_wait`` seconds."""
        waited = 0.0
        interval_ms = int(self.min_interval * 1000)
        if self.redis is None:
            pause = self._last + self.min_interval - self.clock()
            if pause > 0:
                self.sleep(pause)
                waited = pause
            self._last = self.clock()
            return waited
        while not self.redis.set(RATE_KEY, "1", nx=True, px=max(interval_ms, 1)):
            remaining = self.redis.pttl(RATE_KEY)
            pause = (remaining if remaining and remaining > 0 else 50) / 1000
            if waited + pause > max_wait:
                raise TimeoutError("no arXiv API slot within the wait limit")
            self.sleep(pause)
            waited += pause
        return waited

    def fetch_page(
        self, *, id_list: Sequence[str] = (), search_query: str = "", start: int = 0, max_results: int
    ) -> bytes:
        """The raw Atom feed of one request (after waiting for a slot). A search query is
        sorted by submission date, oldest first, so pages stay put while new papers arrive.
        Raises ``httpx.HTTPStatusError`` on 429/5xx (the caller retries) and
        ``ArxivApiError`` on other non-200 answers."""
        self.wait_for_slot()
        if search_query:
            params = {"search_query": search_query, "sortBy": "submittedDate", "sortOrder": "ascending"}
            if id_list:
                params["id_list"] = ",".join(id_list)
        else:
            params = {"id_list": ",".join(id_list)}
        response = self._http.get(
            self.endpoint, params={**params, "start": start, "max_results": max_results}
        )
        if response.status_code == 429 or response.status_code >= 500:
            response.raise_for_status()
        if response.status_code != 200:
            try:
                parse_feed(response.content)
            except ArxivApiError as exc:
                raise ArxivApiError(f"HTTP {response.status_code}: {exc}") from exc
            raise ArxivApiError(f"HTTP {response.status_code}")
        return response.content

    def list_records(
        self,
        *,
        id_list: Sequence[str] = (),
        search_query: str = "",
        start: int = 0,
        page_size: int = 100,
        empty_retries: int = EMPTY_PAGE_RETRIES,
        on_empty: Callable[[int, float], None] | None = None,
    ) -> ApiListing:
        """Every entry of a listing (``id_list``, ``search_query`` or both), paged from
        ``start`` (arXiv API User's Manual 3.1.1.2, ``start``/``max_results``).

        BUGS.md API-01: arXiv sometimes answers a page that has entries with an empty but
        valid feed. So ``start`` advances by the entries actually received (a 60-entry page
        moves it by 60, not ``page_size``), and a page is expected while ``start`` is below
        the listing's size: ``len(id_list)`` for a list of identifiers (lowered to
        ``totalResults`` once a non-empty page reports fewer: arXiv lists only the papers it
        has), else the largest ``opensearch:totalResults`` seen. An expected page that comes
        back empty is asked again ``empty_retries`` times, ``EMPTY_PAGE_BACKOFF`` seconds
        doubling between calls (3, 6, 12 s; the rate limit's slot comes on top), calling
        ``on_empty(try_number, pause_seconds)`` before each pause. When the retries run out
        the listing is returned ``complete=False`` with ``next_start`` at the empty page.
        Raises what :meth:`fetch_page` raises (429/5xx, transport errors, error feeds); the
        caller retries the whole call then, so keep listings short (one task's worth).
        """
        records: dict[str, ArxivRecord] = {}
        expected = len(id_list) if id_list else None
        total_seen, requests, empty_tries = 0, 0, 0
        while expected is None or start < expected:
            ask = page_size if not id_list else max(1, min(page_size, expected - start))
            page = parse_page(
                self.fetch_page(id_list=id_list, search_query=search_query, start=start, max_results=ask)
            )
            requests += 1
            total_seen = max(total_seen, page.total_results)
            if not id_list:
                expected = total_seen
            if page.entries == 0:
                if start >= expected:
                    break  # the true end: nothing is listed from here on
                if empty_tries >= empty_retries:
                    logger.warning(
                        "arXiv API: page at start=%d still empty after %d tries", start, empty_tries + 1
                    )
                    return ApiListing(list(records.values()), total_seen, start, False, requests)
                pause = EMPTY_PAGE_BACKOFF * 2**empty_tries
                empty_tries += 1
                if on_empty is not None:
                    on_empty(empty_tries, pause)
                self.sleep(pause)
                continue
            empty_tries = 0
            for record in page.records:
                records[record.arxiv_id] = record
            start += page.entries
            if id_list and page.total_results:
                expected = min(expected, page.total_results)
        return ApiListing(list(records.values()), total_seen, start, True, requests)
