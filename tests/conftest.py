"""Shared fixtures: paths to recorded data, personas, and the loaded real sample."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests draw the same examples on every run (CI must not turn red on a new random
# draw); `HYPOTHESIS_PROFILE=explore` draws fresh ones, for hunting new edge cases by hand.
hypothesis_settings.register_profile("wove", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "wove"))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE_OAI_ARXIV = ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml"
SAMPLE_OAI_RAW = ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml"
CHROMIUM = os.environ.get("WOVE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
# Every page kind at both widths (tests/browser/test_validators.py): screenshots, the HTML sent,
# axe-core's findings. Named at the end of a run that wrote them (pytest_terminal_summary).
PAGE_ARTIFACTS = ROOT / "var" / "test-artifacts" / "pages"
ARTIFACT_DIRS_WRITTEN: list[Path] = []
SAMPLE_KAGGLE = ROOT / "data" / "arxiv" / "kaggle" / "weaviate_metadata_1000.lines0001-0800.json"


@pytest.fixture(autouse=True)
def _process_cache_cleared():
    """Each test starts with an empty ``process`` cache (the schema and taxonomy facts each
    process keeps: wove/settings.py), as a newly started process does."""
    from django.core.cache import caches

    caches["process"].clear()


@pytest.fixture
def fixtures_dir() -> Path:
    """``tests/fixtures``: recorded real responses, by source."""
    return FIXTURES


@pytest.fixture
def sample_papers(db):
    """The whole bundled real sample (2,800 papers) harvested as `make demo` does."""
    from papers import harvest

    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    harvest.harvest_kaggle(path=SAMPLE_KAGGLE)


@pytest.fixture
def visitor(client):
    """An anonymous visitor's test client."""
    return client


@pytest.fixture
def editor(db, client, django_user_model):
    """A logged-in staff member of the Editors group (the group exists once curation lands)."""
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(
        "editor", "editor@example.org", "pw-editor-123", is_staff=True
    )
    group, _ = Group.objects.get_or_create(name="Editors")
    user.groups.add(group)
    client.force_login(user)
    return client


# Real-browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser).
# Defined once here so the whole session shares one Playwright (its sync API refuses a
# second instance while one is running).


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


def pytest_terminal_summary(terminalreporter):
    """Say where this run's browser artefacts are."""
    for path in ARTIFACT_DIRS_WRITTEN:
        terminalreporter.write_line(f"browser artefacts: {path}")
