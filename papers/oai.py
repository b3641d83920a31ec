"""OAI-PMH 2.0 for arXiv: parse responses (arXiv and arXivRaw formats) and a polite client.

Follows the OAI-PMH 2.0 specification (http://www.openarchives.org/OAI/openarchivesprotocol.html)
and arXiv's harvesting rules (https://info.arxiv.org/help/oa/index.html): at most one request
every 3 seconds, ``Retry-After`` on 503, day granularity.
"""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import IO

import httpx
from lxml import etree

from wove.bulk import gc_paused

from .authors import join_suffixes, parse_author_string, slot_from_parts
from .identifiers import InvalidArxivId, parse_arxiv_id, try_parse_arxiv_id
from .records import (
    SET_SPEC_MAX_LENGTH,
    ArxivRecord,
    FieldTooLong,
    RecordError,
    VersionInfo,
    clean_abstract,
    doi_field,
    parse_day,
    parse_rfc822,
    parse_size_kb,
    parse_version_number,
    split_categories,
    text_field,
)
from .text import clean_text, tex_to_unicode

logger = logging.getLogger(__name__)

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
ARXIV_NS = "http://arxiv.org/OAI/arXiv/"
ARXIV_RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
METADATA_PREFIXES = ("arXiv", "arXivRaw")
_NS_TO_PREFIX = {ARXIV_NS: "arXiv", ARXIV_RAW_NS: "arXivRaw"}


class OaiError(Exception):
    """An OAI-PMH error response (``<error code="...">``).

    ``code`` is the OAI error code: ``badArgument``, ``badResumptionToken``,
    ``noRecordsMatch``, ``idDoesNotExist``, ``cannotDisseminateFormat``, ``badVerb``.
    """

    def __init__(self, code: str, message: str):
        super().__init__(f"OAI-PMH error {code}: {message}")
        self.code = code
        self.message = message


class OaiResponseError(Exception):
    """A response that is not a usable OAI-PMH document (not XML, wrong root)."""


@dataclass
class OaiPage:
    """One ListRecords/GetRecord response.

    ``records`` holds the usable records; ``errors`` the records that were skipped, each a
    :class:`RecordError` naming the identifier. ``resumption_token`` is ``None`` on the last
    page (an empty token element means the list is complete, per OAI-PMH 2.0 §3.5).
    """

    response_date: datetime | None = None
    request: dict[str, str] = field(default_factory=dict)
    metadata_prefix: str | None = None
    records: list[ArxivRecord] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)
    resumption_token: str | None = None
    complete_list_size: int | None = None
    cursor: int | None = None
    recovered: bool = False


def _q(ns: str, tag: str) -> str:
    return f"{{{ns}}}{tag}" if ns else tag


def _text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    if len(element) == 0:  # a leaf, as nearly every metadata field is: its text is all
        return element.text or ""
    return "".join(element.itertext())


def parse_oai_response(source: bytes | str | IO[bytes]) -> OaiPage:
    """Parse an OAI-PMH response into an :class:`OaiPage`.

    ``source`` is the response body (bytes), a path, or a binary file. Records are parsed
    one at a time from a streaming parser and their elements freed, so memory stays bounded
    by one record plus the results. A record that cannot be read is logged, added to
    ``errors`` and skipped; the others are kept. When the page is not well-formed XML
    (a broken fragment, a control character, bytes that are not UTF-8), it is parsed again
    one record at a time (see :func:`_parse_record_by_record`), so the broken record is the
    only one reported and lost, and ``recovered`` is set.

    Raises :class:`OaiError` for an OAI error response (``noRecordsMatch`` included: the
    caller decides it means an empty, complete list) and :class:`OaiResponseError` when the
    document is not OAI-PMH XML at all.
    """
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, str):
        with open(source, "rb") as handle:
            data = handle.read()
    else:
        data = source.read()
    try:
        with gc_paused():  # a page's thousands of records stay alive: collections find nothing
            return _parse(io.BytesIO(data), recover=False)
    except etree.XMLSyntaxError as exc:
        logger.warning("OAI-PMH response is not well-formed XML (%s); parsing record by record", exc)
        return _parse_record_by_record(data)


