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


# What the migrations seeded (arXiv's taxonomy, the CMS pages, the Editors group...), read
# once after the test database is made; put back after every transactional test's flush.
SEEDED: list[str] = []


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and a snapshot of what its migrations seeded."""
    from django.db import connection

    with django_db_blocker.unblock():
        SEEDED[:] = [connection.creation.serialize_db_to_string()]
        # Closed here: left open, this session (its 100-odd server-side cursors read) stayed
        # idle beside the tests' own and outlived them.
        connection.close()


def seeded_restore(snapshot: str) -> None:
    """Empty every table and put back ``snapshot`` (``serialize_db_to_string()``), as a
    serialized rollback does: no post_migrate rows, the snapshot's instead. Sequences keep
    counting: reset, they would hand out the restored rows' ids again (a later insert into
    the search log, say, would collide with a restored row)."""
    from django.core.management import call_command
    from django.db import connection

    assert connection.settings_dict["NAME"].startswith("test_"), "not the test database"
    call_command("flush", verbosity=0, interactive=False, inhibit_post_migrate=True, reset_sequences=False)
    connection.creation.deserialize_db_from_string(snapshot)


def _transactional(item: pytest.Item) -> bool:
    """Whether ``item`` commits (a flush empties the tables after it), as pytest-django
    decides when it orders the tests."""
    marker = item.get_closest_marker("django_db")
    fixtures = getattr(item, "fixturenames", ())
    return bool(
        (marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")))
        or "transactional_db" in fixtures
        or "live_server" in fixtures
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each API operation's schemathesis test (``tests/api/test_schemathesis.py``) is named for
    its operation but shares one node id with the others (schemathesis 4 builds it from the
    bare test name; pytest 9 keeps ids as ``NodeId``); pytest-xdist schedules by node id and
    ran one of the 22. The id gains the operation, as the name has it."""
    from _pytest.nodeid import coerce_node_id

    for item in items:
        label = getattr(item, "operation_label", None)
        if label and not item.nodeid.endswith("]"):
            item._id = coerce_node_id(f"{item.nodeid}[{label}]")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem):
    """After a transactional test's flush, the seeded rows come back (as a serialized
    rollback restores them; post_migrate's own rows are replaced by the snapshot's).
    pytest-django runs the transactional tests last for this reason; run across pytest-xdist
    workers by file, a worker's next test may be one that reads them."""
    yield
    if not SEEDED or nextitem is None or not _transactional(item):
        return  # nextitem None: the session's test database is gone already
    from pytest_django.plugin import blocking_manager_key

    with item.config.stash[blocking_manager_key].unblock():
        seeded_restore(SEEDED[0])


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


def sample_tables_wipe() -> None:
    """Remove a committed sample (papers, researchers, harvest runs, collaborations and all that
    hangs on them) with one TRUNCATE: the ORM's cascading delete of 2,800 papers takes tens
    of seconds, and collaborations have no foreign key to a paper, so no cascade reaches them."""
    from django.db import connection

    from papers.models import Collaboration, HarvestRun, Paper
    from researchers.models import Researcher

    tables = [m._meta.db_table for m in (Researcher, Paper, HarvestRun, Collaboration)]
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # inside a test's transaction: no pending checks
        cursor.execute(f"TRUNCATE {', '.join(tables)} CASCADE")


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
