"""A local OAI-PMH 2.0 server replaying one recorded ListRecords response as many pages.

Reliability tests need a long harvest over real HTTP without touching arXiv: the recorded
1000-record pages under ``data/arxiv/oai/`` are cut into pages of ``page_size`` records
chained by resumptionTokens (OAI-PMH 2.0 §3.5: the last page carries an empty token).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from xml.sax.saxutils import escape, quoteattr

from lxml import etree

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
RESPONSE_DATE = "2014-01-16T10:33:29Z"


def _error(code: str, message: str) -> bytes:
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        f"<OAI-PMH xmlns='{OAI_NS}'><responseDate>{RESPONSE_DATE}</responseDate>"
        f"<request verb='ListRecords'>http://127.0.0.1/oai</request>"
        f"<error code='{code}'>{message}</error></OAI-PMH>"
    ).encode()


class _ThreadedOaiServer:
    """What both replay servers share: an HTTP server on ``127.0.0.1`` in a thread answering
    each GET with ``self._answer(params)`` as XML; a context manager; ``url`` the endpoint."""

    _server: ThreadingHTTPServer | None = None

    def _answer(self, params: dict[str, str]) -> bytes:
        raise NotImplementedError

    def __enter__(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                params = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
                body = outer._answer(params)
                self.send_response(200)
                self.send_header("Content-Type", "text/xml; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                # The harvester may be killed mid-response: what these tests do.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/oai"

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


class PagedOaiServer(_ThreadedOaiServer):
    """Serve the ``<record>`` elements of ``source`` (a recorded ListRecords response) in
    pages of ``page_size``, on ``127.0.0.1`` in a thread.

    Tokens are ``replay|<cursor>``; an unknown token answers ``badResumptionToken``, a
    prefix other than ``metadata_prefix`` ``cannotDisseminateFormat``. ``delay`` seconds are
    slept before each answer (a slower remote). ``received`` counts requests as they
    arrive, ``served`` those answered; ``requests`` keeps their parameters. Use as a context
    manager; ``url`` is the endpoint.
    """

    def __init__(self, source: Path, *, page_size: int, metadata_prefix: str = "arXivRaw", delay: float = 0):
        root = etree.parse(str(source), etree.XMLParser(huge_tree=True, resolve_entities=False)).getroot()
        self.records = [etree.tostring(r) for r in root.iter(f"{{{OAI_NS}}}record")]
        self.page_size = page_size
        self.metadata_prefix = metadata_prefix
        self.delay = delay
        self.requests: list[dict[str, str]] = []
        self.received = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def served(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def pages(self) -> int:
        return -(-len(self.records) // self.page_size)

    def page(self, params: dict[str, str]) -> bytes:
        """The response body for one request's parameters."""
        token = params.get("resumptionToken")
        if token:
            prefix, _, cursor_text = token.partition("|")
            if prefix != "replay" or not cursor_text.isdigit() or int(cursor_text) >= len(self.records):
                return _error(
                    "badResumptionToken", f"The value of the resumptionToken argument is invalid: {token}"
                )
            cursor = int(cursor_text)
        else:
            if params.get("metadataPrefix") != self.metadata_prefix:
                return _error("cannotDisseminateFormat", f"{params.get('metadataPrefix')} is not supported")
            cursor = 0
        end = cursor + self.page_size
        next_token = f"replay|{end}" if end < len(self.records) else ""
        request_attrs = f"resumptionToken='{token}'" if token else f"metadataPrefix='{self.metadata_prefix}'"
        return b"".join(
            [
                b"<?xml version='1.0' encoding='UTF-8'?>\n",
                f"<OAI-PMH xmlns='{OAI_NS}'><responseDate>{RESPONSE_DATE}</responseDate>".encode(),
                f"<request verb='ListRecords' {request_attrs}>http://127.0.0.1/oai</request>".encode(),
                b"<ListRecords>",
                *self.records[cursor:end],
                f"<resumptionToken completeListSize='{len(self.records)}' cursor='{cursor}'>"
                f"{next_token}</resumptionToken>".encode(),
                b"</ListRecords></OAI-PMH>",
            ]
        )

    def _answer(self, params: dict[str, str]) -> bytes:
        with self._lock:
            self.received += 1
        if self.delay:
            time.sleep(self.delay)
        body = self.page(params)
        with self._lock:
            self.requests.append(params)
        return body


PIPELINE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "arxiv" / "pipeline"