_ROOT_START = re.compile(rb"<((?:[A-Za-z_][\w.-]*:)?OAI-PMH)[\s>]")
_RECORD_START = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?record[\s>]")
_RECORD_END = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?record\s*>")
_LIST_END = re.compile(
    rb"<(?:[A-Za-z_][\w.-]*:)?resumptionToken[\s>/]|</(?:[A-Za-z_][\w.-]*:)?ListRecords\s*>"
)
_IDENTIFIER = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?identifier\s*>\s*([^<\s]{1,200})\s*</")


def _split_records(data: bytes) -> tuple[list[bytes], bytes]:
    """Cut ``data`` at its ``<record>`` tags: returns the record fragments and the rest of
    the document (the envelope) with the records taken out. A record without an end tag
    runs to the next ``<record>`` (or to the resumptionToken / end of the list)."""
    fragments: list[bytes] = []
    rest: list[bytes] = []
    pos = 0
    while True:
        start = _RECORD_START.search(data, pos)
        if start is None:
            rest.append(data[pos:])
            break
        rest.append(data[pos : start.start()])
        following = _RECORD_START.search(data, start.end())
        end = _RECORD_END.search(data, start.end())
        if end is not None and (following is None or end.start() < following.start()):
            stop = end.end()
        elif following is not None:
            stop = following.start()
        else:
            tail = _LIST_END.search(data, start.end())
            stop = tail.start() if tail else len(data)
        fragments.append(data[start.start() : stop])
        pos = stop
    return fragments, b"".join(rest)


def _parse_record_by_record(data: bytes) -> OaiPage:
    """Parse a page that is not well-formed XML one ``<record>`` at a time.

    Each record is cut out at its tags and parsed strictly inside a copy of the page's own
    prolog and root start tag (so the namespace declarations apply); a record that fails is
    added to ``errors`` as "malformed XML", with the identifier read from its bytes when one
    is there. The envelope (responseDate, request, resumptionToken, an OAI error) is read
    leniently from what remains. lxml's own recovery mode is not used for records: it keeps
    a damaged record with characters silently dropped, or loses its header and so its
    identifier. Raises :class:`OaiResponseError` when no OAI-PMH root element is found.
    """
    root = _ROOT_START.search(data)
    if root is None:
        raise OaiResponseError("not an OAI-PMH response (no OAI-PMH root element)")
    root_end = data.find(b">", root.end() - 1)
    prolog = data[: root_end + 1]
    closing = b"</" + root.group(1) + b">"
    fragments, rest = _split_records(data)
    page = _parse(io.BytesIO(rest), recover=True)
    page.recovered = True
    for fragment in fragments:
        try:
            part = _parse(io.BytesIO(prolog + fragment + closing), recover=False)
        except etree.XMLSyntaxError as exc:
            found = _IDENTIFIER.search(fragment)
            identifier = found.group(1).decode("utf-8", "replace") if found else None
            parsed = try_parse_arxiv_id(identifier) if identifier else None
            identifier = parsed.id if parsed else identifier
            logger.warning("skipping OAI record %s: malformed XML (%s)", identifier or "<unknown id>", exc)
            page.errors.append(RecordError(identifier, f"malformed XML: {exc}"))
            continue
        page.records.extend(part.records)
        page.errors.extend(part.errors)
        if page.metadata_prefix is None:
            page.metadata_prefix = part.metadata_prefix
    return page


_RECORD = _q(OAI_NS, "record")
_RESPONSE_DATE = _q(OAI_NS, "responseDate")
_REQUEST = _q(OAI_NS, "request")
_ERROR = _q(OAI_NS, "error")
_RESUMPTION_TOKEN = _q(OAI_NS, "resumptionToken")
_ROOT = _q(OAI_NS, "OAI-PMH")


