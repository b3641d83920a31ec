"""Collaborations are their own kind (issue 19): parsing real and edited author lists, and
what a harvest stores for them (papers.Collaboration, PaperCollaboration, members)."""

from __future__ import annotations

import pytest

from papers import harvest
from papers.authors import classify_slot, collaboration_key, group_names
from papers.models import Collaboration, PaperAuthor, PaperCollaboration
from papers.oai import parse_oai_response
from researchers.matching_local import researchers_match_local
from researchers.models import Researcher

OAI = "arxiv/oai"


def _slots(fixtures_dir, name: str) -> dict[str, list]:
    page = parse_oai_response((fixtures_dir / OAI / name).read_bytes())
    return {r.arxiv_id: r.authors for r in page.records}


def _kinds(slots) -> list[tuple[str, bool, list[str]]]:
    return [(s.name, s.is_collaboration, s.groups) for s in slots]


def test_recorded_hepcrawl_slots_keep_people_and_collaborations(fixtures_dir):
    # The real OAI arXiv-format records issue 19 quotes (hepcrawl's recorded samples).
    found = {}
    for n in ("1", "2", "3", "4", "8", "9", ""):
        found.update(_slots(fixtures_dir, f"hepcrawl_sample_arxiv_record{n}.xml"))
    # "Teresa Maria Montaruli for the IceCube Collaboration" (all in keyname): the person.
    montaruli = found["1512.07978"][0]
    assert (montaruli.keyname, montaruli.forenames, montaruli.is_collaboration) == (
        "Montaruli",
        "Teresa Maria",
        False,
    )
    assert montaruli.groups == ["IceCube Collaboration"]
    # "Sinya for JLQCD Collaboration": a person known by one name, member of JLQCD.
    assert _kinds(found["1603.00997"]) == [("Sinya", False, ["JLQCD Collaboration"])]
    # keyname NuPRISM, forenames "Mark Scott for the"; then "Hyper-K collaborations".
    assert _kinds(found["1603.01251"]) == [
        ("Mark Scott", False, ["NuPRISM"]),
        ("Hyper-K collaborations", True, ["Hyper-K collaborations"]),
    ]
    # "Keck Array", "BICEP2 Collaborations", ":" then persons (P. Ade ...).
    assert _kinds(found["1603.05976"][:4]) == [
        ("Keck Array", True, ["Keck Array"]),
        ("BICEP2 Collaborations", True, ["BICEP2 Collaborations"]),
        (":", True, []),
        ("P. Ade", False, []),
    ]
    assert sum(not s.is_collaboration for s in found["1603.05976"]) == len(found["1603.05976"]) - 3
    # keyname Collaboration, forenames Super-Kamiokande, then ":" (with affiliations).
    assert _kinds(found["1606.07538"][:3]) == [
        ("Super-Kamiokande Collaboration", True, ["Super-Kamiokande Collaboration"]),
        (":", True, []),
        ("K. Abe", False, []),
    ]
    # keyname Collaboration, forenames "Dipanwita Dutta for the CMS": the person Dutta.
    dutta = found["1607.00786"][1]
    assert (dutta.name, dutta.keyname, dutta.forenames, dutta.is_collaboration, dutta.groups) == (
        "Dipanwita Dutta",
        "Dutta",
        "Dipanwita",
        False,
        ["CMS Collaboration"],
    )
    # keyname Collaboration, forenames "for the DES".
    assert _kinds(found["1606.06775"])[2] == ("for the DES Collaboration", True, ["DES Collaboration"])
    # "The T2K Beam Group" (keyname Group) and ":" amid NA61/SHINE's persons.
    assert _kinds(found["1808.04927"])[4:7] == [
        ("The T2K Beam Group", True, ["The T2K Beam Group"]),
        (":", True, []),
        ("L. Berns", False, []),
    ]
    # "on behalf of Planck Collaboration" as an affiliation is membership, not an affiliation.
    burigana = found["1604.05585"][0]
    assert (burigana.affiliations, burigana.groups) == ([], ["Planck Collaboration"])


