"""wove.bulk.copy_upsert's straight path (``new``): rows the caller expects to be new go into
the table by one ``COPY``; a key that exists after all sends them through the upsert, so an
existing row is updated, never lost, and the caller's transaction goes on."""

from __future__ import annotations

import pytest
from django.db import transaction

from papers.models import Category
from wove.bulk import copy_upsert

pytestmark = pytest.mark.django_db

FIELDS = ["code", "name", "group", "group_name", "archive", "description", "active"]


def _row(code: str, name: str) -> tuple:
    return (code, name, "x-test", "Test group", "x-test", "", True)


def _upsert(rows, *, new: bool) -> None:
    copy_upsert(
        model=Category, fields=FIELDS, rows=rows, conflict_fields=["code"], update_fields=["name"], new=new
    )


def test_new_rows_go_straight_in_and_an_existing_key_is_updated_instead():
    # Codes no migration loads (arXiv's taxonomy is in the table already).
    with transaction.atomic():
        _upsert([_row("x-test.AA", "First name"), _row("x-test.BB", "Second")], new=True)
        assert dict(Category.objects.filter(code__startswith="x-test.").values_list("code", "name")) == {
            "x-test.AA": "First name",
            "x-test.BB": "Second",
        }
        # One key exists: the straight COPY fails in its savepoint; the upsert writes both rows.
        _upsert([_row("x-test.AA", "Renamed"), _row("x-test.CC", "Third")], new=True)
        assert dict(Category.objects.filter(code__startswith="x-test.").values_list("code", "name")) == {
            "x-test.AA": "Renamed",
            "x-test.BB": "Second",
            "x-test.CC": "Third",
        }
        assert Category.objects.get(code="x-test.CC").group == "x-test"


def test_rows_given_once_are_all_written_after_a_conflict_and_other_errors_are_djangos():
    from django.db import IntegrityError

    with transaction.atomic():
        _upsert([_row("x-test.DD", "Fourth")], new=True)
        # A generator, read once: kept for the upsert after the conflict on x-test.DD.
        _upsert((row for row in [_row("x-test.EE", "Fifth"), _row("x-test.DD", "Renamed")]), new=True)
        assert dict(Category.objects.filter(code__startswith="x-test.").values_list("code", "name")) == {
            "x-test.DD": "Renamed",
            "x-test.EE": "Fifth",
        }
        # Not a key conflict (a name left out): raised, as Django's own error, not swallowed.
        with pytest.raises(IntegrityError, match="name"):
            _upsert([("x-test.FF", None, "x-test", "Test group", "x-test", "", True)], new=True)


def test_copy_insert_raises_djangos_integrity_error_on_an_existing_key():
    # copy_insert is for keys the caller holds a lock on: one that exists is a bug, raised.
    from django.db import IntegrityError

    from wove.bulk import copy_insert

    with transaction.atomic():
        copy_insert(model=Category, fields=FIELDS, rows=[_row("x-test.GG", "Seventh")])
        assert Category.objects.get(code="x-test.GG").name == "Seventh"
        with pytest.raises(IntegrityError, match="already exists"), transaction.atomic():
            copy_insert(model=Category, fields=FIELDS, rows=[_row("x-test.GG", "Again")])
        assert Category.objects.get(code="x-test.GG").name == "Seventh"