def _parse(stream: IO[bytes], *, recover: bool) -> OaiPage:
    page = OaiPage()
    record_tag = _RECORD
    context = etree.iterparse(
        stream,
        events=("end",),
        # Only the elements handled below reach Python; a record's fields are read from it.
        tag=(_RECORD, _RESPONSE_DATE, _REQUEST, _ERROR, _RESUMPTION_TOKEN, _ROOT),
        recover=recover,
        huge_tree=True,
        resolve_entities=False,
        no_network=True,
    )
    saw_root = False
    for _event, element in context:
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if tag == record_tag:
            _parse_record_into(page, element)
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
        elif tag == _RESPONSE_DATE:
            try:
                page.response_date = datetime.fromisoformat(_text(element).strip().replace("Z", "+00:00"))
            except ValueError:
                page.response_date = None
        elif tag == _REQUEST:
            page.request = {k: v for k, v in element.attrib.items()}
            page.metadata_prefix = page.request.get("metadataPrefix") or page.metadata_prefix
        elif tag == _ERROR:
            raise OaiError(element.get("code", "unknown"), clean_text(_text(element)))
        elif tag == _RESUMPTION_TOKEN:
            token = _text(element).strip()
            page.resumption_token = token or None
            size = element.get("completeListSize")
            cursor = element.get("cursor")
            page.complete_list_size = int(size) if size and size.isdigit() else None
            page.cursor = int(cursor) if cursor and cursor.isdigit() else None
        elif tag == _ROOT:
            saw_root = True
    if not saw_root:
        raise OaiResponseError("not an OAI-PMH response (no OAI-PMH root element)")
    return page


def _parse_record_into(page: OaiPage, element: etree._Element) -> None:
    header = element.find(_q(OAI_NS, "header"))
    identifier = _text(header.find(_q(OAI_NS, "identifier"))).strip() if header is not None else ""
    try:
        record = parse_record_element(element)
    except RecordError as exc:
        logger.warning("skipping OAI record %s: %s", exc.identifier or identifier, exc.reason)
        page.errors.append(exc)
        return
    except Exception as exc:  # any other surprise in one record must not lose the page
        logger.exception("skipping OAI record %s", identifier)
        page.errors.append(RecordError(identifier or None, f"unreadable record: {exc}"))
        return
    if page.metadata_prefix is None and record.source in METADATA_PREFIXES:
        page.metadata_prefix = record.source
    page.records.append(record)


def parse_record_element(element: etree._Element) -> ArxivRecord:
    """Parse one OAI ``<record>`` element (arXiv or arXivRaw metadata, or a deleted header).

    Raises :class:`RecordError` naming the identifier when the record lacks a usable
    identifier, title or known metadata format, or a field is over its length limit.
    """
    header = element.find(_q(OAI_NS, "header"))
    if header is None:
        raise RecordError(None, "record without header")
    oai_identifier = _text(header.find(_q(OAI_NS, "identifier"))).strip()
    try:
        arxiv_id = parse_arxiv_id(oai_identifier).id
    except InvalidArxivId as exc:
        raise RecordError(oai_identifier or None, str(exc)) from exc
    try:
        datestamp = parse_day(_text(header.find(_q(OAI_NS, "datestamp"))))
    except ValueError:
        datestamp = None
    set_specs = [_text(s).strip() for s in header.findall(_q(OAI_NS, "setSpec"))]
    if any(len(spec) > SET_SPEC_MAX_LENGTH for spec in set_specs):
        raise RecordError(arxiv_id, f"a setSpec is longer than {SET_SPEC_MAX_LENGTH} characters")
    if header.get("status") == "deleted":
        return ArxivRecord(arxiv_id, source="", deleted=True, datestamp=datestamp, set_specs=set_specs)

    metadata = element.find(_q(OAI_NS, "metadata"))
    body = None
    if metadata is not None:
        for child in metadata:
            if isinstance(child.tag, str):
                body = child
                break
    if body is None:
        raise RecordError(arxiv_id, "record has neither metadata nor a deleted status")
    found = metadata_format(body)
    if found is None:
        raise RecordError(arxiv_id, f"unsupported metadata format {etree.QName(body).namespace!r}")
    prefix, ns = found
    try:
        record = (
            _parse_arxiv(body, arxiv_id, ns) if prefix == "arXiv" else _parse_arxiv_raw(body, arxiv_id, ns)
        )
    except FieldTooLong as exc:
        raise RecordError(arxiv_id, str(exc)) from exc
    record.datestamp = datestamp
    record.set_specs = set_specs
    return record


