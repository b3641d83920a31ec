"""Shared fixtures: paths to recorded data, personas, and the loaded real sample."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE_OAI_ARXIV = ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml"
SAMPLE_OAI_RAW = ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml"
SAMPLE_KAGGLE = ROOT / "data" / "arxiv" / "kaggle" / "weaviate_metadata_1000.lines0001-0800.json"


@pytest.fixture
def fixtures_dir() -> Path:
    """``tests/fixtures``: recorded real responses, by source."""
    return FIXTURES


@pytest.fixture
def sample_papers(db):
    """The whole bundled real sample (2,800 papers) harvested as `make demo` does."""
    from papers import services

    services.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    services.harvest_kaggle(path=SAMPLE_KAGGLE)


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
