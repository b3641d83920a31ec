"""Hard names through the local matcher and the database: accents and TeX, initials, and
same-name people kept apart by their ORCID iDs."""

import pytest

from papers.models import Paper, PaperAuthor
from researchers.models import Authorship, Researcher
from researchers.selectors import slots_for_review
from researchers.services import researchers_match_authors

pytestmark = pytest.mark.django_db


def paper_with(arxiv_id, authors, categories=("cs.RO",), affiliations=()):
    paper = Paper.objects.create(
        arxiv_id=arxiv_id, slug="p", title=f"Paper {arxiv_id}", categories=list(categories)
    )
    for i, (forenames, keyname) in enumerate(authors, start=1):
        PaperAuthor.objects.create(
            paper=paper,
            position=i,
            name=f"{forenames} {keyname}",
            keyname=keyname,
            forenames=forenames,
            affiliations=list(affiliations),
        )
    return paper


def researcher(arxiv_id, position):
    return Authorship.objects.get(slot__paper__arxiv_id=arxiv_id, slot__position=position).researcher


def test_mueller_written_three_ways_is_one_researcher(settings):
    settings.RESEARCHER_MATCH_CHUNK = 2  # three chunks: later ones join the earlier researcher
    paper_with("9901.00001", [("Hans", "Müller")], affiliations=["Universität Bonn"])
    paper_with("9901.00002", [("Hans", "Muller")], affiliations=["University of Bonn"])
    paper_with("9901.00003", [("Hans", 'M{\\"u}ller')], affiliations=["Univ. Bonn"])
    researchers_match_authors(sources=[])
    people = {researcher(f"9901.0000{i}", 1) for i in (1, 2, 3)}
    assert len(people) == 1
    (hans,) = people
    assert hans.paper_count == 3
    assert set(hans.name_variants) == {'Hans M{\\"u}ller', "Hans Muller", "Hans Müller"}


def test_initial_joins_full_name_but_john_and_james_stay_apart():
    paper_with("9902.00001", [("John", "Smith"), ("Ada", "Lovelace")])
    paper_with("9902.00002", [("J.", "Smith"), ("Ada", "Lovelace")])
    paper_with("9902.00003", [("James", "Smith"), ("Charles", "Babbage")], categories=("math.AG",))
    researchers_match_authors(sources=[])
    assert researcher("9902.00001", 1) == researcher("9902.00002", 1)
    assert researcher("9902.00003", 1) != researcher("9902.00001", 1)
    assert researcher("9902.00001", 2) == researcher("9902.00002", 2)


def test_same_name_different_orcids_stay_apart():
    # Two existing Wei Wangs with different ORCID iDs; a new Wei Wang paper may join one, never
    # both, and the two records never merge.
    a = paper_with("9903.00001", [("Wei", "Wang")], affiliations=["Fudan University"])
    b = paper_with("9903.00002", [("Wei", "Wang")], affiliations=["Fudan University"])
    researchers_match_authors(sources=[])
    first, second = researcher("9903.00001", 1), researcher("9903.00002", 1)
    assert first == second  # same name, same affiliation: one researcher...
    Authorship.objects.filter(slot__paper=b).delete()
    other = Researcher.objects.create(display_name="Wei Wang", slug="wei-wang", orcid="0000-0002-3361-627X")
    Researcher.objects.filter(pk=first.pk).update(orcid="0000-0002-5250-9277")
    slot_b = PaperAuthor.objects.get(paper=b)
    Authorship.objects.create(
        slot=slot_b, paper=b, researcher=other, method="orcid", confidence=0.98, block="w wang"
    )
    paper_with("9903.00003", [("Wei", "Wang")], affiliations=["Fudan University"])
    researchers_match_authors(sources=[])
    # ...but once their ORCID iDs differ, they stay two people; the new slot, with the same
    # evidence for both, is joined to neither and left for an editor (BUGS.md DIS-03 (b)).
    assert researcher("9903.00001", 1) != researcher("9903.00002", 1)
    [review] = slots_for_review()
    assert (review.slot.paper.arxiv_id, sorted(review.candidates)) == (
        "9903.00003",
        sorted([first.pk, other.pk]),
    )
    assert Researcher.objects.filter(display_name="Wei Wang").count() == 2
    assert a.authorships.count() == 1


def test_database_refuses_a_malformed_orcid_and_a_second_holder():
    from django.core.exceptions import ValidationError
    from django.db import IntegrityError, transaction

    Researcher.objects.create(display_name="A", slug="a", orcid="0000-0002-5250-9277")
    with pytest.raises(IntegrityError), transaction.atomic():
        Researcher.objects.create(display_name="B", slug="b", orcid="0000-0002-5250-9277")
    with pytest.raises(IntegrityError), transaction.atomic():
        Researcher.objects.create(display_name="C", slug="c", orcid="0000000252509277")
    with pytest.raises(ValidationError):  # right shape, wrong check digit: the model validator
        Researcher(display_name="D", slug="d", orcid="0000-0002-5250-9278").full_clean()