# The fields each format always carries: an element named like a format but in another
# namespace is read as that format when all of them are its children.
_SHAPES = {
    "arXiv": ("id", "created", "title", "categories"),
    "arXivRaw": ("id", "version", "title", "categories"),
}


def metadata_format(body: etree._Element) -> tuple[str, str] | None:
    """The format of a record's metadata element and the namespace its fields are in, or
    ``None`` when it is neither arXiv format. By its namespace (arXiv's own two); else by its
    name and shape: an ``<arXiv>`` or ``<arXivRaw>`` whose namespace was left off (so it
    falls in the OAI namespace or in none, as in hepcrawl's recorded sample) is that format
    when it has the format's fields (:data:`_SHAPES`) as children in its own namespace."""
    qname = etree.QName(body)
    ns = qname.namespace or ""
    prefix = _NS_TO_PREFIX.get(ns)
    if prefix is not None:
        return prefix, ns
    shape = _SHAPES.get(qname.localname)
    if shape and all(body.find(_q(ns, tag)) is not None for tag in shape):
        return qname.localname, ns
    return None


def _fields(element: etree._Element, ns: str) -> dict[str, etree._Element]:
    """``{local name: first child element of that name in namespace ns}`` of ``element``: what
    ``element.find(_q(ns, name))`` gives for every name, from one pass over the children
    (issue 29: a ``find`` per field was a fifth of the parse)."""
    prefix = _q(ns, "")  # "{ns}", or "" for a format written without its namespace
    cut = len(prefix)
    fields: dict[str, etree._Element] = {}
    for child in element:
        tag = child.tag
        # Without a namespace, a namespaced child ("{...}name") is not a field (as find has it).
        if isinstance(tag, str) and tag.startswith(prefix) and (ns or not tag.startswith("{")):
            fields.setdefault(tag[cut:], child)
    return fields


def _common(fields: dict[str, etree._Element], arxiv_id: str, source: str) -> ArxivRecord:
    """The fields both formats carry, from the metadata's children (:func:`_fields`)."""

    def get(tag: str) -> str:
        return _text(fields.get(tag))

    inner_id = get("id").strip()
    # Nearly always the header's identifier as written (a normalised id parses to itself):
    # parsed only when it differs (two parses a record were a tenth of an arXivRaw page).
    if inner_id and inner_id != arxiv_id:
        try:
            if parse_arxiv_id(inner_id).id != arxiv_id:
                raise RecordError(arxiv_id, f"metadata id {inner_id!r} differs from header")
        except InvalidArxivId as exc:
            raise RecordError(arxiv_id, f"bad metadata id: {exc}") from exc
    title = text_field(get("title"), 5000, "title")
    if not title:
        raise RecordError(arxiv_id, "record has no title")
    categories = split_categories(get("categories"))
    if not categories:
        raise RecordError(arxiv_id, "record has no categories")
    return ArxivRecord(
        arxiv_id=arxiv_id,
        source=source,
        title=title,
        abstract=clean_abstract(get("abstract")),
        categories=categories,
        license=text_field(get("license"), 200, "license"),
        dois=doi_field(get("doi")),
        journal_ref=text_field(get("journal-ref"), 2000, "journal-ref"),
        report_no=text_field(get("report-no"), 2000, "report-no"),
        comments=text_field(get("comments"), 5000, "comments"),
        msc_class=text_field(get("msc-class"), 200, "msc-class"),
        acm_class=text_field(get("acm-class"), 200, "acm-class"),
        proxy=text_field(get("proxy"), 200, "proxy"),
    )


