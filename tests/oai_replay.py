"""A local OAI-PMH 2.0 server replaying one recorded ListRecords response as many pages.

Reliability tests need a long harvest over real HTTP without touching arXiv: the recorded
1000-record pages under ``data/arxiv/oai/`` are cut into pages of ``page_size`` records
chained by resumptionTokens (OAI-PMH 2.0 §3.5: the last page carries an empty token).
"""

from __future__ import annotations

import contextlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

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


class PagedOaiServer:
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

    def __enter__(self) -> PagedOaiServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                params = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
                with outer._lock:
                    outer.received += 1
                if outer.delay:
                    time.sleep(outer.delay)
                body = outer.page(params)
                with outer._lock:
                    outer.requests.append(params)
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
