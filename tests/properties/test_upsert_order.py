"""Any order of the same OAI messages gives the same stored paper (issue 18).

The messages are five moments of arXiv 0801.3674 in both OAI formats, edited from two
recorded records (:mod:`tests.order_messages`). Each permutation, cut into batches at drawn
places (a page may hold one paper twice), is upserted into an empty database and the paper
read back: fields, versions and author slots must equal what the chronological order gives,
checked by hand below.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.db import transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from papers.models import Paper
from papers.records import ArxivRecord
from papers.upsert import ORDER_FIELDS, SOURCE_FIELDS, CategoryMap, papers_upsert
from tests.order_messages import MESSAGES

NAMES = sorted(MESSAGES)

CHRONOLOGICAL = ["raw v2", "arXiv v2", "raw v3", "raw v4", "arXiv v4"]


def _upsert_in_batches(order: list[str], cuts: set[int]) -> None:
    categories = CategoryMap()
    batch: list[ArxivRecord] = []
    for index, name in enumerate(order):
        batch.append(MESSAGES[name])
        if index + 1 in cuts or index + 1 == len(order):
            papers_upsert(records=batch, categories=categories)
            batch = []


def _stored() -> dict:
    paper = Paper.objects.get(arxiv_id="0801.3674")
    fields = {
        f: getattr(paper, "primary_category_id" if f == "primary_category" else f) for f in SOURCE_FIELDS
    }
    fields.update({f: getattr(paper, f) for f in ORDER_FIELDS})
    fields["versions"] = list(paper.versions.values_list("version", "submitted_at", "size_kb", "source_type"))
    fields["authors"] = list(
        paper.authors.values_list(
            "position", "name", "keyname", "forenames", "affiliations", "is_collaboration"
        )
    )
    return fields


def _state_after(order: list[str], cuts: set[int]) -> dict:
    with transaction.atomic():
        _upsert_in_batches(order, cuts)
        state = _stored()
        transaction.set_rollback(True)  # each example starts from an empty table
    return state


@pytest.fixture(scope="module")
def expected(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        return _state_after(CHRONOLOGICAL, set())


@pytest.mark.django_db
def test_the_chronological_order_gives_the_newest_of_each_part(expected):
    # Content from the newest arXivRaw (the arXiv format of the same day ranks below it).
    assert expected["title"] == (
        "A Study of Structure Formation and Reheating in the D3/D7 Brane Inflation Model"
    )
    assert (expected["dois"], expected["journal_ref"]) == (
        ["10.1103/PhysRevD.78.083502"],
        "Phys.Rev.D78:083502,2008",
    )
    assert expected["versions_source"] == "arXivRaw"
    # Authors from the arXiv format of the newest day (all three), not the older two.
    assert [a[1] for a in expected["authors"]] == ["Michael R. Douglas", "Jessie Shelton", "Gonzalo Torroba"]
    assert expected["authors_source"] == "arXiv"
    assert expected["versions"] == [
        (1, datetime(2008, 1, 23, 21, 13, 53, tzinfo=UTC), 33, ""),
        (2, datetime(2008, 2, 4, 15, 5, 55, tzinfo=UTC), 33, ""),
        (3, datetime(2008, 3, 19, 1, 33, 3, tzinfo=UTC), 34, ""),
        (4, datetime(2008, 9, 11, 22, 3, 53, tzinfo=UTC), 31, ""),
    ]
    assert expected["latest_version"] == 4
    assert expected["submitted_at"] == datetime(2008, 1, 23, 21, 13, 53, tzinfo=UTC)
    assert expected["updated_date"] == date(2008, 9, 11)
    assert (
        expected["oai_datestamp"]
        == expected["content_asof"]
        == expected["authors_asof"]
        == date(2008, 11, 26)
    )
    assert expected["submitter"] == "Robert Brandenberger"
    assert expected["license"] == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"


@pytest.mark.django_db
@settings(max_examples=40, deadline=None)
@given(
    order=st.permutations(NAMES),
    cuts=st.sets(st.integers(1, len(NAMES) - 1), max_size=len(NAMES) - 1),
)
def test_any_order_gives_the_same_paper(expected, order, cuts):
    assert _state_after(list(order), cuts) == expected


@pytest.mark.django_db
def test_an_older_message_after_the_newest_changes_nothing(expected):
    # The worst case by hand: everything newest first, then the older ones one by one.
    assert _state_after(["raw v4", "arXiv v4", "raw v3", "arXiv v2", "raw v2"], {1, 2, 3, 4}) == expected
