"""A paper's collaborations, written from its author slots (issue 19)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import F, Func, Q, TextField, Value

from .authors import AuthorSlot, classify_slot, collaboration_key
from .models import Collaboration, PaperAuthor, PaperCollaboration
from .text import make_slug


@dataclass(frozen=True, slots=True)
class CollaborationModels:
    """The three models written; a data migration passes its historical ones."""

    collaboration: type = Collaboration
    paper_collaboration: type = PaperCollaboration
    paper_author: type = PaperAuthor


def collaborations_write(
    *, paper_slots: Sequence[tuple[int, Sequence[AuthorSlot]]], models: CollaborationModels | None = None
) -> int:
    """Rewrite the collaborations of each ``(paper id, slots)`` from the slots' ``groups``.

    A collaboration slot adds the collaborations it names; a person slot writing "for"
    one adds it and becomes one of its ``members`` on that paper. Collaborations are found
    by :func:`~papers.authors.collaboration_key` or created. The papers' earlier entries
    are replaced. Returns the number of paper collaboration entries written.
    """
    models = models or CollaborationModels()
    wanted: dict[int, dict[str, tuple[int, str, list[int]]]] = {}
    for paper_id, slots in paper_slots:
        entries: dict[str, tuple[int, str, list[int]]] = {}
        for position, slot in enumerate(slots, start=1):
            for name in slot.groups:
                key = collaboration_key(name)[:300]
                if not key:
                    continue
                first = entries.setdefault(key, (position, name[:300], []))
                if not slot.is_collaboration:
                    first[2].append(position)
        wanted[paper_id] = entries
    _delete_entries(list(wanted), models)
    if not any(wanted.values()):
        return 0
    names: dict[str, str] = {}  # the first spelling seen names a new collaboration
    for entries in wanted.values():
        for key, (_, name, _) in entries.items():
            names.setdefault(key, name)
    by_key = _collaborations_by_key(names, models)
    rows = [
        models.paper_collaboration(paper_id=paper_id, collaboration_id=by_key[key], position=position)
        for paper_id, entries in wanted.items()
        for key, (position, _, _) in entries.items()
    ]
    models.paper_collaboration.objects.bulk_create(rows)
    _write_members(wanted, rows, by_key, models)
    return len(rows)


def _delete_entries(paper_ids: list[int], models: CollaborationModels) -> None:
    """Delete the papers' entries and their member links in one statement (the ORM's
    cascade took three per page of a harvest)."""
    if not paper_ids:
        return
    entry = models.paper_collaboration._meta.db_table
    through = models.paper_collaboration.members.through._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH gone AS (DELETE FROM {entry} WHERE paper_id = ANY(%s) RETURNING id) "  # noqa: S608
            f"DELETE FROM {through} WHERE papercollaboration_id IN (SELECT id FROM gone)",
            [paper_ids],
        )


def _collaborations_by_key(names: dict[str, str], models: CollaborationModels) -> dict[str, int]:
    """Ids of the collaborations with these keys, creating the missing ones (a concurrent
    writer's row wins through the unique key)."""
    model = models.collaboration
    found = dict(model.objects.filter(key__in=list(names)).values_list("key", "id"))
    missing = [
        model(name=name, key=key, slug=make_slug(name, fallback="collaboration"))
        for key, name in names.items()
        if key not in found
    ]
    if missing:
        model.objects.bulk_create(missing, ignore_conflicts=True)
        found = dict(model.objects.filter(key__in=list(names)).values_list("key", "id"))
    return found


def _write_members(
    wanted: dict[int, dict[str, tuple[int, str, list[int]]]],
    rows: list,
    by_key: dict[str, int],
    models: CollaborationModels,
) -> None:
    """Link each entry to the person slots written "for" it (one read, one write)."""
    keyed = {
        (paper_id, key): positions
        for paper_id, entries in wanted.items()
        for key, (_, _, positions) in entries.items()
        if positions
    }
    if not keyed:
        return
    slot_ids = {
        (paper_id, position): pk
        for paper_id, position, pk in models.paper_author.objects.filter(
            paper_id__in=list({paper_id for paper_id, _ in keyed})
        ).values_list("paper_id", "position", "id")
    }
    entry_ids = {(row.paper_id, row.collaboration_id): row.pk for row in rows}
    through = models.paper_collaboration.members.through
    links = [
        through(
            papercollaboration_id=entry_ids[(paper_id, by_key[key])], paperauthor_id=slot_ids[(paper_id, p)]
        )
        for (paper_id, key), positions in keyed.items()
        for p in positions
        if (paper_id, p) in slot_ids
    ]
    through.objects.bulk_create(links, ignore_conflicts=True)


# Slots worth a second look when backfilling: flagged, without forenames, naming a group
# word or "for", or an affiliation that may be membership. The rest cannot change.
_SUSPECT_NAME = r"(collab|consort|team|group|array|project|experiment|observ|survey|\mfor\M|^[^[:alnum:]]*$)"
_SUSPECT_AFFILIATION = r"(^|\|)\(?\s*(for|on behalf of)\s"


def collaborations_backfill(
    *, models: CollaborationModels | None = None, batch: int = 500
) -> tuple[int, int]:
    """Classify stored author slots again with :func:`papers.authors.classify_slot` and
    write the collaborations of every paper with a slot that may name one (the data
    migration of issue 19 runs this on its historical models).

    A slot harvested before issue 19 is updated in place (same paper and position, so an
    authorship on it stays for the researchers migration to judge). Returns
    ``(slots changed, papers written)``.
    """
    models = models or CollaborationModels()
    slot_model = models.paper_author
    suspects = (
        slot_model.objects.annotate(
            _affs=Func(F("affiliations"), Value("|"), function="array_to_string", output_field=TextField())
        )
        .filter(
            Q(is_collaboration=True)
            | Q(forenames="")
            | Q(name__iregex=_SUSPECT_NAME)
            | Q(_affs__iregex=_SUSPECT_AFFILIATION)
        )
        .values_list("paper_id", flat=True)
        .distinct()
        .order_by("paper_id")
    )
    paper_ids = list(suspects)
    changed = 0
    for start in range(0, len(paper_ids), batch):
        chunk = paper_ids[start : start + batch]
        paper_slots = []
        by_paper: dict[int, list] = {}
        for row in slot_model.objects.filter(paper_id__in=chunk).order_by("paper_id", "position"):
            by_paper.setdefault(row.paper_id, []).append(row)
        for paper_id, rows in by_paper.items():
            slots = [_reclassify(row) for row in rows]
            changed += _save_changed(rows, slots, slot_model)
            paper_slots.append((paper_id, slots))
        collaborations_write(paper_slots=paper_slots, models=models)
    return changed, len(paper_ids)


def _reclassify(row) -> AuthorSlot:
    # A slot stored as a collaboration kept only its whole name ("Dipanwita Dutta for the
    # CMS Collaboration"); a person slot kept its parts.
    parts = None if row.is_collaboration else (row.keyname, row.forenames, row.suffix)
    return classify_slot(row.name, parts, list(row.affiliations))


def _save_changed(rows: list, slots: list[AuthorSlot], slot_model: type) -> int:
    fields = ["name", "keyname", "forenames", "suffix", "affiliations", "is_collaboration"]
    dirty = []
    for row, slot in zip(rows, slots, strict=True):
        new = (slot.name[:500], slot.keyname[:300], slot.forenames[:300], slot.suffix[:50])
        if (row.name, row.keyname, row.forenames, row.suffix) != new or (
            row.affiliations != slot.affiliations or row.is_collaboration != slot.is_collaboration
        ):
            row.name, row.keyname, row.forenames, row.suffix = new
            row.affiliations, row.is_collaboration = slot.affiliations, slot.is_collaboration
            dirty.append(row)
    slot_model.objects.bulk_update(dirty, fields)
    return len(dirty)
