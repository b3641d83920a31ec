"""Mega-papers (issue 19): a 3,000-author paper aligned and matched through Semantic Scholar."""

import json

import httpx
import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext

from papers.harvest import harvest_files
from papers.models import Paper, PaperAuthor
from researchers.clients import semanticscholar
from researchers.matching_sources import align_authors
from researchers.models import Authorship, ExternalIdentity, MatchMethod, Researcher
from researchers.records import SourceAuthor
from researchers.services import researchers_match_authors
from tests.conftest import FIXTURES

# Both written by tests/fixtures/semanticscholar/make_edited_3000.py (see the README there).
S2_PAPER = FIXTURES / "semanticscholar" / "edited_paper_2201.11990_3000_authors.json"
ARXIV_RECORD = FIXTURES / "arxiv" / "oai" / "edited_arXiv_2201.11990_3000_authors.xml"
S2_URL = "https://api.semanticscholar.org/graph/v1"
# The script's edits, restated: Semantic Scholar's #1001 is missing from arXiv, arXiv
# positions 1501/1502 and 2201/2202 are swapped neighbours, arXiv #2501 is an author
# Semantic Scholar does not list.
MISSING, SWAPS, EXTRA = 1001, ((1501, 1502), (2201, 2202)), 2501


def expected_source_positions() -> list[int | None]:
    """Semantic Scholar position of each arXiv slot (index 0 is arXiv #1), ``None`` for
    the extra author: the script's edits applied to 1..3000."""
    order: list[int | None] = list(range(1, 3001))
    del order[MISSING - 1]
    for a, b in SWAPS:
        order[a - 1], order[b - 1] = order[b - 1], order[a - 1]
    order.insert(EXTRA - 1, None)
    return order


def s2_fetch(source, arxiv_ids):
    """The Semantic Scholar client answering POST /paper/batch from the edited recording."""
    paper = json.loads(S2_PAPER.read_text())

    def handler(request: httpx.Request) -> httpx.Response:
        ids = json.loads(request.content)["ids"]
        return httpx.Response(200, json=[paper if i == "arXiv:2201.11990" else None for i in ids])

    client = semanticscholar.SemanticScholarClient(
        S2_URL, transport=httpx.MockTransport(handler), sleep=lambda _s: None
    )
    return semanticscholar.fetch_works(client, arxiv_ids)


