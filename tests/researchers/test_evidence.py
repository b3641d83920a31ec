"""Evidence per authorship (issue 20): what each matching method stores, and unconfirmed links."""

import json

import pytest

from papers.models import Paper, PaperAuthor
from researchers.clients import openalex
from researchers.evidence import SlotFacts, cluster_evidence, evidence_is_name_only
from researchers.models import Authorship, MatchMethod
from researchers.records import SourceAuthor, SourceWork
from researchers.services import researchers_match_authors
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def _evidence(arxiv_id: str, position: int) -> tuple[str, float, list, bool]:
    a = Authorship.objects.get(paper__arxiv_id=arxiv_id, slot__position=position)
    return a.method, a.confidence, a.evidence, a.unconfirmed


def test_openalex_record_gives_orcid_and_external_id_evidence():
    # arXiv 2108.04680 as arXiv lists two of its authors; the recorded OpenAlex work W3188841554.
    paper = Paper.objects.create(arxiv_id="2108.04680", slug="x", title="t", categories=["cs.HC"])
    for i, (key, fore) in enumerate([("Roberts", "Jonathan C."), ("Mearman", "Joseph W.")], start=1):
        PaperAuthor.objects.create(paper=paper, position=i, name=f"{fore} {key}", keyname=key, forenames=fore)
    work = openalex.parse_work(json.loads((FIXTURES / "openalex" / "W3188841554.json").read_text()))
    researchers_match_authors(sources=["openalex"], fetch=lambda s, ids: [work])

    # Roberts: OpenAlex gives his ORCID iD and its author id A5009341822 (a new researcher, so
    # the method is the registry's id); Mearman has no ORCID iD in the record.
    assert _evidence("2108.04680", 1) == (
        MatchMethod.EXTERNAL_ID,
        0.9,
        [
            {"kind": "orcid", "orcid": "0000-0001-7718-3181", "source": "openalex"},
            {"kind": "external_id", "source": "openalex", "id": "A5009341822"},
        ],
        False,
    )
    assert _evidence("2108.04680", 2) == (
        MatchMethod.EXTERNAL_ID,
        0.9,
        [{"kind": "external_id", "source": "openalex", "id": "A5017898742"}],
        False,
    )

    # A later paper naming him "J. C. Roberts" finds him by the ORCID iD: method orcid, 0.98.
    later = Paper.objects.create(arxiv_id="2109.00001", slug="y", title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=later, position=1, name="J. C. Roberts", keyname="Roberts", forenames="J. C."
    )
    author = SourceAuthor(1, "Jonathan C. Roberts", None, "0000-0001-7718-3181")
    researchers_match_authors(
        sources=["semantic_scholar"],
        fetch=lambda s, ids: [SourceWork("semantic_scholar", "2109.00001", [author])],
    )
    assert _evidence("2109.00001", 1) == (
        MatchMethod.ORCID,
        0.98,
        [{"kind": "orcid", "orcid": "0000-0001-7718-3181", "source": "semantic_scholar"}],
        False,
    )


def test_local_match_on_the_sample_stores_shared_coauthors_and_marks_guesses(sample_papers):
    # Matched here, not through the package's matched_sample: that one stays loaded for the
    # rest of the package, and files sorted after this one expect an empty archive.
    researchers_match_authors(sources=[])
    # 0704.0005 and 0704.0054, both by Abu-Shammala and Torchinsky (math.CA, math.FA, 2007):
    # each slot's co-author signs the researcher's other paper too.
    abu = Authorship.objects.get(paper__arxiv_id="0704.0005", slot__position=1).researcher
    assert sorted(abu.authorships.values_list("paper__arxiv_id", flat=True)) == ["0704.0005", "0704.0054"]
    method, confidence, evidence, unconfirmed = _evidence("0704.0005", 1)
    assert (method, confidence, unconfirmed) == (MatchMethod.LOCAL, 0.6, False)
    assert evidence == [
        {"kind": "coauthors", "count": 1, "values": ["Alberto Torchinsky"]},
        {"kind": "categories", "count": 2, "values": ["math.CA", "math.FA"]},
        {"kind": "years", "first": 2007, "last": 2007, "papers": 1},
        {"kind": "name", "name": "Wael Abu-Shammala", "block": "w abushammala"},
    ]
    # An affiliation string written on both of Arthur Jaffe's papers.
    jaffe = _evidence("0704.0052", 1)[2]
    assert {"kind": "affiliation", "count": 1, "values": ["Harvard University"]} in jaffe

    # Ariyeh H. Maller's two 2008 astro-ph papers share nothing but the name and the category,
    # and the block "a maller" holds two researchers: both links are unconfirmed.
    for arxiv_id in ("0801.4563", "0801.4568"):
        method, confidence, evidence, unconfirmed = _evidence(arxiv_id, 1)
        assert (method, confidence, unconfirmed) == (MatchMethod.LOCAL, 0.6, True)
        assert [s["kind"] for s in evidence] == ["categories", "years", "name"]
        assert evidence[-1] == {"kind": "name", "name": "Ariyeh H. Maller", "block": "a maller"}
    holders = Authorship.objects.filter(block="a maller").values("researcher_id").distinct().count()
    assert holders == 2
    # Never a link resting on a registry's id or on co-authors.
    assert not Authorship.objects.filter(
        unconfirmed=True, evidence__contains=[{"kind": "coauthors"}]
    ).exists()
    # Every local link carries its name signal.
    assert (
        not Authorship.objects.filter(method="local").exclude(evidence__contains=[{"kind": "name"}]).exists()
    )