def _parse_arxiv(body: etree._Element, arxiv_id: str, ns: str = ARXIV_NS) -> ArxivRecord:
    fields = _fields(body, ns)
    record = _common(fields, arxiv_id, "arXiv")
    try:
        record.created = parse_day(_text(fields.get("created")))
        record.updated = parse_day(_text(fields.get("updated")))
    except ValueError as exc:
        raise RecordError(arxiv_id, f"bad created/updated date: {exc}") from exc
    slots = []
    authors = fields.get("authors")
    author_tag, affiliation_tag = _q(ns, "author"), _q(ns, "affiliation")
    for author in authors.iterchildren(author_tag) if authors is not None else []:
        parts = _fields(author, ns)
        keyname = clean_text(_text(parts.get("keyname")))
        forenames = clean_text(_text(parts.get("forenames")))
        suffix = clean_text(_text(parts.get("suffix")))
        affiliations = [clean_text(_text(a)) for a in author.iterchildren(affiliation_tag)]
        if not keyname and not forenames:
            continue
        slots.append(
            slot_from_parts(keyname or forenames, forenames if keyname else "", suffix, affiliations)
        )
    record.authors = join_suffixes(slots)  # a "Jr." given as an author of its own
    record.authors_text = ", ".join(slot.name for slot in record.authors)
    return record


def _parse_arxiv_raw(body: etree._Element, arxiv_id: str, ns: str = ARXIV_RAW_NS) -> ArxivRecord:
    fields = _fields(body, ns)
    record = _common(fields, arxiv_id, "arXivRaw")
    record.submitter = text_field(_text(fields.get("submitter")), 200, "submitter")
    raw_authors = clean_text(_text(fields.get("authors")))
    record.authors = parse_author_string(raw_authors)
    record.authors_text = tex_to_unicode(raw_authors)
    versions = []
    for element in body.findall(_q(ns, "version")):
        try:
            number = parse_version_number(element.get("version"))
            submitted = parse_rfc822(_text(element.find(_q(ns, "date"))))
        except ValueError as exc:
            raise RecordError(arxiv_id, str(exc)) from exc
        versions.append(
            VersionInfo(
                version=number,
                submitted_at=submitted,
                size_kb=parse_size_kb(_text(element.find(_q(ns, "size")))),
                source_type=clean_text(_text(element.find(_q(ns, "source_type"))))[:8],
            )
        )
    versions.sort(key=lambda v: v.version)
    record.versions = versions
    return record


# --------------------------------------------------------------------------------------
# The client


Sleeper = Callable[[float], None]
Clock = Callable[[], float]


