"""Follows across an editor's merge (moved, undone) and split (a note for the next digest)."""

from __future__ import annotations

import json

import pytest

from accounts import services
from accounts.models import DigestNote, Follow
from researchers.models import Researcher
from tests.accounts.conftest import make_reader

pytestmark = pytest.mark.django_db


def test_merge_moves_follows_to_the_survivor_and_undo_puts_them_back(archive, reader):
    survivor = archive["aickelin"]
    duplicate = Researcher.objects.create(display_name="U. Aickelin")
    grace = make_reader("grace@example.org")
    alan = make_reader("alan@example.org")
    services.follow_create(user_id=reader.pk, target=duplicate)  # moves
    services.follow_create(user_id=grace.pk, target=duplicate)  # already follows the survivor
    services.follow_create(user_id=grace.pk, target=survivor)
    services.follow_create(user_id=alan.pk, target=survivor)  # untouched
    reader_follow = Follow.objects.get(user=reader)
    grace_dropped = Follow.objects.get(user=grace, researcher=duplicate)

    undo = services.follows_move(from_researcher_id=duplicate.pk, to_researcher_id=survivor.pk)
    assert undo == {
        "from_researcher_id": duplicate.pk,
        "to_researcher_id": survivor.pk,
        "moved": [reader_follow.pk],
        "dropped": [{"user_id": grace.pk, "created_at": grace_dropped.created_at.isoformat()}],
    }
    json.dumps(undo)  # storable in the curation log as is
    assert sorted(Follow.objects.filter(researcher=survivor).values_list("user_id", flat=True)) == sorted(
        [reader.pk, grace.pk, alan.pk]
    )
    assert not Follow.objects.filter(researcher=duplicate).exists()
    assert Follow.objects.get(pk=reader_follow.pk).created_at == reader_follow.created_at
    # A retried merge finds nothing more to move.
    again = services.follows_move(from_researcher_id=duplicate.pk, to_researcher_id=survivor.pk)
    assert again["moved"] == [] and again["dropped"] == []

    assert services.follows_move_undo(undo=undo) == 2
    assert sorted(Follow.objects.filter(researcher=duplicate).values_list("user_id", flat=True)) == sorted(
        [reader.pk, grace.pk]
    )
    assert Follow.objects.get(user=grace, researcher=duplicate).created_at == grace_dropped.created_at
    assert sorted(Follow.objects.filter(researcher=survivor).values_list("user_id", flat=True)) == sorted(
        [grace.pk, alan.pk]
    )
    assert services.follows_move_undo(undo=undo) == 0  # idempotent


def test_split_writes_one_note_per_follower(archive, reader, settings):
    site = settings.SITE_URL
    troccaz = archive["troccaz"]
    grace = make_reader("grace@example.org")
    services.follow_create(user_id=reader.pk, target=troccaz)
    services.follow_create(user_id=grace.pk, target=troccaz)
    services.follow_create(user_id=grace.pk, target=archive["aickelin"])
    new = Researcher.objects.create(display_name="J. Troccaz")
    assert services.follows_note_split(researcher_id=troccaz.pk, new_researcher_ids=[new.pk]) == 2
    notes = DigestNote.objects.order_by("user_id")
    assert [note.user_id for note in notes] == sorted([reader.pk, grace.pk])
    assert notes[0].text == (
        "An editor split Jocelyne Troccaz into separate researcher records. You still follow "
        f"Jocelyne Troccaz ({site}/researchers/{troccaz.pk}-jocelyne-troccaz); papers "
        f"moved to: J. Troccaz ({site}/researchers/{new.pk}-j-troccaz). Follow them "
        "from their pages if they are who you meant."
    )
    assert services.follows_note_split(researcher_id=999999, new_researcher_ids=[]) == 0