class DailyOaiServer(_ThreadedOaiServer):
    """An OAI-PMH 2.0 repository whose records appear day by day, on ``127.0.0.1`` in a thread.

    ``sources`` maps a metadataPrefix (``arXivRaw``, ``arXiv``) to recorded ListRecords
    responses whose ``<record>`` elements it serves. Like a real repository it holds one
    record per identifier and prefix: the one with the latest header ``<datestamp>`` not
    after ``today`` (a later file wins a tie), so a record re-issued on day 2 (a new
    version, a deletion) replaces its day-1 form once the clock reaches day 2.

    ``ListRecords`` honours ``metadataPrefix``, ``from``/``until`` (inclusive, by datestamp;
    ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ssZ``, the latter reduced to its day), ``set``
    (a setSpec equal to it or below it, ``physics`` ⊃ ``physics:hep-th``) and
    ``resumptionToken``. ``until`` defaults to, and is capped at, ``today``. Results come in
    pages of ``page_size`` records ordered by (datestamp, position in ``sources``); tokens
    are ``daily|<prefix>|<from>|<until>|<set>|<cursor>`` and the last page carries an empty
    resumptionToken (OAI-PMH 2.0 §3.5). Errors: ``noRecordsMatch`` (empty window),
    ``cannotDisseminateFormat``, ``badResumptionToken``, ``badArgument`` (bad dates, from
    after until, a token with other arguments), ``badVerb``. ``Identify`` answers with day
    granularity and ``deletedRecord`` persistent.

    ``today`` (``YYYY-MM-DD``, settable at any time) is the clock: the ``<responseDate>`` is
    ``<today>T12:00:00Z``. ``requests`` keeps each request's parameters; ``delay`` seconds
    are slept before each answer. Use as a context manager; ``url`` is the endpoint.
    """

    def __init__(
        self,
        sources: Mapping[str, Sequence[Path]],
        *,
        today: str,
        page_size: int = 10,
        delay: float = 0,
    ):
        parser = etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)
        # Per prefix: (datestamp, identifier, set specs, serialised record), in source order.
        self.records: dict[str, list[tuple[date, str, list[str], bytes]]] = {}
        for prefix, paths in sources.items():
            entries = self.records.setdefault(prefix, [])
            for path in paths:
                for record in etree.parse(str(path), parser).getroot().iter(f"{{{OAI_NS}}}record"):
                    header = record.find(f"{{{OAI_NS}}}header")
                    entries.append(
                        (
                            date.fromisoformat(header.findtext(f"{{{OAI_NS}}}datestamp").strip()),
                            header.findtext(f"{{{OAI_NS}}}identifier").strip(),
                            [s.text.strip() for s in header.iterfind(f"{{{OAI_NS}}}setSpec")],
                            etree.tostring(record),
                        )
                    )
        self.today = today
        self.page_size = page_size
        self.delay = delay
        self.requests: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @classmethod
    def pipeline(cls, *, today: str = "2026-11-01", page_size: int = 10, delay: float = 0) -> DailyOaiServer:
        """The "day of arXiv" repository of ``tests/fixtures/arxiv/pipeline/`` (see its README):
        day 1 (2026-11-01) in both formats, day 2 (2026-11-02) in arXivRaw."""
        return cls(
            {
                "arXivRaw": [
                    PIPELINE_FIXTURES / "day1_arXivRaw.xml",
                    PIPELINE_FIXTURES / "day2_arXivRaw.xml",
                ],
                "arXiv": [PIPELINE_FIXTURES / "day1_arXiv.xml"],
            },
            today=today,
            page_size=page_size,
            delay=delay,
        )

    @property
    def response_date(self) -> str:
        return f"{self.today}T12:00:00Z"

    def visible(self, metadata_prefix: str) -> list[tuple[date, str, list[str], bytes]]:
        """The records of ``metadata_prefix`` the repository holds on ``today``: per
        identifier the one with the latest datestamp not after it, ordered for paging."""
        today = date.fromisoformat(self.today)
        latest: dict[str, tuple[tuple[date, int], tuple[date, str, list[str], bytes]]] = {}
        for position, entry in enumerate(self.records.get(metadata_prefix, [])):
            key = (entry[0], position)
            if entry[0] <= today and (entry[1] not in latest or key >= latest[entry[1]][0]):
                latest[entry[1]] = (key, entry)
        return [entry for _key, entry in sorted(latest.values(), key=lambda item: item[0])]

    def _envelope(self, request_attrs: str, body: bytes) -> bytes:
        return b"".join(
            [
                b"<?xml version='1.0' encoding='UTF-8'?>\n",
                f"<OAI-PMH xmlns='{OAI_NS}'><responseDate>{self.response_date}</responseDate>".encode(),
                f"<request{request_attrs}>http://127.0.0.1/oai</request>".encode(),
                body,
                b"</OAI-PMH>",
            ]
        )

    def _error(self, params: dict[str, str], code: str, message: str) -> bytes:
        # OAI-PMH 2.0 §3.6: on badVerb/badArgument the request element carries no attributes.
        attrs = "" if code in ("badVerb", "badArgument") else _attrs(params)
        return self._envelope(attrs, f"<error code='{code}'>{escape(message)}</error>".encode())

    def page(self, params: dict[str, str]) -> bytes:
        """The response body for one request's parameters."""
        verb = params.get("verb")
        if verb == "Identify":
            earliest = min((e[0] for entries in self.records.values() for e in entries), default=None)
            return self._envelope(
                _attrs(params),
                (
                    "<Identify><repositoryName>wovepaper test replay</repositoryName>"
                    "<baseURL>http://127.0.0.1/oai</baseURL><protocolVersion>2.0</protocolVersion>"
                    "<adminEmail>nobody@example.org</adminEmail>"
                    f"<earliestDatestamp>{earliest or self.today}</earliestDatestamp>"
                    "<deletedRecord>persistent</deletedRecord><granularity>YYYY-MM-DD</granularity>"
                    "</Identify>"
                ).encode(),
            )
        if verb != "ListRecords":
            return self._error(params, "badVerb", f"Illegal OAI verb: {verb}")
        token = params.get("resumptionToken")
        if token is not None:
            if set(params) - {"verb", "resumptionToken"}:
                return self._error(params, "badArgument", "resumptionToken is an exclusive argument")
            parts = token.split("|")
            if len(parts) != 6 or parts[0] != "daily" or not parts[5].isdigit():
                return self._error(params, "badResumptionToken", f"invalid resumptionToken: {token}")
            _, prefix, from_text, until_text, set_spec, cursor_text = parts
            cursor = int(cursor_text)
        else:
            prefix = params.get("metadataPrefix", "")
            from_text, until_text = params.get("from", ""), params.get("until", "")
            set_spec = params.get("set", "")
            cursor = 0
            if not prefix:
                return self._error(params, "badArgument", "metadataPrefix is required")
        if prefix not in self.records:
            return self._error(params, "cannotDisseminateFormat", f"{prefix} is not supported")
        try:
            from_day = _day(from_text) if from_text else None
            until_day = _day(until_text) if until_text else None
        except ValueError as exc:
            return self._error(params, "badArgument", str(exc))
        if from_day and until_day and from_day > until_day:
            return self._error(params, "badArgument", "from is after until")
        today = date.fromisoformat(self.today)
        until_day = min(until_day, today) if until_day else today
        matching = [
            entry
            for entry in self.visible(prefix)
            if (from_day is None or entry[0] >= from_day)
            and entry[0] <= until_day
            and (not set_spec or any(s == set_spec or s.startswith(set_spec + ":") for s in entry[2]))
        ]
        if token is not None and cursor >= len(matching):
            return self._error(params, "badResumptionToken", f"invalid resumptionToken: {token}")
        if not matching:
            return self._error(
                params,
                "noRecordsMatch",
                "The combination of the values of the arguments results in an empty list.",
            )
        end = cursor + self.page_size
        window = f"{prefix}|{from_day or ''}|{until_day}|{set_spec}"
        next_token = f"daily|{window}|{end}" if end < len(matching) else ""
        return self._envelope(
            _attrs(params),
            b"".join(
                [
                    b"<ListRecords>",
                    *(entry[3] for entry in matching[cursor:end]),
                    f"<resumptionToken completeListSize='{len(matching)}' cursor='{cursor}'>"
                    f"{next_token}</resumptionToken>".encode(),
                    b"</ListRecords>",
                ]
            ),
        )

    def _answer(self, params: dict[str, str]) -> bytes:
        if self.delay:
            time.sleep(self.delay)
        with self._lock:  # one clock reading per answer, even if the test moves it
            body = self.page(params)
            self.requests.append(params)
        return body


def _day(value: str) -> date:
    """A ``from``/``until`` value as a day: ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ssZ``."""
    if len(value) == 10:
        return date.fromisoformat(value)
    if len(value) == 20 and value.endswith("Z"):
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").date()
    raise ValueError(f"bad date argument: {value!r}")


def _attrs(params: dict[str, str]) -> str:
    return "".join(f" {name}={quoteattr(value)}" for name, value in sorted(params.items()))
