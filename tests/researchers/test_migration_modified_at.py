"""researchers 0011: authorships stored before it get their creation time as ``modified_at``,
so the paper API's Last-Modified of every paper stays what it was.

Runs the real migration backwards and forwards on the test database, inside the test's
transaction (PostgreSQL's DDL is transactional, so everything is rolled back after).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from papers.models import Paper, PaperAuthor
from researchers.models import Authorship, Researcher

pytestmark = pytest.mark.django_db

BEFORE = [("researchers", "0010_authorship_no_evidence_idx")]
AFTER = [("researchers", "0011_authorship_modified_at")]
CREATED = datetime(2026, 11, 30, 9, 15, 42, 123456, tzinfo=UTC)


def test_existing_links_are_given_their_creation_time():
    # An identifier outside the bundled sample: a module before this one may leave it loaded.
    paper = Paper.objects.create(arxiv_id="2611.00011", slug="x", title="t", categories=["hep-ph"])
    slot = PaperAuthor.objects.create(
        paper=paper, position=1, name="C. Balázs", keyname="Balázs", forenames="C."
    )
    researcher = Researcher.objects.create(display_name="C. Balázs", slug="c-balazs", paper_count=1)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate(BEFORE)
    with connection.cursor() as cursor:
        # As the matcher wrote a link before 0011: no modified_at column yet.
        cursor.execute(
            "INSERT INTO researchers_authorship (slot_id, paper_id, researcher_id, method, source,"
            " confidence, block, created_at) VALUES (%s, %s, %s, 'local', '', 0.5, 'c balazs', %s)",
            [slot.pk, paper.pk, researcher.pk, CREATED],
        )
    MigrationExecutor(connection).migrate(AFTER)

    link = Authorship.objects.get(slot=slot)
    assert link.modified_at == link.created_at == CREATED
