"""Name parts in matching: folding, CJK order, two profiles of one person (BUGS.md DIS-02/03/04).

Source answers are the edited recordings ``tests/fixtures/openalex/edited_name_parts_works.json``
and ``tests/fixtures/semanticscholar/edited_name_parts_papers.json`` (see the fixtures README),
replayed through the source matching service as the real recordings are in test_sources.py.
"""

import copy
import json
from datetime import UTC, datetime

import pytest

from papers.models import Category, Paper, PaperAuthor, PaperVersion
from researchers.clients import openalex, semanticscholar
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship, Researcher
from researchers.names import names_compatible, parse_name
from researchers.selectors import slots_for_review
from researchers.services import researchers_match_authors
from tests.conftest import FIXTURES

OA_WORKS = json.loads((FIXTURES / "openalex" / "edited_name_parts_works.json").read_text())
S2_PAPERS = json.loads((FIXTURES / "semanticscholar" / "edited_name_parts_papers.json").read_text())


def paper(arxiv_id: str, authors: list[tuple[str, str, str]], categories=("cs.LG",), affiliation=""):
    """A paper whose slots are ``(name, keyname, forenames)`` in order, signable (submitted,
    with a primary category and a version) so curation can append its events to it."""
    primary, _ = Category.objects.get_or_create(code=categories[0], defaults={"name": categories[0]})
    p = Paper.objects.create(
        arxiv_id=arxiv_id,
        slug="p",
        title=f"Paper {arxiv_id}",
        categories=list(categories),
        primary_category=primary,
        submitted_at=datetime(2023, 2, 1, tzinfo=UTC),
    )
    PaperVersion.objects.create(paper=p, version=1, submitted_at=p.submitted_at)
    for position, (name, keyname, forenames) in enumerate(authors, start=1):
        PaperAuthor.objects.create(
            paper=p,
            position=position,
            name=name,
            keyname=keyname,
            forenames=forenames,
            affiliations=[affiliation] if affiliation and position == 1 else [],
        )
    return p


def oa_work(key: str, arxiv_id: str | None = None):
    """The edited OpenAlex work ``key``, answered for ``arxiv_id`` (its DOI set to it)."""
    data = copy.deepcopy(OA_WORKS[key])
    if arxiv_id:
        data["doi"] = f"https://doi.org/10.48550/arxiv.{arxiv_id}"
    return openalex.parse_work(data)


def s2_work(key: str):
    return semanticscholar.parse_paper(S2_PAPERS[key])


def match(works, source=None):
    """One matching run (sources, then local) in which each source answers with its ``works``
    (a list for ``source``, or ``{source: works}``)."""
    by_source = works if isinstance(works, dict) else {source: works}
    return researchers_match_authors(
        sources=list(by_source), fetch=lambda s, ids: [w for w in by_source[s] if w.arxiv_id in ids]
    )


def researcher_of(arxiv_id: str, position: int = 1) -> Researcher:
    return (
        Authorship.objects.select_related("researcher")
        .get(slot__paper__arxiv_id=arxiv_id, slot__position=position)
        .researcher
    )


# --------------------------------------------------------------------------- DIS-03


@pytest.mark.django_db
def test_dis03c_umlaut_forms_with_one_orcid_are_one_researcher():
    """BUGS.md DIS-03 (c): ``Jörg Grünewald`` (Semantic Scholar) on a paper whose arXiv slot
    reads ``Joerg Gruenewald``, and ``Jorg Grunewald`` (OpenAlex) on a paper whose slot reads
    ``Jörg Grünewald``, all with ORCID 0000-0000-5772-1563: one researcher, both papers."""
    paper("2301.00005", [("Joerg Gruenewald", "Gruenewald", "Joerg")])
    paper("2301.00006", [("Jörg Grünewald", "Grünewald", "Jörg")])
    match({"semantic_scholar": [s2_work("dis03_jorg")], "openalex": [oa_work("dis03_jorg")]})
    first, second = researcher_of("2301.00005"), researcher_of("2301.00006")
    assert first == second
    assert first.orcid == "0000-0000-5772-1563"
    first.refresh_from_db()
    assert first.paper_count == 2
    assert sorted(first.name_variants) == ["Joerg Gruenewald", "Jörg Grünewald"]
    assert Researcher.objects.count() == 1


