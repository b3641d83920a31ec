"""A stand-in for ORCID's OAuth 2 and public API on 127.0.0.1: authorize, token, record.

Tests never reach orcid.org. :func:`orcid_standin` serves, on a free port:

- ``GET /oauth/authorize?client_id&response_type=code&scope=/authenticate&redirect_uri&state``:
  the person of :attr:`OrcidStandIn.person` "signs in and authorises" at once: 302 to
  ``redirect_uri?code=<code>&state=<state>`` (ORCID's authorize page does the same after the
  person clicks Authorize).
- ``POST /oauth/token`` (form: ``client_id``, ``client_secret``, ``grant_type``, ``code``,
  ``redirect_uri``): the token response of ``tests/fixtures/orcid/edited_token_response.json``
  with the person's ``orcid`` and ``name``; 401 ``invalid_client`` for another client, 400
  ``invalid_grant`` for an unknown or used code or another ``redirect_uri``.
- ``GET /v3.0/<iD>/record``: ORCID's sample record (``record-full-3.0.json``) edited to the
  iD and name (fixture README).

Every request is kept in :attr:`OrcidStandIn.requests` (method, path, form) for assertions.
"""

from __future__ import annotations

import copy
import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.conftest import FIXTURES

ORCID_FIXTURES = FIXTURES / "orcid"
CLIENT_ID = "APP-STANDIN0000000"
CLIENT_SECRET = "standin-secret-0000"  # noqa: S105 - a test stand-in's secret
# ORCID's public fictitious test identity (/work/shared/data/orcid/orcid_ids.csv).
CARBERRY = ("0000-0002-1825-0097", "Josiah", "Carberry")


@dataclass
class OrcidStandIn:
    """The running stand-in: ``base`` (``http://127.0.0.1:<port>``), the ``person``
    (``(iD, given names, family name)``) the next authorisation signs in, the codes issued
    and every request seen."""

    base: str
    person: tuple[str, str, str] = CARBERRY
    codes: dict[str, dict] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)

    def settings_for(self) -> dict:
        """The Django settings pointing allauth's ORCID provider here, with the stand-in's client."""
        return {
            "ORCID_BASE_URL": self.base,
            "ORCID_API_BASE_URL": self.base,
            "SOCIALACCOUNT_PROVIDERS": {
                "orcid": {
                    "provider_class": "accounts.orcid.provider.OrcidProvider",
                    "APP": {"client_id": CLIENT_ID, "secret": CLIENT_SECRET, "key": ""},
                }
            },
        }


def _record(orcid: str, given: str, family: str) -> dict:
    record = json.loads((ORCID_FIXTURES / "record-full-3.0.json").read_text())
    record["orcid-identifier"] = {"uri": f"https://orcid.org/{orcid}", "path": orcid, "host": "orcid.org"}
    name = record["person"]["name"]
    name["given-names"] = {"value": given}
    name["family-name"] = {"value": family}
    name["path"] = orcid
    return record


def _handler(state: OrcidStandIn) -> type[BaseHTTPRequestHandler]:
    token_template = json.loads((ORCID_FIXTURES / "edited_token_response.json").read_text())

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output quiet
            return

        def _send(self, status: int, body: dict | None = None, headers: dict | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if body is not None:
                self.send_header("Content-Type", "application/json;charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            state.requests.append({"method": "GET", "path": url.path, "query": query})
            if url.path == "/oauth/authorize":
                if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
                    self._send(400, {"error": "invalid_request"})
                    return
                code = secrets.token_urlsafe(6)
                state.codes[code] = {"redirect_uri": query.get("redirect_uri"), "person": state.person}
                back = urlencode({"code": code, "state": query.get("state", "")})
                self._send(302, headers={"Location": f"{query.get('redirect_uri')}?{back}"})
                return
            parts = url.path.strip("/").split("/")
            if len(parts) == 3 and parts[0] == "v3.0" and parts[2] == "record":
                known = {c["person"][0]: c["person"] for c in state.codes.values()}
                person = known.get(parts[1])
                if person is None:
                    self._send(404, {"response-code": 404, "developer-message": f"no record {parts[1]}"})
                    return
                self._send(200, _record(*person))
                return
            self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            state.requests.append({"method": "POST", "path": url.path, "form": form})
            if url.path != "/oauth/token":
                self._send(404, {"error": "not_found"})
                return
            if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
                self._send(401, {"error": "invalid_client"})
                return
            issued = state.codes.get(form.get("code", ""))
            if (
                issued is None
                or issued.get("used")
                or form.get("grant_type") != "authorization_code"
                or form.get("redirect_uri") != issued["redirect_uri"]
            ):
                self._send(400, {"error": "invalid_grant", "error_description": "Invalid authorization code"})
                return
            issued["used"] = True
            orcid, given, family = issued["person"]
            token = copy.deepcopy(token_template)
            token.update(orcid=orcid, name=f"{given} {family}")
            self._send(200, token)

    return Handler


@contextmanager
def orcid_standin(person: tuple[str, str, str] = CARBERRY) -> Iterator[OrcidStandIn]:
    """Run the stand-in in a thread on a free 127.0.0.1 port for the ``with`` block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = OrcidStandIn(base=f"http://127.0.0.1:{server.server_address[1]}", person=person)
    server.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
