"""Curation fixtures: a throw-away signing key, the matched real sample, users, snapshots."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, sample_tables_wipe


@pytest.fixture(autouse=True)
def signing_key_file(tmp_path, settings):
    """Provenance events are signed with a new key under ``tmp_path`` (never var/keys)."""
    path = tmp_path / "keys" / "provenance-ed25519.pem"
    settings.PROVENANCE_SIGNING_KEY_FILE = str(path)
    settings.PROVENANCE_KEY_ID = ""
    return path


@pytest.fixture(scope="package")
def curation_sample(django_db_setup, django_db_blocker):
    """The bundled real sample (2,800 papers) harvested and matched locally, committed once
    for the package and removed afterwards. Tests change it only inside their own
    transaction (the ``db`` fixture rolls it back)."""
    from papers import harvest as paper_harvest
    from researchers.services import researchers_match_authors

    with django_db_blocker.unblock():
        paper_harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
        paper_harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
        summary = researchers_match_authors(sources=[])
        yield summary
        sample_tables_wipe()


@pytest.fixture
def editor_user(db, django_user_model):
    """A staff member of the Editors group (the group and its permissions come from the migration)."""
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("ed", "ed@example.org", "pw-ed-12345", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def snapshot() -> dict[str, list[dict]]:
    """Every row (every column) of the tables curation touches, in id order; but a
    researcher's and an authorship's ``modified_at``, which every write moves on, an undo's
    too (the paper API's Last-Modified must not go back in time)."""
    from researchers.models import Authorship, ExternalIdentity, MatchConstraint, Researcher

    def rows(model) -> list[dict]:
        ordered = model.objects.order_by("pk").values()
        return [{k: v for k, v in row.items() if k != "modified_at"} for row in ordered]

    return {
        "researchers": rows(Researcher),
        "authorships": rows(Authorship),
        "identities": list(ExternalIdentity.objects.order_by("pk").values()),
        "constraints": list(MatchConstraint.objects.order_by("pk").values()),
    }


def researcher_of(arxiv_id: str, position: int):
    """The researcher holding author slot ``position`` of paper ``arxiv_id``."""
    from researchers.models import Authorship

    return (
        Authorship.objects.select_related("researcher")
        .get(slot__paper__arxiv_id=arxiv_id, slot__position=position)
        .researcher
    )