def test_dis03c_match_keys_try_both_umlaut_foldings():
    """BUGS.md DIS-03 (c): ü = ue = u for given names as for family names (one block, compatible)."""
    names = [parse_name(n) for n in ("Jörg Grünewald", "Joerg Gruenewald", "Jorg Grunewald")]
    assert {n.block for n in names} == {"j grunewald"}

    assert all(names_compatible(a, b) for a in names for b in names)


def test_dis03d_typographic_apostrophe_gives_the_same_key():
    """BUGS.md DIS-03 (d): ``Lucia D’Amico`` (U+2019) and ``Lucia D'Amico``: one key, written forms kept."""
    curly, straight = parse_name("Lucia D\u2019Amico"), parse_name("Lucia D'Amico")
    assert (
        (curly.key, curly.block, curly.given)
        == (straight.key, straight.block, straight.given)
        == (
            "damico",
            "l damico",
            ("lucia",),
        )
    )
    assert curly.raw == "Lucia D\u2019Amico"


def tomas_researchers(*, r2_first: bool = False):
    """R1 ``Tomás Peña`` (ORCID …3141-5920, Universidad de Chile, co-author Ana Ruiz) and R2
    ``Tomas Pena`` (ORCID …6180-3393, University of Toronto), attached through OpenAlex;
    ``r2_first`` creates R2's paper and record first (so order cannot decide a test)."""
    papers = [
        (
            "2304.00001",
            [("Tomás Peña", "Peña", "Tomás"), ("Ana Ruiz", "Ruiz", "Ana")],
            "cs.LG",
            "Universidad de Chile",
        ),
        ("2304.00002", [("Tomas Pena", "Pena", "Tomas")], "math.AP", "University of Toronto"),
    ]
    for arxiv_id, authors, category, affiliation in reversed(papers) if r2_first else papers:
        paper(arxiv_id, authors, categories=[category], affiliation=affiliation)
    r1 = copy.deepcopy(OA_WORKS["dis03_jorg"])
    r1["authorships"][0]["author"].update(
        id="https://openalex.org/A5100000011",
        display_name="Tomás Peña",
        orcid="https://orcid.org/0000-0000-3141-5920",
    )
    r1["authorships"][0]["raw_author_name"] = "Tomás Peña"
    r1["doi"] = "https://doi.org/10.48550/arxiv.2304.00001"
    r2 = copy.deepcopy(r1)
    r2["authorships"][0]["author"].update(
        id="https://openalex.org/A5100000012",
        display_name="Tomas Pena",
        orcid="https://orcid.org/0000-0000-6180-3393",
    )
    r2["authorships"][0]["raw_author_name"] = "Tomas Pena"
    r2["doi"] = "https://doi.org/10.48550/arxiv.2304.00002"
    works = [openalex.parse_work(r1), openalex.parse_work(r2)]
    match(works[::-1] if r2_first else works, "openalex")
    return Researcher.objects.get(orcid="0000-0000-3141-5920"), Researcher.objects.get(
        orcid="0000-0000-6180-3393"
    )


@pytest.mark.django_db
def test_dis03a_accented_name_with_shared_coauthor_goes_to_r1():
    r"""BUGS.md DIS-03 (a): ``Tom\'as Pe\~na`` with co-author Ana Ruiz (shared with R1) → R1."""
    r1, r2 = tomas_researchers()
    paper(
        "2304.00003",
        [(r"Tom\'as Pe\~na", r"Pe\~na", r"Tom\'as"), ("Ana Ruiz", "Ruiz", "Ana")],
        categories=["q-bio.NC"],
    )
    researchers_match_local()
    assert researcher_of("2304.00003") == r1


