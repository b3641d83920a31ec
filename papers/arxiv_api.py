"""The arXiv API (``export.arxiv.org/api/query``, Atom 1.0): parse its feeds into
:class:`papers.records.ArxivRecord` and fetch single papers politely.

Follows the arXiv API User's Manual: entries carry ``<id>http://arxiv.org/abs/<id>v<N></id>``,
``<published>`` (v1), ``<updated>`` (vN), ``<arxiv:primary_category>``, ``<category>``,
``<arxiv:doi>``, ``<arxiv:journal_ref>``, ``<arxiv:comment>`` and ``<author><name>`` with
``<arxiv:affiliation>``. An error is a feed whose one entry has the title ``Error`` and an id
under ``/api/errors``. arXiv asks for at most one request every 3 seconds; the client waits
for a slot shared by every worker (a Redis key set with NX and a 3 s expiry).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

import httpx
from lxml import etree

from .authors import AuthorSlot, is_collaboration_name, slot_from_parts, split_name
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
RATE_KEY = "wove:arxiv-api:next-slot"


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
        if is_collaboration_name(name):
            authors.append(AuthorSlot(name, name, "", "", affiliations, True))
        else:
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


def parse_feed(body: bytes | str) -> list[ArxivRecord]:
    """All usable entries of an API feed, in feed order; a bad entry is logged and skipped.

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
    for entry in root.findall(f"{{{ATOM}}}entry"):
        entry_id = _t(entry.find(f"{{{ATOM}}}id"))
        if "/api/errors" in entry_id:
            raise ArxivApiError(_t(entry.find(f"{{{ATOM}}}summary")) or "arXiv API error")
        try:
            records.append(parse_entry(entry))
        except RecordError as exc:
            logger.warning("arXiv API: skipped an entry: %s", exc)
    return records


class ArxivApiClient:
    """Fetches entries from the arXiv API, at most one request per ``min_interval`` seconds
    across every process sharing ``redis`` (any client with ``set(..., nx=True, px=...)``
    and ``pttl``; ``None`` limits this process only). Use as a context manager."""

    def __init__(
        self,
        endpoint: str,
        *,
        min_interval: float = 3.0,
        timeout: float = 30.0,
        user_agent: str = "wovepaper",
        redis=None,
        transport: httpx.BaseTransport | None = None,
        sleep=time.sleep,
    ):
        self.endpoint = endpoint
        self.min_interval = min_interval
        self.redis = redis
        self.sleep = sleep
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
            pause = self._last + self.min_interval - time.monotonic()
            if pause > 0:
                self.sleep(pause)
                waited = pause
            self._last = time.monotonic()
            return waited
        while not self.redis.set(RATE_KEY, "1", nx=True, px=max(interval_ms, 1)):
            remaining = self.redis.pttl(RATE_KEY)
            pause = (remaining if remaining and remaining > 0 else 50) / 1000
            if waited + pause > max_wait:
                raise TimeoutError("no arXiv API slot within the wait limit")
            self.sleep(pause)
            waited += pause
        return waited

    def fetch_ids(self, ids: list[str]) -> bytes:
        """The raw Atom feed for ``id_list=<ids>`` (at most 100). Raises
        ``httpx.HTTPStatusError`` on 429/5xx (the caller retries) and ``ArxivApiError``
        on other non-200 answers."""
        self.wait_for_slot()
        response = self._http.get(
            self.endpoint, params={"id_list": ",".join(ids), "start": 0, "max_results": len(ids)}
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
