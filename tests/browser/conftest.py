"""Real-browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("WOVE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium; skips when Debian's chromium package is not installed."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; Django's ORM must be allowed
    # to run beside it in the tests that set up data.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    """A fresh browser page (1280×900); closed after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under ``test-artifacts/`` and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