def test_recorded_sample_forms_in_both_formats():
    # The bundled sample (data/arxiv/oai): "for the ATLAS" (keyname Collaboration), the
    # Belle member form, "for the D0 and CDF Collaborations" as an affiliation (two),
    # "for the RBC and UKQCD Collaborations" in an arXivRaw string (two, one slot).
    from tests.conftest import SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

    arxiv = {r.arxiv_id: r.authors for r in parse_oai_response(str(SAMPLE_OAI_ARXIV)).records}
    raw = {r.arxiv_id: r.authors for r in parse_oai_response(str(SAMPLE_OAI_RAW)).records}
    assert _kinds(arxiv["0705.0382"]) == [
        ("P. Steinberg", False, []),
        ("for the ATLAS Collaboration", True, ["ATLAS Collaboration"]),
    ]
    assert _kinds(arxiv["0705.0650"])[1] == ("for the Belle collaboration", True, ["Belle collaboration"])
    filthaut = arxiv["0705.0245"][0]
    assert (filthaut.name, filthaut.affiliations, filthaut.groups) == (
        "F. Filthaut",
        [],
        ["D0 Collaboration", "CDF Collaboration"],
    )
    assert _kinds(raw["0801.4016"])[9] == (
        "for the RBC and UKQCD Collaborations",
        True,
        ["RBC Collaboration", "UKQCD Collaboration"],
    )
    # "CDF Collaboration: T. Aaltonen et al" (no comma before et al): et al is no name.
    assert _kinds(raw["0801.4375"]) == [
        ("CDF Collaboration", True, ["CDF Collaboration"]),
        ("T. Aaltonen", False, []),
    ]


def test_edited_arxiv_format_acronyms_and_projects(fixtures_dir):
    # Forms no shared recording holds, in a real record (0705.0306) edited: bare acronyms
    # without forenames, "D0 collaborations", the LOFAR team, "for the ATLAS" split.
    found = _slots(fixtures_dir, "edited_arXiv_collaboration_forms.xml")
    assert _kinds(found["0705.0306"]) == [("D0", True, ["D0"]), ("V. Abazov", False, [])]
    assert _kinds(found["0705.9301"])[:2] == [("CDF", True, ["CDF"]), ("CMS", True, ["CMS"])]
    assert _kinds(found["0705.9302"])[0] == ("D0 collaborations", True, ["D0 collaborations"])
    assert _kinds(found["0705.9303"])[0] == (
        "the team of the LOFAR Magnetism Key Science Project",
        True,
        ["LOFAR Magnetism Key Science Project"],
    )
    assert _kinds(found["0705.9304"])[1] == ("for the ATLAS", True, ["ATLAS"])


def test_edited_arxivraw_strings(fixtures_dir):
    found = _slots(fixtures_dir, "edited_arXivRaw_collaboration_forms.xml")
    # A trailing "(for the Belle Collaboration)" is membership, not an affiliation.
    assert [(s.name, s.affiliations, s.groups) for s in found["0801.3879"]] == [
        ("K. Hayasaka", [], ["Belle Collaboration"])
    ]
    # "X and Y Collaborations" are two collaborations, named by one slot.
    assert _kinds(found["0801.3880"]) == [
        ("Keck Array and BICEP2 Collaborations", True, ["Keck Array", "BICEP2 Collaboration"]),
        ("P. Ade", False, []),
        ("Z. Ahmed", False, []),
    ]
    assert _kinds(found["0801.3881"]) == [
        ("CDF", True, ["CDF"]),
        ("D0", True, ["D0"]),
        ("CMS", True, ["CMS"]),
    ]


def test_persons_named_like_groups_stay_persons():
    # Decided and documented in classify_slot: a weak group word beside initials only is
    # a family name ("Group, J."); an acronym with forenames is a person ("Oh, P.", real
    # slot of 0801.3781); a keyname with lower case and no forenames ("A.V.Gusev") too.
    assert not classify_slot("J. Group", ("Group", "J.", ""), []).is_collaboration
    assert not classify_slot("P. OH", ("OH", "P.", ""), []).is_collaboration
    assert not classify_slot("A.V.Gusev", ("A.V.Gusev", "", ""), []).is_collaboration
    assert not classify_slot("Javier Guachalla H", ("H", "Javier Guachalla", ""), []).is_collaboration
    # A full given name with a group word is taken for a group (rare; see the docstring).
    assert classify_slot("Anna Team", ("Team", "Anna", ""), []).is_collaboration


def test_collaboration_keys_join_spellings():
    assert collaboration_key("The BABAR Collaboration") == collaboration_key("BaBar collaboration") == "babar"
    assert collaboration_key("CMS") == collaboration_key("CMS Collaboration") == "cms"
    assert collaboration_key("BICEP2 Collaborations") == "bicep2"
    assert collaboration_key("Keck Array") == "keck array"
    assert group_names("for the D0 and CDF Collaborations") == ["D0 Collaboration", "CDF Collaboration"]