@pytest.mark.django_db
def test_3000_author_paper_aligns_every_slot_through_semantic_scholar():
    harvest_files(paths=[ARXIV_RECORD])
    paper = Paper.objects.get(arxiv_id="2201.11990")
    assert PaperAuthor.objects.filter(paper=paper, is_collaboration=False).count() == 3000

    with CaptureQueriesContext(connection) as queries:
        summary = researchers_match_authors(sources=["semantic_scholar"], fetch=s2_fetch)
    assert (summary.matched_by_source, summary.matched_locally) == (2999, 1)
    # Bulk writes: a handful of statements for the source record and the local rest, where
    # row-by-row writing took two or more per author (over 6,000).
    assert len(queries) < 100

    source_ids = [a["authorId"] for a in json.loads(S2_PAPER.read_text())["authors"]]
    s2_id_of = dict(
        ExternalIdentity.objects.filter(
            source="semantic_scholar", researcher__authorships__paper=paper
        ).values_list("researcher_id", "external_id")
    )
    rows = Authorship.objects.filter(paper=paper).values_list(
        "slot__position", "slot__name", "researcher_id", "method"
    )
    got = {pos: (name, s2_id_of.get(rid), method) for pos, name, rid, method in rows}
    assert len(got) == 3000

    # Hand-checkable slots (arXiv position: written name, Semantic Scholar author id).
    assert got[1][:2] == ("Shaden Smith", "2110486618")  # a real author of the recording
    assert got[2][:2] == ("M. Patwary", "66870756")
    assert got[21][:2] == ("Michael R. Douglas", "990000021")  # "M. R. Douglas" at the source
    assert got[1000][:2] == ("Lukáš Vokřínek", "990001000")  # TeX accents on arXiv
    assert got[1001][:2] == ("J. M. Pruneda", "990001002")  # after the missing D. Daigle
    assert got[1501][:2] == ("S. Kwok", "990001503")  # swapped neighbours
    assert got[1502][:2] == ("J. Lim", "990001502")
    assert got[2501][1:] == (None, MatchMethod.LOCAL)  # Alexander Tumanov, unknown to the source
    assert got[2502][:2] == ("M. Tröller", "990002502")
    assert got[3000][:2] == ("Alexandre Sukhov", "990003000")

    # Every slot: the source author the script's edits put there.
    expected = expected_source_positions()
    wrong = [
        (pos, got[pos][0], got[pos][1])
        for pos in range(1, 3001)
        if got[pos][1] != (source_ids[expected[pos - 1] - 1] if expected[pos - 1] else None)
    ]
    assert wrong == []

    # Two people of one name on the paper, told apart by their source ids.
    assert got[1199][:2] == ("N. G. Deshpande", "990001200")
    assert got[2399][:2] == ("N. G. Deshpande", "990002400")
    assert got[2701][:2] == ("David B. Fisher", "990002701")
    assert got[2703][:2] == ("David B. Fisher", "990002703")

    # No researcher twice on the paper; one new researcher and one identity per source author
    # (other tests' researchers may share the database: counts are of this paper's).
    on_paper = Authorship.objects.filter(paper=paper)
    twice = on_paper.values("researcher").annotate(n=Count("id")).filter(n__gt=1)
    assert list(twice) == []
    by_source = Researcher.objects.filter(authorships__in=on_paper.exclude(method=MatchMethod.LOCAL))
    assert by_source.distinct().count() == 2999
    assert by_source.filter(paper_count=1).count() == 2999
    assert (
        ExternalIdentity.objects.filter(researcher__in=by_source, source="semantic_scholar").count() == 2999
    )

    # New researchers are written with their counts: the fuller spelling shown, one paper.
    douglas = Researcher.objects.get(authorships__paper=paper, authorships__slot__position=21)
    assert (douglas.display_name, douglas.name_variants, douglas.paper_count) == (
        "Michael R. Douglas",
        ["Michael R. Douglas"],
        1,
    )

    # A second run finds nothing to do and writes nothing.
    before = (Researcher.objects.count(), ExternalIdentity.objects.count(), Authorship.objects.count())
    again = researchers_match_authors(sources=["semantic_scholar"], fetch=s2_fetch)
    assert (again.matched_by_source, again.matched_locally) == (0, 0)
    assert (
        Researcher.objects.count(),
        ExternalIdentity.objects.count(),
        Authorship.objects.count(),
    ) == before


def test_alignment_finds_a_moved_author_beyond_the_window():
    """A source that moves the first author to the end (a corresponding author listed last)
    still aligns: the family-name index reaches past the window around each place."""
    names = [f"Given{chr(97 + i % 26)} Family{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    slots = [(i + 1, name, "", "") for i, name in enumerate(names)]
    order = names[1:] + names[:1]
    authors = [SourceAuthor(position=i + 1, name=n, author_id=str(100 + i)) for i, n in enumerate(order)]
    aligned = align_authors(slots, authors)
    assert aligned[1].name == names[0] and aligned[1].author_id == "139"
    assert [aligned[p].name for p in range(1, 41)] == names


def test_alignment_keeps_two_people_of_one_name_in_order():
    """Two "Wei Wang" on one list, with different source ids: each slot takes the nearer."""
    slots = [(1, "Wei Wang", "Wang", "Wei"), (2, "Ana Lima", "Lima", "Ana"), (3, "Wei Wang", "Wang", "Wei")]
    authors = [
        SourceAuthor(position=1, name="Wei Wang", author_id="1"),
        SourceAuthor(position=2, name="A. Lima", author_id="2"),
        SourceAuthor(position=3, name="Wei Wang", author_id="3"),
    ]
    aligned = align_authors(slots, authors)
    assert {p: a.author_id for p, a in aligned.items()} == {1: "1", 2: "2", 3: "3"}
