"""institutions 0007: links stored before the record matched was kept.

A link at an institution that succeeds no record can only have been direct: it is recorded
so. A link at a successor may have been moved there: it stays unrecorded, and an arXiv
string link's slot is made pending, so the affiliations stage matches it again and records
how. Runs the real migrations backwards and forwards inside the test's transaction.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from institutions.models import AffiliationMatchMark, AuthorAffiliation, Institution
from institutions.services import affiliations_match, institutions_load
from papers.models import Paper, PaperAuthor

from .conftest import ROR_FIXTURES

pytestmark = pytest.mark.django_db

BEFORE = [("institutions", "0006_institution_superseded_by")]
AFTER = [("institutions", "0008_author_affiliation_resolution_check")]
ASIA_WITHDRAWN = ROR_FIXTURES / "edited_03z7kp760_asia_university_withdrawn.json"
ASIA = ROR_FIXTURES / "edited_038a1tp19_asia_university.json"
MGRAPHDTA_D = "Department of Bioinformatics and Medical Engineering, Asia University, Taichung, 41354, Taiwan"


def test_old_links_are_recorded_direct_only_where_nothing_was_moved(ror_registry):
    institutions_load(paths=[ASIA_WITHDRAWN, ASIA])
    asia = Institution.objects.get(ror_id="038a1tp19")  # succeeds 03z7kp760
    cern = ror_registry["01ggx4157"]  # succeeds nothing
    paper = Paper.objects.create(arxiv_id="2611.00701", slug="x", title="MGraphDTA")
    moved = PaperAuthor.objects.create(
        paper=paper, position=4, name="C. Y.-C. Chen", affiliations=[MGRAPHDTA_D]
    )
    kept = PaperAuthor.objects.create(paper=paper, position=1, name="Z. Yang", affiliations=["CERN"])
    now = timezone.now()
    for slot in (moved, kept):
        AffiliationMatchMark.objects.create(slot=slot, affiliations=slot.affiliations, matched_at=now)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate(BEFORE)
    with connection.cursor() as cursor:
        # As affiliation matching wrote links before 0007: no matched_institution, no resolution.
        for slot, institution in ((moved, asia), (kept, cern)):
            cursor.execute(
                "INSERT INTO institutions_authoraffiliation (slot_id, institution_id, source,"
                " string_origin, matched_string, confidence, created_at, modified_at)"
                " VALUES (%s, %s, 'string-match', 'arxiv', %s, 0.95, now(), now())",
                [slot.pk, institution.pk, slot.affiliations[0]],
            )
    MigrationExecutor(connection).migrate(AFTER)

    links = {a.slot_id: a for a in AuthorAffiliation.objects.all()}
    assert (links[kept.pk].matched_institution_id, links[kept.pk].resolution) == (cern.pk, "direct")
    assert (links[moved.pk].matched_institution_id, links[moved.pk].resolution) == (None, "")
    assert set(AffiliationMatchMark.objects.values_list("slot_id", flat=True)) == {kept.pk}
    # The stage matches the pending slot again and records how (the successor carries the name).
    affiliations_match(pending_only=True)
    links[moved.pk].refresh_from_db()
    assert (links[moved.pk].matched_institution_id, links[moved.pk].resolution) == (asia.pk, "direct")
