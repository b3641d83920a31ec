"""Affiliation services against the database: the real sample, id links, idempotence."""

from __future__ import annotations

from django.core.management import call_command

from institutions.models import AuthorAffiliation, Institution
from institutions.services import (
    affiliations_link_ror_ids,
    affiliations_match,
    affiliations_match_strings,
    institutions_load,
)
from papers.models import Paper, PaperAuthor

from .conftest import ROR_DUMP


def _slot(arxiv_id: str, position: int) -> PaperAuthor:
    return PaperAuthor.objects.get(paper__arxiv_id=arxiv_id, position=position)


def _links(slot: PaperAuthor) -> set[str]:
    return set(slot.institution_links.values_list("institution__ror_id", flat=True))


def test_sample_affiliations_match_like_make_demo(sample_papers, capsys):
    """The bundled sample's arXiv affiliations against the 40 real records."""
    institutions_load(paths=[ROR_DUMP])
    call_command("match_affiliations", "--no-progress")
    first = capsys.readouterr().out.strip()
    # 1071 slots: 0704.0139's eight authors share one unparenthesised legend
    # ("1 Dip. Astro., Bologna; 2 ..."), and six slots carry two marks ("1 and 2"). Seven
    # slots' only "affiliation" was a "for the X Collaboration" (0705.0953, 0705.0850,
    # 0705.0526, 0705.0245, 0704.0710, 0704.0224, 0704.0220): since issue 19 that is their
    # membership of the collaboration, not an affiliation (1078 slots, 1135 strings before).
    assert first.startswith("1071 author slots, 1128 affiliation strings (81 matched): 80 links created")
    # 0704.0191: all three authors at MIT (Virnau, Mirny, Kardar).
    assert [_links(_slot("0704.0191", p)) for p in (1, 2, 3)] == [{"042nb2s44"}] * 3
    # 0704.0463: Herzberg (not loaded), UC Berkeley, University of Cambridge.
    assert [_links(_slot("0704.0463", p)) for p in (1, 2, 3)] == [set(), {"01an7q238"}, {"013meh722"}]
    link = _slot("0704.0463", 3).institution_links.get()
    assert (link.source, link.matched_string, link.confidence) == (
        "string-match",
        "University of Cambridge, U.K.",
        0.99,
    )
    # 0801.3975: "LPTMC, University of Paris 6, France" is not Université Paris Cité.
    assert _links(_slot("0801.3975", 1)) == set()
    # A second run changes nothing.
    call_command("match_affiliations", "--no-progress")
    assert capsys.readouterr().out.strip().endswith("0 links created, 0 updated, 0 removed")


def _paper_with_slot(affiliations: list[str]) -> PaperAuthor:
    paper = Paper.objects.create(arxiv_id="0704.0191", slug="x", title="Knots in globule and coil phases")
    return PaperAuthor.objects.create(paper=paper, position=1, name="Peter Virnau", affiliations=affiliations)


def test_ror_id_links_replace_string_matches_and_report_unknown_ids(ror_registry):
    slot = _paper_with_slot(["Massachusetts Institute of Technology, Department of Physics"])
    affiliations_match()
    assert slot.institution_links.get().source == "string-match"
    result = affiliations_link_ror_ids(
        pairs=[
            (slot.pk, "https://ror.org/042nb2s44"),  # MIT, as OpenAlex gives it
            (slot.pk, "ror.org/03vek6s52"),  # Harvard
            (slot.pk, "03yrm5c26"),  # California Digital Library: valid but not loaded
            (slot.pk, "03yrm5c27"),  # bad check digits
        ]
    )
    assert (result.created, result.updated, result.invalid) == (1, 1, 1)
    assert result.unknown_ror_ids == {"03yrm5c26"}
    links = {a.institution.ror_id: (a.source, a.confidence) for a in slot.institution_links.all()}
    assert links == {"042nb2s44": ("openalex", 1.0), "03vek6s52": ("openalex", 1.0)}
    # Idempotent, and a later string run never downgrades or removes id links.
    assert affiliations_link_ror_ids(pairs=[(slot.pk, "042nb2s44")]).unchanged == 1
    affiliations_match()
    assert slot.institution_links.count() == 2
    assert set(slot.institution_links.values_list("source", flat=True)) == {"openalex"}


def test_string_links_follow_the_strings(ror_registry):
    slot = _paper_with_slot(["University of Toronto"])
    affiliations_match()
    assert _links(slot) == {"03dbr7087"}
    # OpenAlex raw strings for the same slot are kept apart from the arXiv strings.
    affiliations_match_strings(pairs=[(slot.pk, "Department of Physics, University of Oxford, UK")])
    assert _links(slot) == {"03dbr7087", "052gg0110"}
    # The arXiv string changes: the Toronto link goes, the OpenAlex-string link stays.
    slot.affiliations = ["Herzberg Institute of Astrophysics, Canada"]
    slot.save()
    result = affiliations_match()
    assert result.removed == 1
    assert _links(slot) == {"052gg0110"}


def test_links_cascade_with_institutions(ror_registry):
    slot = _paper_with_slot(["CERN, Geneva, Switzerland"])
    affiliations_match()
    assert AuthorAffiliation.objects.filter(slot=slot, institution__ror_id="01ggx4157").exists()
    Institution.objects.filter(ror_id="01ggx4157").delete()
    assert not AuthorAffiliation.objects.filter(slot=slot).exists()
