"""Researcher-level reads: a researcher's institutions with years, an institution's researchers."""

from __future__ import annotations

from institutions.models import AuthorAffiliation
from institutions.selectors import institution_researchers, institutions_for_researcher
from papers.models import Paper, PaperAuthor
from researchers.models import Authorship, Researcher


def _authored(researcher: Researcher, arxiv_id: str, when: str, position: int = 1) -> PaperAuthor:
    paper, _ = Paper.objects.get_or_create(
        arxiv_id=arxiv_id, defaults={"slug": "p", "title": f"Paper {arxiv_id}", "submitted_at": when}
    )
    slot = PaperAuthor.objects.create(paper=paper, position=position, name=researcher.display_name)
    Authorship.objects.create(
        slot=slot, paper=paper, researcher=researcher, method="local", confidence=1.0, block="x"
    )
    return slot


def test_researchers_institutions_with_years_seen(ror_registry):
    """Mehran Kardar (MIT) on three papers 2007-2008, one of them also listing Harvard."""
    kardar = Researcher.objects.create(display_name="Mehran Kardar")
    mit, harvard = ror_registry["042nb2s44"], ror_registry["03vek6s52"]
    s1 = _authored(kardar, "0704.0191", "2007-04-02T12:00:00Z", 3)
    s2 = _authored(kardar, "0801.4549", "2008-01-29T12:00:00Z", 4)
    s3 = _authored(kardar, "0705.0712", "2007-05-04T12:00:00Z")
    for slot in (s1, s2):
        AuthorAffiliation.objects.create(slot=slot, institution=mit, source="string-match", confidence=0.95)
    AuthorAffiliation.objects.create(slot=s3, institution=harvard, source="openalex")
    AuthorAffiliation.objects.create(slot=s3, institution=mit, source="openalex")
    rows = institutions_for_researcher(kardar)
    assert [(r.institution.ror_id, r.years, r.papers) for r in rows] == [
        ("042nb2s44", "2007–2008", 3),
        ("03vek6s52", "2007", 1),
    ]
    assert institutions_for_researcher(kardar.pk)[0].first_year == 2007


def test_institutions_researchers_sorted_by_paper_count(ror_registry, visitor):
    toronto = ror_registry["03dbr7087"]
    a = Researcher.objects.create(display_name="Anna Alpha")
    b = Researcher.objects.create(display_name="Boris Beta")
    merged = Researcher.objects.create(display_name="Boris Beta (dup)", merged_into=b)
    for arxiv_id, who in [("0705.0782", b), ("0801.4105", b), ("0705.0001", a), ("0705.0002", merged)]:
        slot = _authored(who, arxiv_id, "2007-05-01T00:00:00Z")
        AuthorAffiliation.objects.create(
            slot=slot, institution=toronto, source="string-match", confidence=0.95
        )
    rows = institution_researchers(toronto)
    assert [(r.researcher.display_name, r.papers) for r in rows] == [("Boris Beta", 2), ("Anna Alpha", 1)]
    html = visitor.get(toronto.get_absolute_url()).content.decode()
    assert f'<a href="{b.get_absolute_url()}">Boris Beta</a> <span class="muted">2 papers</span>' in html
    assert html.index("Boris Beta") < html.index("Anna Alpha")


def test_no_authorships_no_rows(ror_registry):
    lonely = Researcher.objects.create(display_name="Nobody Here")
    assert institutions_for_researcher(lonely) == []
    assert institution_researchers(ror_registry["042nb2s44"]) == []
