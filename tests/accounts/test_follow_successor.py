"""A followed institution that ROR withdraws keeps its followers' feed and digest going
through the active record that replaced it.

Real ROR records edited with what ROR's curators recorded (tests/fixtures/ror/README.md;
ror-community/ror-updates #10836 and #10837): until 2023 03z7kp760 was "Asia University"
and 038a1tp19 "Asian University"; then 03z7kp760 was withdrawn with 038a1tp19 as its
successor, renamed "Asia University". The affiliations stage moves every link to the
successor, so before this change a follower of 03z7kp760 saw no paper after the withdrawal.
"""

from __future__ import annotations

import pytest

from accounts import selectors, services
from accounts.models import Follow
from institutions.models import Institution
from institutions.services import affiliations_match, institutions_load
from papers.models import Paper, PaperAuthor
from tests.institutions.conftest import ROR_FIXTURES

pytestmark = pytest.mark.django_db

ASIA_ACTIVE_2023 = ROR_FIXTURES / "edited_03z7kp760_asia_university_active.json"
ASIAN_2023 = ROR_FIXTURES / "edited_038a1tp19_asian_university.json"
ASIA_WITHDRAWN = ROR_FIXTURES / "edited_03z7kp760_asia_university_withdrawn.json"
ASIA = ROR_FIXTURES / "edited_038a1tp19_asia_university.json"
ASIA_STRING = "Department of Computer Science and Information Engineering, Asia University, Taichung, Taiwan"


def _paper(arxiv_id: str) -> Paper:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug="a-paper", title="A paper")
    PaperAuthor.objects.create(paper=paper, position=1, name="A. Author", affiliations=[ASIA_STRING])
    return paper


@pytest.fixture
def withdrawn(reader):
    """The reader follows 03z7kp760 while it is active, with one paper matched to it; then
    the newer dump withdraws it and a second paper arrives. Returns ``(old, new)`` records."""
    institutions_load(paths=[ASIA_ACTIVE_2023, ASIAN_2023])
    _paper("2301.00001")
    affiliations_match(pending_only=True)
    old = Institution.objects.get(ror_id="03z7kp760")
    services.follow_create(user_id=reader.pk, target=old)
    institutions_load(paths=[ASIA_WITHDRAWN, ASIA])
    _paper("2401.00002")
    affiliations_match(pending_only=True)
    old.refresh_from_db()
    return old, Institution.objects.get(ror_id="038a1tp19")


def test_the_feed_and_digest_follow_the_successor(reader, withdrawn):
    old, new = withdrawn
    # Both papers' links are on the successor now: the old record holds none.
    assert (old.author_links.count(), new.author_links.count()) == (0, 2)
    feed = [p.arxiv_id for p in selectors.papers_for_user(reader.pk)]
    assert feed == ["2401.00002", "2301.00001"]
    # Only the paper that arrived after the follow began is news.
    assert [p.arxiv_id for p in selectors.digest_candidates(reader.pk)] == ["2401.00002"]
    paper = Paper.objects.get(arxiv_id="2401.00002")
    assert selectors.follow_reasons(reader.pk, [paper.pk]) == {paper.pk: ["from Asia University"]}
    assert new.name == "Asia University"


def test_the_following_page_names_the_successor(follower, withdrawn):
    old, new = withdrawn
    html = follower.get("/accounts/following").content.decode()
    assert (
        f'<a href="{old.get_absolute_url()}">Asia University</a> (now '
        f'<a href="{new.get_absolute_url()}">Asia University</a>: its papers are in your feed)'
    ) in html
    assert "arXiv:2401.00002" in html


def test_following_a_withdrawn_record_follows_its_successor(reader, withdrawn):
    old, new = withdrawn
    Follow.objects.filter(user=reader).delete()
    follow, created = services.follow_create(user_id=reader.pk, target=old)
    assert (follow.institution_id, created) == (new.pk, True)