def _facts(slot_id, paper_id, coauthors, **kw):
    return SlotFacts(
        slot_id=slot_id,
        paper_id=paper_id,
        name="J. Smith",
        block="j smith",
        coauthors={"j smith": "J. Smith", **coauthors},
        **kw,
    )


def test_cluster_evidence_counts_what_another_paper_shares():
    members = [
        _facts(
            1,
            10,
            {"a lee": "A. Lee", "b kim": "B. Kim"},
            categories=frozenset({"hep-th"}),
            year=2001,
            affiliations=("Univ. of Iowa",),
            institutions={"036jqmy94": "University of Iowa"},
        ),
        _facts(
            2,
            20,
            {"a lee": "Alice Lee"},
            categories=frozenset({"hep-th", "gr-qc"}),
            year=2004,
            affiliations=("University of Iowa",),
            institutions={"036jqmy94": "University of Iowa"},
        ),
        _facts(3, 30, {"c wu": "C. Wu"}, categories=frozenset({"math.AG"}), year=None),
    ]
    out = cluster_evidence(members)
    assert out[1] == [
        {"kind": "coauthors", "count": 1, "values": ["A. Lee"]},
        {"kind": "institution", "count": 1, "values": ["University of Iowa"], "ror_ids": ["036jqmy94"]},
        {"kind": "affiliation", "count": 1, "values": ["Univ. of Iowa"]},
        {"kind": "categories", "count": 1, "values": ["hep-th"]},
        {"kind": "years", "first": 2001, "last": 2004, "papers": 2},
        {"kind": "name", "name": "J. Smith", "block": "j smith"},
    ]
    # Slot 3 shares nothing: the years span and its name only, which is name-only evidence.
    assert [s["kind"] for s in out[3]] == ["years", "name"]
    assert evidence_is_name_only(out[3]) and not evidence_is_name_only(out[1])
    assert not evidence_is_name_only([])  # not recorded yet: never marked
    # Alone in its cluster: only the name.
    assert cluster_evidence([members[2]]) == {3: [{"kind": "name", "name": "J. Smith", "block": "j smith"}]}


def test_a_registry_researcher_new_to_a_block_makes_its_name_only_links_guesses():
    # Two astro-ph papers by "J. Roberts" with nothing else in common are joined locally on the name.
    for arxiv_id in ("2101.00001", "2101.00002"):
        paper = Paper.objects.create(arxiv_id=arxiv_id, slug="x", title="t", categories=["astro-ph"])
        PaperAuthor.objects.create(
            paper=paper, position=1, name="J. Roberts", keyname="Roberts", forenames="J."
        )
    researchers_match_authors(sources=[])
    first = Authorship.objects.get(paper__arxiv_id="2101.00001")
    assert Authorship.objects.get(paper__arxiv_id="2101.00002").researcher_id == first.researcher_id
    assert [s["kind"] for s in first.evidence] == ["categories", "name"]
    assert not first.unconfirmed  # the only researcher of its block

    # OpenAlex's record of 2108.04680 brings Jonathan C. Roberts (block "j roberts") as a new
    # researcher: the block now holds two, and the name-only links become unconfirmed.
    paper = Paper.objects.create(arxiv_id="2108.04680", slug="x", title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=paper, position=1, name="Jonathan C. Roberts", keyname="Roberts", forenames="Jonathan C."
    )
    work = openalex.parse_work(json.loads((FIXTURES / "openalex" / "W3188841554.json").read_text()))
    researchers_match_authors(sources=["openalex"], fetch=lambda s, ids: [work])
    assert Authorship.objects.get(paper=paper).researcher_id != first.researcher_id
    # Only this test's papers: a module run before may leave the sample (and its marks) loaded.
    marked = Authorship.objects.filter(unconfirmed=True, paper__arxiv_id__startswith="2101.")
    assert sorted(marked.values_list("paper__arxiv_id", flat=True)) == [
        "2101.00001",
        "2101.00002",
    ]
