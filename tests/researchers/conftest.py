"""The real sample harvested and matched once for the researchers tests that read it."""

import pytest

from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, _transactional, sample_tables_wipe

# Whether matched_sample's rows are committed now (from its first user to the package's end).
_SAMPLE = {"committed": False}


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
        _SAMPLE["committed"] = True
        try:
            yield summary
        finally:
            _SAMPLE["committed"] = False
            sample_tables_wipe()


@pytest.fixture(autouse=True)
def _matched_sample_out_of_sight(request):
    """A test that does not ask for the matched sample starts from an empty archive even
    when an earlier test of its worker committed the sample: the sample's tables are emptied
    inside the test's transaction, which rolls back after it, so the next test that reads
    the sample still finds it. (Run alone, ``tests/researchers`` on two workers failed 7
    tests that count researchers, authorships or blocks: they saw the sample's 7,605.)
    A transactional test commits and flushes; pytest-django runs those after all others."""
    if not _SAMPLE["committed"] or "matched_sample" in request.fixturenames or _transactional(request.node):
        return
    request.getfixturevalue("db")
    sample_tables_wipe()
