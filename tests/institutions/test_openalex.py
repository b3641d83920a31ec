"""OpenAlex authorships: ROR IDs first, then raw affiliation strings (recorded real works)."""

from __future__ import annotations

import json

from institutions.openalex import authorship_raw_affiliations, authorship_ror_ids
from institutions.services import affiliations_from_openalex
from papers.models import Paper, PaperAuthor

from .conftest import ROR_FIXTURES

WORKS = ROR_FIXTURES / "openalex_works"


def _work(name: str) -> dict:
    return json.loads((WORKS / name).read_text())


def test_ror_ids_and_strings_of_an_authorship():
    lariviere = _work("W2741809807.json")["authorships"][2]
    assert lariviere["author"]["display_name"] == "Vincent Larivière"
    assert authorship_ror_ids(lariviere) == ["0161xgx34", "002rjbv21"]
    assert authorship_raw_affiliations(lariviere)[1] == (
        "École de bibliothéconomie et des sciences de l’information, Université de Montréal, "
        "Montréal, QC, Canada"
    )


def _slots(work: dict) -> list[PaperAuthor]:
    paper = Paper.objects.create(arxiv_id="2108.04680", slug="p", title=work["title"])
    return [
        PaperAuthor.objects.create(paper=paper, position=i, name=a["author"]["display_name"])
        for i, a in enumerate(work["authorships"], start=1)
    ]


def _links(slot: PaperAuthor) -> dict[str, tuple[str, str]]:
    return {
        a.institution.ror_id: (a.source, a.string_origin)
        for a in slot.institution_links.select_related("institution")
    }


def test_state_of_oa_authorships(ror_registry):
    """The state of OA (PeerJ 2018): 9 authorships with ROR IDs and raw strings."""
    work = _work("W2741809807.json")
    slots = _slots(work)
    result = affiliations_from_openalex(authorships=zip([s.pk for s in slots], work["authorships"]))
    # Piwowar: OpenAlex gives 05ppvf150 (Impact Technology Development, not loaded here);
    # her string "Impactstory, Sanford, NC, USA" names OpenAlex's ROR record by its alias.
    assert "05ppvf150" in result.ids.unknown_ror_ids
    assert _links(slots[0]) == {"02nr0ka47": ("string-match", "openalex")}
    # Larivière: both Montréal universities by id; the strings name the same two.
    assert _links(slots[2]) == {"0161xgx34": ("openalex", ""), "002rjbv21": ("openalex", "")}
    # Alperín: Simon Fraser by id (Public Knowledge Project is not loaded).
    assert _links(slots[3]) == {"0213rcc28": ("openalex", "")}
    # Norlander: University of Washington by id.
    assert _links(slots[5])["00cvxb145"] == ("openalex", "")
    # Running it again changes nothing.
    again = affiliations_from_openalex(authorships=zip([s.pk for s in slots], work["authorships"]))
    assert (again.ids.created, again.ids.updated, again.strings.created, again.strings.removed) == (
        0,
        0,
        0,
        0,
    )


def test_arxiv_work_all_at_bangor(ror_registry):
    work = _work("W3188841554.json")  # arXiv 2108.04680: five authors at Bangor University
    slots = _slots(work)
    result = affiliations_from_openalex(authorships=zip([s.pk for s in slots], work["authorships"]))
    assert result.ids.created == 5
    assert [_links(s) for s in slots] == [{"006jb1a24": ("openalex", "")}] * 5
