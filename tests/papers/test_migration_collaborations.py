"""Issue 19's data migrations on a database holding researchers made from collaboration and
junk slots: papers 0012 classifies the stored slots again and writes collaborations,
researchers 0007 removes those researchers, their old URLs answering 301 (collaboration)
or 410 (punctuation).

Runs the real migrations backwards and forwards on the test database, inside the test's
transaction (PostgreSQL's DDL is transactional, so everything is rolled back after). The
slots are stored as the code before issue 19 stored the real records 1607.00786 and
1603.05976 (hepcrawl's recorded samples) and an edited 0705.0306 with a bare "CMS".
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from papers.models import Collaboration, PaperAuthor, PaperCollaboration
from papers.text import make_slug
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship, Researcher, RetiredResearcher

pytestmark = pytest.mark.django_db

BEFORE = [("papers", "0011_paper_content_asof"), ("researchers", "0006_slot_review")]
AFTER = [("papers", "0013_collaboration_slots"), ("researchers", "0008_retire_collaboration_researchers")]

# (arxiv id, [(name, keyname, forenames, is_collaboration, researcher made from it or None)])
STORED = {
    "1607.00786": [
        ("Ruchi Chudasama", "Chudasama", "Ruchi", False, "Ruchi Chudasama"),
        # The old rule flagged the person as a collaboration: no researcher.
        (
            "Dipanwita Dutta for the CMS Collaboration",
            "Dipanwita Dutta for the CMS Collaboration",
            "",
            True,
            None,
        ),
    ],
    "1603.05976": [
        ("Keck Array", "Array", "Keck", False, "Keck Array"),
        ("BICEP2 Collaborations", "Collaborations", "BICEP2", False, "BICEP2 Collaborations"),
        (":", ":", "", False, ":"),
        ("P. Ade", "Ade", "P.", False, "P. Ade"),
    ],
    "0705.0306": [
        ("CMS", "CMS", "", False, "CMS"),
        ("V. Abazov", "Abazov", "V.", False, "V. Abazov"),
    ],
}


def _migrate(targets) -> None:
    MigrationExecutor(connection).migrate(targets)


def _store() -> dict[str, Researcher]:
    """Write the rows with the models as they were at ``BEFORE`` (later migrations add
    columns, such as the authorship's evidence, that the table does not have yet)."""
    state = MigrationExecutor(connection).loader.project_state(BEFORE).apps
    paper_model, slot_model = state.get_model("papers", "Paper"), state.get_model("papers", "PaperAuthor")
    researcher_model, authorship_model = (
        state.get_model("researchers", "Researcher"),
        state.get_model("researchers", "Authorship"),
    )
    made = {}
    for arxiv_id, slots in STORED.items():
        paper = paper_model.objects.create(arxiv_id=arxiv_id, slug=arxiv_id, title="t", categories=["hep-ex"])
        for position, (name, keyname, forenames, flagged, researcher_name) in enumerate(slots, start=1):
            slot = slot_model.objects.create(
                paper=paper, position=position, name=name, keyname=keyname, forenames=forenames,
                is_collaboration=flagged,
            )  # fmt: skip
            if researcher_name:
                slug = make_slug(researcher_name, fallback="researcher")
                researcher = researcher_model.objects.create(
                    display_name=researcher_name, slug=slug, paper_count=1
                )
                authorship_model.objects.create(
                    slot=slot, paper=paper, researcher=researcher, method="local", confidence=0.5
                )
                made[researcher_name] = researcher
    return made


def test_migrations_retire_collaboration_researchers_and_keep_their_urls(client):
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    _migrate(BEFORE)
    made = _store()
    _migrate(AFTER)

    # Slots classified again: Dutta is a person, member of CMS; the group slots are groups.
    dutta = PaperAuthor.objects.get(paper__arxiv_id="1607.00786", position=2)
    assert (dutta.name, dutta.keyname, dutta.forenames, dutta.is_collaboration) == (
        "Dipanwita Dutta",
        "Dutta",
        "Dipanwita",
        False,
    )
    flagged = PaperAuthor.objects.filter(is_collaboration=True).order_by("paper__arxiv_id", "position")
    assert [s.name for s in flagged] == ["CMS", "Keck Array", "BICEP2 Collaborations", ":"]
    # One CMS of "CMS Collaboration" (1607.00786, through Dutta) and the bare "CMS".
    cms = Collaboration.objects.get(key="cms")
    on = PaperCollaboration.objects.filter(collaboration=cms).values_list("paper__arxiv_id", flat=True)
    assert sorted(on) == ["0705.0306", "1607.00786"]
    assert [m.name for m in PaperCollaboration.objects.get(paper__arxiv_id="1607.00786").members.all()] == [
        "Dipanwita Dutta"
    ]

    # The researchers made from group and junk slots are gone; persons stay.
    left = set(Researcher.objects.values_list("display_name", flat=True))
    assert left == {"Ruchi Chudasama", "P. Ade", "V. Abazov"}
    keck = Collaboration.objects.get(key="keck array")
    retired = {r.display_name: r.collaboration_id for r in RetiredResearcher.objects.all()}
    assert retired == {
        "Keck Array": keck.pk,
        "BICEP2 Collaborations": Collaboration.objects.get(key="bicep2").pk,
        ":": None,
        "CMS": cms.pk,
    }

    # Today's code from here on (the pages, the matcher): the schema goes to the latest
    # migrations first (a later migration adds researcher columns the pages read).
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    # Old URLs: 301 to the collaboration page, 410 for punctuation, with or without slug.
    old = made["Keck Array"]
    response = client.get(f"/researchers/{old.pk}-{old.slug}")
    assert (response.status_code, response["Location"]) == (301, f"/collaborations/{keck.pk}-keck-array")
    response = client.get(f"/researchers/{made['CMS'].pk}")
    assert (response.status_code, response["Location"]) == (301, f"/collaborations/{cms.pk}-{cms.slug}")
    assert client.get(f"/researchers/{made[':'].pk}").status_code == 410
    assert client.get(f"/collaborations/{keck.pk}-keck-array").status_code == 200

    # Dutta, a person now, gets a researcher from the next matching run; no group does.
    researchers_match_local()
    assert Authorship.objects.get(slot=dutta).researcher.display_name == "Dipanwita Dutta"
    assert not Authorship.objects.filter(slot__is_collaboration=True).exists()
