"""The interactive docs in a real browser: Swagger UI renders offline under its own CSP.

Chromium's requests are answered in-process (Playwright routing to Django's test client and
the static-file finders), so no server is started and nothing leaves the machine: a request
to any other host (a CDN) is refused and recorded.
"""

from __future__ import annotations

import contextvars
import mimetypes
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.staticfiles import finders

from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

ORIGIN = "http://testserver"


def _serve(client, outside: list[str]):
    # Playwright calls route handlers in its own greenlet, whose context holds none of the
    # test's Django connections: a request opened a second one, outside the test's
    # transaction (none of its rows visible), and left it open past the session. Requests
    # run in a copy of the test's context: on the test's connection.
    context = contextvars.copy_context()

    def handle(route):
        url = urlsplit(route.request.url)
        if f"{url.scheme}://{url.netloc}" != ORIGIN:
            outside.append(route.request.url)
            route.abort()
            return
        if url.path.startswith("/static/"):
            found = finders.find(url.path[len("/static/") :])
            if not found:
                route.fulfill(status=404, body="")
                return
            kind = mimetypes.guess_type(found)[0] or "application/octet-stream"
            route.fulfill(status=200, body=Path(found).read_bytes(), headers={"Content-Type": kind})
            return
        response = context.run(client.get, url.path + (f"?{url.query}" if url.query else ""))
        headers = {k: v for k, v in response.items()}
        route.fulfill(status=response.status_code, body=response.content, headers=headers)

    return handle


def test_swagger_ui_renders_every_operation_offline(api, page):
    outside: list[str] = []
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.route("**/*", _serve(api, outside))
    page.goto(f"{ORIGIN}/api/docs")
    page.wait_for_selector(".opblock", timeout=20_000)
    summaries = page.locator(".opblock-summary-path").all_inner_texts()
    screenshot(page, "api-docs")
    assert outside == []
    assert not [p for p in problems if "Content Security Policy" in p], problems
    assert "/api/v1/papers/batch" in [s.replace("\u200b", "") for s in summaries]
    assert len(summaries) >= 15
    assert page.locator(".info .title").inner_text().startswith("wovepaper API")