class OaiClient:
    """A polite OAI-PMH client for arXiv.

    ``endpoint`` is the base URL (``https://oaipmh.arxiv.org/oai``). Requests are spaced at
    least ``min_interval`` seconds apart; a 503 with ``Retry-After`` waits that long (capped
    at ``max_retry_after`` seconds) and retries up to ``max_retries`` times; other transport
    errors and 5xx retry with exponential backoff. ``transport`` lets tests replay recorded
    responses through ``httpx.MockTransport``; ``sleep`` and ``clock`` make waiting testable.

    Raises :class:`OaiError` for OAI error responses, ``httpx.HTTPError`` when retries are
    exhausted.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        min_interval: float = 3.0,
        timeout: float = 60.0,
        max_retries: int = 5,
        max_retry_after: float = 600.0,
        user_agent: str = "wovepaper",
        transport: httpx.BaseTransport | None = None,
        sleep: Sleeper = time.sleep,
        clock: Clock = time.monotonic,
    ):
        self.endpoint = endpoint
        self.min_interval = min_interval
        self.max_retries = max_retries
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._clock = clock
        self._last_request: float | None = None
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 20.0)),
            headers={"User-Agent": user_agent},
            transport=transport,
            follow_redirects=True,
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> OaiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _throttle(self) -> None:
        if self._last_request is not None:
            wait = self.min_interval - (self._clock() - self._last_request)
            if wait > 0:
                self._sleep(wait)
        self._last_request = self._clock()

    def fetch(self, params: dict[str, str]) -> bytes:
        """GET the endpoint with ``params``; returns the body of a 200 response."""
        attempt = 0
        while True:
            self._throttle()
            try:
                response = self._http.get(self.endpoint, params=params)
            except httpx.TransportError as exc:
                attempt += 1
                if attempt > self.max_retries:
                    raise
                delay = min(2.0**attempt, 60.0)
                logger.warning("OAI-PMH request failed (%s); retrying in %.0fs", exc, delay)
                self._sleep(delay)
                continue
            if response.status_code == 200:
                return response.content
            if response.status_code in (429, 500, 502, 503, 504) and attempt < self.max_retries:
                attempt += 1
                delay = _retry_after(response.headers.get("Retry-After"), sent=response.headers.get("Date"))
                if delay is None:
                    delay = min(2.0**attempt, 60.0)
                delay = min(delay, self.max_retry_after)
                logger.info("OAI-PMH %s; waiting %.0fs (Retry-After)", response.status_code, delay)
                self._sleep(delay)
                continue
            response.raise_for_status()
            raise httpx.HTTPStatusError(
                f"unexpected status {response.status_code}", request=response.request, response=response
            )

    def identify(self) -> dict[str, str]:
        """The ``Identify`` verb: returns its simple fields (``granularity``, ``earliestDatestamp``,
        ``deletedRecord``, ``repositoryName`` ...) as strings."""
        root = etree.fromstring(
            self.fetch({"verb": "Identify"}), etree.XMLParser(resolve_entities=False, no_network=True)
        )
        error = root.find(_q(OAI_NS, "error"))
        if error is not None:
            raise OaiError(error.get("code", "unknown"), _text(error))
        identify = root.find(_q(OAI_NS, "Identify"))
        if identify is None:
            raise OaiResponseError("Identify response without <Identify>")
        return {
            etree.QName(child).localname: _text(child).strip()
            for child in identify
            if isinstance(child.tag, str) and len(child) == 0
        }

    def list_records(
        self,
        *,
        metadata_prefix: str | None = None,
        from_date: date | None = None,
        until_date: date | None = None,
        set_spec: str | None = None,
        resumption_token: str | None = None,
    ) -> Iterator[OaiPage]:
        """Yield ListRecords pages, following resumptionTokens to the end of the list.

        Starts from ``resumption_token`` when given (the other arguments are then not sent,
        as OAI-PMH requires). ``noRecordsMatch`` yields nothing. Each page is parsed before
        the next request, so a caller that saves ``page.resumption_token`` can resume.
        """
        token = resumption_token
        while True:
            if token:
                params = {"verb": "ListRecords", "resumptionToken": token}
            else:
                params = {"verb": "ListRecords", "metadataPrefix": metadata_prefix or "arXivRaw"}
                if from_date:
                    params["from"] = from_date.isoformat()
                if until_date:
                    params["until"] = until_date.isoformat()
                if set_spec:
                    params["set"] = set_spec
            try:
                page = parse_oai_response(self.fetch(params))
            except OaiError as exc:
                if exc.code == "noRecordsMatch":
                    return
                raise
            if page.metadata_prefix is None:
                page.metadata_prefix = metadata_prefix
            yield page
            token = page.resumption_token
            if not token:
                return


def _retry_after(value: str | None, *, sent: str | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP date (RFC 9110 §10.2.3).

    An HTTP date is counted from the response's own ``Date`` header (``sent``) when it has
    a readable one, as RFC 9110 intends: the server's clock, not ours, set both. Only
    without one is the local clock used. ``None`` when the header is absent or unreadable.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parse_rfc822(value)
    except ValueError:
        return None
    if when is None:
        return None
    try:
        origin = parse_rfc822(sent)
    except ValueError:
        origin = None
    origin = origin or datetime.now(when.tzinfo)
    return max(0.0, (when - origin).total_seconds())
