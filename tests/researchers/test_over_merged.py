"""Over-merged registry profiles are never link targets (issue 32, ourresearch/OpenAlex#5).

The profile is a real OpenAlex author response edited as little as possible
(``tests/fixtures/openalex/A5017898742_edited_over_merged.json``: Joseph Mearman's, its
``works_count`` raised from 9 to 48,000 and its ``affiliations`` grown from Bangor University
alone to 60 real institutions in 2019-2023; ``make_edited_over_merged.py`` beside it). The
work is the real W3188841554 (arXiv 2108.04680), which names that profile for Mearman.
"""

from __future__ import annotations

import json

import httpx
import pytest

from papers.models import Paper, PaperAuthor
from researchers.clients import openalex
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship, ExternalIdentity, MatchMethod, SlotReview
from researchers.over_merged import profile_implausible
from researchers.records import SourceAuthor, SourceWork
from researchers.services import researchers_match_authors
from tests.conftest import FIXTURES

OA = FIXTURES / "openalex"
OVER_MERGED = "A5017898742"


def profile(name: str):
    return openalex.parse_profile(json.loads((OA / name).read_text()))


def test_profile_too_large_for_one_person():
    real, edited = profile("A5017898742.json"), profile("A5017898742_edited_over_merged.json")
    assert (real.works_count, len(real.institutions)) == (9, 1)
    assert real.institutions == {"I161548249": (2014, 2015, 2016, 2021)}  # Bangor University
    assert profile_implausible(real) == ""
    assert (edited.works_count, len(edited.institutions)) == (48_000, 60)
    assert profile_implausible(edited) == "48,000 works (more than 5,000)"
    # Sixty institutions in 2019-2023 are implausible on their own, with the real 9 works.
    edited.works_count = 9
    assert profile_implausible(edited) == "60 institutions within 5 years (more than 40)"
    assert profile_implausible(None) == ""
    # A long-serving LHC physicist signs every collaboration paper: 3,400 works at one
    # institution is a real career (ATLAS and CMS members since 2008), never refused.
    real.works_count = 3_400
    assert profile_implausible(real) == ""


def test_openalex_fetch_reads_the_authors_profiles():
    work = json.loads((OA / "W3188841554.json").read_text())
    author = json.loads((OA / "A5017898742_edited_over_merged.json").read_text())
    asked = []

    def replay(request: httpx.Request) -> httpx.Response:
        asked.append((request.url.path, request.url.params["filter"]))
        if request.url.path.endswith("/authors"):
            return httpx.Response(200, json={"meta": {"count": 1}, "results": [author]})
        return httpx.Response(200, json={"meta": {"count": 1}, "results": [work]})

    client = openalex.OpenAlexClient(
        "https://api.openalex.org", transport=httpx.MockTransport(replay), sleep=lambda s: None
    )
    [fetched] = openalex.fetch_works(client, ["2108.04680"])
    assert asked[1] == (
        "/authors",
        "openalex:A5009341822|A5017898742|A5032473237|A5040558747|A5065371627",
    )
    assert list(fetched.profiles) == [OVER_MERGED]
    assert fetched.profiles[OVER_MERGED].works_count == 48_000


def _paper(arxiv_id: str, authors: list[tuple[str, str, list[str]]]) -> Paper:
    paper = Paper.objects.create(arxiv_id=arxiv_id, slug="x", title="t", categories=["cs.HC"])
    for i, (keyname, forenames, affiliations) in enumerate(authors, start=1):
        PaperAuthor.objects.create(
            paper=paper,
            position=i,
            name=f"{forenames} {keyname}",
            keyname=keyname,
            forenames=forenames,
            affiliations=affiliations,
        )
    return paper


@pytest.mark.django_db
def test_an_over_merged_profile_is_never_a_link_target():
    # Joseph W. Mearman as this archive knows him: one paper at Bangor with Roberts and Ritsos
    # (matched on the archive's own evidence, a record of normal size).
    bangor = ["Bangor University"]
    _paper(
        "2107.00001",
        [
            ("Mearman", "Joseph W.", bangor),
            ("Roberts", "Jonathan C.", bangor),
            ("Ritsos", "Panagiotis D.", bangor),
        ],
    )
    researchers_match_local()
    known = Authorship.objects.get(paper__arxiv_id="2107.00001", slot__position=1).researcher

    # 2108.04680: OpenAlex names the over-merged profile for Mearman; Bangor and his two
    # co-authors agree with the record above, so the slot goes there, on that evidence.
    _paper(
        "2108.04680",
        [("Roberts", "Jonathan C.", []), ("Mearman", "Joseph W.", []), ("Ritsos", "Panagiotis D.", [])],
    )
    work = openalex.parse_work(json.loads((OA / "W3188841554.json").read_text()))
    over = profile("A5017898742_edited_over_merged.json")
    work.profiles = {OVER_MERGED: over}
    # 2109.00003: the same profile for "J. Mearman" at Tsinghua with Wei Li: only the name.
    _paper("2109.00003", [("Mearman", "J.", ["Tsinghua University"]), ("Li", "Wei", [])])
    other = SourceWork(
        "openalex",
        "2109.00003",
        [
            SourceAuthor(1, "Joseph Mearman", OVER_MERGED, affiliations=["Tsinghua University"]),
            SourceAuthor(2, "Wei Li"),
        ],
        profiles={OVER_MERGED: over},
    )
    summary = researchers_match_authors(sources=["openalex"], fetch=lambda s, ids: [work, other])

    linked = Authorship.objects.get(paper__arxiv_id="2108.04680", slot__position=2)
    assert (linked.researcher_id, linked.method, linked.confidence) == (known.pk, MatchMethod.LOCAL, 0.6)
    assert linked.evidence == [
        {"kind": "coauthors", "count": 2, "values": ["Jonathan C. Roberts", "Panagiotis D. Ritsos"]},
        {"kind": "affiliation", "count": 1, "values": ["Bangor University"]},
        {"kind": "name", "name": "Joseph W. Mearman", "block": "j mearman"},
    ]
    # Nobody holds the over-merged profile's id: nothing can pull its works in.
    assert not ExternalIdentity.objects.filter(source="openalex", external_id=OVER_MERGED).exists()
    # Only the name agrees: not linked, left for an editor with the block's record as candidate.
    assert not Authorship.objects.filter(paper__arxiv_id="2109.00003", slot__position=1).exists()
    review = SlotReview.objects.get(slot__paper__arxiv_id="2109.00003", slot__position=1)
    assert review.candidates == [known.pk]
    # The other authors of both papers are matched by OpenAlex as before.
    assert (
        Authorship.objects.filter(paper__arxiv_id="2108.04680", method=MatchMethod.EXTERNAL_ID).count() == 2
    )
    assert Authorship.objects.filter(paper__arxiv_id="2109.00003", slot__position=2).exists()
    assert summary.left_for_review == 1 and known.authorships.count() == 2
