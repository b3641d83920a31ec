"""The Procfile's gunicorn worker: gthread, but a request line too long to read answers JSON."""

from __future__ import annotations

import json
from typing import Any

from gunicorn import util
from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

# gunicorn's own limit (wove.gunicorn_conf.limit_request_line, its maximum) and ours
# (settings.MAX_REQUEST_LINE); this module runs in gunicorn's master, before Django loads.
GUNICORN_LIMIT = 8190
SITE_LIMIT = 4094


def too_long_response() -> bytes:
    """The whole HTTP/1.1 answer to a request line over :data:`GUNICORN_LIMIT` bytes: 414
    with the API's ``Error`` body (``status``, ``code``, ``detail``, ``errors``: the shape of
    ``wove.errors.Error``), ``Connection: close``. Such a line is refused before its path is
    read, so pages get it too; a line between the two limits reaches Django, whose
    middleware answers pages with HTML."""
    body = json.dumps(
        {
            "status": 414,
            "code": "uri_too_long",
            "detail": f"The request line is over {GUNICORN_LIMIT:,} bytes long; "
            f"this server reads at most {SITE_LIMIT:,}.",
            "errors": None,
        }
    ).encode()
    head = (
        "HTTP/1.1 414 URI Too Long\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        "Cache-Control: no-store\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class JsonErrorThreadWorker(ThreadWorker):
    """gunicorn's threaded worker (``--threads``), whose answer to a request line gunicorn
    cannot read (:class:`LimitRequestLine`) is :func:`too_long_response` instead of its
    HTML page; every other error is gunicorn's own handling."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if not isinstance(exc, LimitRequestLine):
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, too_long_response())
        except OSError:
            self.log.debug("Failed to send error message.")
