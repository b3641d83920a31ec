"""Fixtures for the accounts tests: a small real archive, signed-up readers, follows.

The two OAI files are real arXivRaw records cut from ``data/arxiv/oai/arxivsync_47001.xml``
and re-wrapped in that response's envelope without its resumptionToken (hence ``edited``):

- ``edited_accounts_follows_arXivRaw.xml`` (13 records): Uwe Aickelin's six papers
  (0801.3971, 0801.4119, 0801.4287, 0801.4307, 0801.4312, 0801.4314, all cs.NE), Jocelyne
  Troccaz's four (0801.3711, 0801.3965, 0801.4355, 0801.4483, cs.OH) and three with a Johns
  Hopkins ("JHU") affiliation (0801.3849, 0801.4381, 0801.4386, astro-ph).
- ``edited_accounts_later_arXivRaw.xml`` (4 records), harvested "later" in the tests: the
  three cs.DC papers 0801.3710, 0801.4082, 0801.4150 and 0801.4549 (quant-ph, MIT).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import FIXTURES, ROOT

OAI = FIXTURES / "arxiv" / "oai"
FOLLOWS_XML = OAI / "edited_accounts_follows_arXivRaw.xml"
LATER_XML = OAI / "edited_accounts_later_arXivRaw.xml"
ROR_DUMP = ROOT / "data" / "ror" / "ror_records_v2.json"
JHU_ROR = "00za53h95"
PASSWORD = "quiet-harbour-4821"


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """allauth counts rate limits (one confirmation mail per address per 3 minutes, sign-ups
    per IP) in the cache, which outlives a test: start each test with none."""
    from django.core.cache import cache

    cache.clear()


def harvest(path) -> None:
    """Harvest one OAI file, then match affiliations and authors as ``make sample`` does."""
    from institutions.services import affiliations_match
    from papers.harvest import harvest_files
    from researchers.services import researchers_match_authors

    harvest_files(paths=[path])
    affiliations_match()
    researchers_match_authors(sources=[])


@pytest.fixture
def archive(db):
    """The 13 papers of ``FOLLOWS_XML`` harvested and matched, with the 40 real ROR records;
    returns ``{"aickelin", "troccaz", "jhu"}`` (a Researcher, a Researcher, an Institution)."""
    from institutions.models import Institution
    from institutions.services import institutions_load
    from papers.models import Category
    from papers.taxonomy import load_taxonomy
    from researchers.models import Researcher

    if not Category.objects.filter(code="cs.DC", active=True).exists():
        # A transactional test (browser, concurrency) flushed the migration's taxonomy.
        load_taxonomy(Category)
    institutions_load(paths=[ROR_DUMP])
    harvest(FOLLOWS_XML)
    return {
        "aickelin": Researcher.objects.get(display_name="Uwe Aickelin"),
        "troccaz": Researcher.objects.get(display_name="Jocelyne Troccaz"),
        "jhu": Institution.objects.get(ror_id=JHU_ROR),
    }


def make_reader(email: str, *, verified: bool = True):
    """A user signed up with ``email`` (verified through allauth's EmailAddress unless told
    otherwise), password :data:`PASSWORD`."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(email.split("@")[0], email, PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


@pytest.fixture
def reader(db):
    """A signed-up reader with a verified address (not logged in)."""
    return make_reader("ada@example.org")


@pytest.fixture
def follower(client, reader):
    """The reader's logged-in test client (the "follower" persona)."""
    client.force_login(reader)
    return client


def backdate_follows(user, days: int = 1) -> None:
    """Move the start of every follow of ``user`` ``days`` back, as if they followed before
    the archive's last harvest."""
    from accounts.models import Follow

    Follow.objects.filter(user=user).update(created_at=timezone.now() - timedelta(days=days))


# Josiah Carberry's iD: ORCID's fictitious test identity, the stand-in's person.
CARBERRY = "0000-0002-1825-0097"


def aickelin_claimed(archive):
    """Uwe Aickelin's record given Carberry's iD and claimed by a new user whose ORCID sign-in
    proves it (issue 31); returns ``(researcher, user)``, the researcher read again."""
    from curation.claims import researcher_claim
    from researchers.models import Researcher

    aickelin = archive["aickelin"]
    Researcher.objects.filter(pk=aickelin.pk).update(orcid=CARBERRY)
    user = make_reader("uwe@example.org")
    researcher_claim(user=user, researcher_id=aickelin.pk, verified_orcid=CARBERRY)
    aickelin.refresh_from_db()
    return aickelin, user
