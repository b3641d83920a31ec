"""The real sample harvested and matched once for the researchers tests that read it."""

import pytest

from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, sample_tables_wipe


@pytest.fixture(scope="package")
def matched_sample(django_db_setup, django_db_blocker):
    """The bundled sample (2,800 papers) harvested as `make demo` does, then matched locally
    (no source enabled). Committed once for the package and removed afterwards, so tests
    read it without paying the ~5 s harvest each time; tests must not modify it."""
    from papers import harvest as paper_harvest
    from researchers.services import researchers_match_authors

    with django_db_blocker.unblock():
        paper_harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
        paper_harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
        summary = researchers_match_authors(sources=[])
        yield summary
        sample_tables_wipe()