@pytest.mark.django_db
def test_dis03b_ascii_name_without_evidence_is_left_for_review():
    """BUGS.md DIS-03 (b): ``Tomas Pena`` with no other evidence is ambiguous between R1 and
    R2: not attached to either (nor to a new researcher), and listed for an editor with both
    candidates."""
    r1, r2 = tomas_researchers()
    paper("2304.00004", [("Tomas Pena", "Pena", "Tomas")], categories=["physics.optics"])
    researchers_match_local()
    assert not Authorship.objects.filter(slot__paper__arxiv_id="2304.00004").exists()
    assert Researcher.objects.count() == 3  # R1, R2 and Ana Ruiz; no new "Tomas Pena"
    [review] = slots_for_review()
    assert (review.slot.paper.arxiv_id, review.slot.name, sorted(review.candidates)) == (
        "2304.00004",
        "Tomas Pena",
        sorted([r1.pk, r2.pk]),
    )
    # A second run neither attaches it nor lists it twice.
    researchers_match_local()
    assert not Authorship.objects.filter(slot__paper__arxiv_id="2304.00004").exists()
    assert len(slots_for_review()) == 1


# --------------------------------------------------------------------------- DIS-04


@pytest.mark.django_db
def test_dis04_family_name_first_joins_the_orcid_holder_and_keeps_variants():
    """BUGS.md DIS-04: arXiv ``Zhao Yuqing`` (P1), Semantic Scholar ``Yuqing Zhao`` with ORCID
    0000-0000-2236-0673 listing P1, OpenAlex ``Yu-Qing Zhao`` with the same ORCID on P2:
    one researcher, P1 by the paper-level link, both written forms kept as variants."""
    paper("2303.00001", [("Zhao Yuqing", "Yuqing", "Zhao")])
    paper("2303.00002", [("Yu-Qing Zhao", "Zhao", "Yu-Qing")])
    match({"semantic_scholar": [s2_work("dis04_yuqing")], "openalex": [oa_work("dis04_yuqing")]})
    p1, p2 = researcher_of("2303.00001"), researcher_of("2303.00002")
    assert p1 == p2 and p1.orcid == "0000-0000-2236-0673"
    assert Authorship.objects.get(slot__paper__arxiv_id="2303.00001").source == "semantic_scholar"
    p1.refresh_from_db()
    assert sorted(p1.name_variants) == ["Yu-Qing Zhao", "Zhao Yuqing"]
    assert Researcher.objects.count() == 1


@pytest.mark.django_db
def test_dis04_reversed_names_with_different_orcids_stay_two():
    """BUGS.md DIS-04: ``Wang Lei`` (ORCID …4669-2015) and ``Lei Wang`` (…8314-4624) stay two
    researchers, also after a local run over a third paper by ``Lei Wang``."""
    paper("2303.00003", [("Wang Lei", "Lei", "Wang")])
    paper("2303.00004", [("Lei Wang", "Wang", "Lei")])
    match([s2_work("dis04_wang_lei"), s2_work("dis04_lei_wang")], "semantic_scholar")
    paper("2303.00005", [("Lei Wang", "Wang", "Lei")])
    researchers_match_local()
    wang_lei, lei_wang = researcher_of("2303.00003"), researcher_of("2303.00004")
    assert wang_lei != lei_wang
    assert (wang_lei.orcid, lei_wang.orcid) == ("0000-0000-4669-2015", "0000-0000-8314-4624")
    assert Researcher.objects.filter(orcid__isnull=False).count() == 2


@pytest.mark.django_db
def test_dis03a_exact_accented_spelling_alone_goes_to_r1():
    """BUGS.md DIS-03 (a), without the co-author: ``Tomás Peña`` written exactly as R1 (NFC)
    and only folded as R2 goes to R1; the exact match outranks the folded one."""
    r1, r2 = tomas_researchers(r2_first=True)
    paper("2304.00005", [("Tomás Peña", "Peña", "Tomás")], categories=["physics.optics"])
    researchers_match_local()
    assert researcher_of("2304.00005") == r1