def test_sample_person_count_barely_changes():
    """The bundled sample's persons, old rules against new: 8,461 person slots become
    8,459. The two that stop being persons: "for the RBC" (0801.4016, now one slot with
    UKQCD) and the ";" slot of Kaggle 0704.0307; two names lose "et al" (0801.4375
    "T. Aaltonen", 0704.0760 "A. Abulencia")."""
    from papers.kaggle import iter_kaggle
    from papers.records import ArxivRecord
    from tests.conftest import SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

    records = (
        parse_oai_response(str(SAMPLE_OAI_ARXIV)).records + parse_oai_response(str(SAMPLE_OAI_RAW)).records
    )
    with open(SAMPLE_KAGGLE, "rb") as stream:
        records += [r for r in iter_kaggle(stream) if isinstance(r, ArxivRecord)]
    assert len(records) == 2800
    assert sum(not s.is_collaboration for r in records for s in r.authors) == 8459
    by_id = {r.arxiv_id: r for r in records}
    assert [s.name for s in by_id["0704.0307"].authors if s.is_collaboration] == [";"]
    assert [s.name for s in by_id["0704.0760"].authors][0] == "A. Abulencia"


@pytest.mark.django_db
def test_bugs_auth03_collaboration_prefix_and_numbered_affiliations(fixtures_dir):
    """BUGS.md AUTH-03: "The KESTREL Collaboration: T. Ahlberg (1), M. Okonkwo (1,2),
    R. Salazar-Pinto (2) ((1) ..., (2) ...)" and "KESTREL Collaboration, T. Ahlberg, et al",
    harvested (arXivRaw records edited from 0801.3877) and matched: the collaboration is a
    group, never a Researcher nor a matching candidate; the persons keep their numbered
    affiliations; "et al" is not an author."""
    harvest.harvest_files(paths=[fixtures_dir / OAI / "edited_arXivRaw_collaboration_forms.xml"])
    first = list(PaperAuthor.objects.filter(paper__arxiv_id="0801.3877").order_by("position"))
    assert [(s.name, s.is_collaboration) for s in first] == [
        ("The KESTREL Collaboration", True),
        ("T. Ahlberg", False),
        ("M. Okonkwo", False),
        ("R. Salazar-Pinto", False),
    ]
    assert [(s.keyname, s.forenames, s.affiliations) for s in first[1:]] == [
        ("Ahlberg", "T.", ["Lund Observatory, Lund, Sweden"]),
        ("Okonkwo", "M.", ["Lund Observatory, Lund, Sweden", "Universidad de Chile, Santiago"]),
        ("Salazar-Pinto", "R.", ["Universidad de Chile, Santiago"]),
    ]
    second = list(PaperAuthor.objects.filter(paper__arxiv_id="0801.3878").order_by("position"))
    assert [(s.name, s.is_collaboration) for s in second] == [
        ("KESTREL Collaboration", True),
        ("T. Ahlberg", False),
    ]
    kestrel = Collaboration.objects.get(key="kestrel")
    assert kestrel.name == "The KESTREL Collaboration"
    assert list(
        PaperCollaboration.objects.filter(collaboration=kestrel)
        .order_by("paper__arxiv_id")
        .values_list("paper__arxiv_id", "position")
    ) == [("0801.3877", 1), ("0801.3878", 1)]

    summary = researchers_match_local()
    # The file's seven person slots: Ahlberg, Okonkwo, Salazar-Pinto; Ahlberg; Hayasaka;
    # Ade, Ahmed. No collaboration slot is a candidate.
    assert summary.slots == 7
    names = set(Researcher.objects.values_list("display_name", flat=True))
    assert not any("KESTREL" in n or "Collaboration" in n for n in names)
    assert {"T. Ahlberg", "M. Okonkwo", "R. Salazar-Pinto"} <= names
    assert not PaperAuthor.objects.filter(is_collaboration=True, authorship__isnull=False).exists()


@pytest.mark.django_db
def test_harvest_writes_members_in_author_order(fixtures_dir):
    harvest.harvest_files(
        paths=[
            fixtures_dir / OAI / "hepcrawl_sample_arxiv_record9.xml",
            fixtures_dir / OAI / "edited_arXivRaw_collaboration_forms.xml",
        ]
    )
    entry = PaperCollaboration.objects.get(paper__arxiv_id="1607.00786")
    assert (entry.collaboration.name, entry.position) == ("CMS Collaboration", 2)
    assert [m.name for m in entry.members.all()] == ["Dipanwita Dutta"]
    keck = PaperCollaboration.objects.filter(paper__arxiv_id="0801.3880").order_by("position", "id")
    assert [(e.collaboration.name, e.position) for e in keck] == [
        ("Keck Array", 1),
        ("BICEP2 Collaboration", 1),
    ]
    # Harvesting again changes nothing and duplicates nothing.
    harvest.harvest_files(paths=[fixtures_dir / OAI / "hepcrawl_sample_arxiv_record9.xml"])
    assert PaperCollaboration.objects.filter(paper__arxiv_id="1607.00786").count() == 1
