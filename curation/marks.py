"""An editor's mark on authorships (confirm, reassign): the editor signal, and what an undo restores."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from researchers.evidence import authorships_unconfirmed_refresh
from researchers.models import Authorship, MatchMethod

# The confidence scale's editor level (0-1, the matcher's levels: ORCID iD 0.98, external
# author id 0.9, local evidence 0.6 linked / 0.5 alone, see researchers.services): an
# editor who looked at the paper is surer than a registry's author id, but below an iD the
# author claimed. Confirming only ever raises a link to it, never lowers one.
CONFIDENCE_EDITOR = 0.95
# The researcher's own word on a paper of a record they claimed (issue 31): the level of
# their own ORCID iD (0.98), above an editor's, since they know their papers best.
CONFIDENCE_OWNER = 0.98
# The authorship columns an editor's mark changes and an undo writes back. Each also sets
# ``modified_at`` (QuerySet.update skips auto_now) to now: an undo is a change too.
MARK_FIELDS = ("method", "confidence", "unconfirmed", "evidence")


def editor_signal(*, editor, action: str, record_id: int, **extra: Any) -> dict[str, Any]:
    """The evidence entry of an editor's decision: ``{"kind": "editor", "action":
    "confirmed"|"reassigned", "editor": username, "curation_id": record id, **extra}``
    (``extra``: e.g. ``from_researcher`` for a reassignment)."""
    name = editor.get_username() if editor is not None else ""
    return {"kind": "editor", "action": action, "editor": name, "curation_id": record_id, **extra}


def marks_snapshot(authorship_ids: Iterable[int]) -> list[dict[str, Any]]:
    """``[{"id", "before": {field: value}}]`` of :data:`MARK_FIELDS` as stored now, by id."""
    rows = Authorship.objects.filter(pk__in=list(authorship_ids)).order_by("pk").values("pk", *MARK_FIELDS)
    return [{"id": row.pop("pk"), "before": row} for row in rows]


def marks_confirm(
    authorship_ids: Iterable[int], *, signal: dict[str, Any], confidence: float = CONFIDENCE_EDITOR
) -> None:
    """Confirm links as they are: ``unconfirmed`` cleared, ``confidence`` raised to
    ``confidence`` (:data:`CONFIDENCE_EDITOR`; :data:`CONFIDENCE_OWNER` for the researcher's
    own; a higher one is kept), ``signal`` appended to ``evidence``."""
    now = timezone.now()
    for authorship in Authorship.objects.filter(pk__in=list(authorship_ids)).order_by("pk"):
        Authorship.objects.filter(pk=authorship.pk).update(
            unconfirmed=False,
            confidence=max(authorship.confidence, confidence),
            evidence=[*(authorship.evidence or []), signal],
            modified_at=now,
        )


def owner_signal(*, user, action: str, record_id: int, strong: bool, **extra: Any) -> dict[str, Any]:
    """The evidence entry of the researcher's own decision (issue 31): ``{"kind": "owner",
    "action": "confirmed"|"rejected"|"taken", "user": username, "curation_id": record id, "strong":
    proved by ORCID sign-in, **extra}`` (shape: :mod:`researchers.evidence`)."""
    name = user.get_username() if user is not None else ""
    return {
        "kind": "owner",
        "action": action,
        "user": name,
        "curation_id": record_id,
        "strong": bool(strong),
        **extra,
    }


def marks_reassigned(
    authorship_ids: Iterable[int], *, signal: dict[str, Any], confidence: float = CONFIDENCE_EDITOR
) -> None:
    """Links a person made (an editor's reassignment, an owner's take): method ``editor``,
    ``confidence`` (:data:`CONFIDENCE_EDITOR`; :data:`CONFIDENCE_OWNER` for the owner's),
    confirmed, and ``signal`` as their only evidence (the old signals argued for the
    researcher they were taken from)."""
    Authorship.objects.filter(pk__in=list(authorship_ids)).update(
        method=MatchMethod.EDITOR,
        confidence=confidence,
        unconfirmed=False,
        evidence=[signal],
        modified_at=timezone.now(),
    )


def marks_restore(marks: list[dict[str, Any]]) -> None:
    """Write the ``before`` values of :func:`marks_snapshot` back (authorships deleted since
    are skipped); ``modified_at`` moves on to now, since the link changed again."""
    now = timezone.now()
    for mark in marks:
        Authorship.objects.filter(pk=mark["id"]).update(**mark["before"], modified_at=now)


def marks_recompute(researcher_ids: Iterable[int]) -> int:
    """Recompute the ``unconfirmed`` mark (:func:`researchers.evidence.authorships_unconfirmed_refresh`)
    of every authorship in the name blocks the researchers ``researcher_ids`` hold, as they
    hold them now: call it after a merge, split or undo moved links, in its transaction.

    The mark reads who else holds the block and whether the researcher holds another paper,
    and a move changes both: merging the two "Branko Malesevic" records leaves block
    ``b malesevic`` to one researcher, so his name-only links are no longer guesses; a split
    gives the block a second holder again. The whole blocks are refreshed (other holders'
    links too), not only the moved links. Evidence is not rewritten, so an undo gives back
    exactly the marks the state before had. Two statements; returns rows changed.
    """
    blocks = set(
        Authorship.objects.filter(researcher_id__in=list(researcher_ids))
        .values_list("block", flat=True)
        .distinct()
    )
    return authorships_unconfirmed_refresh(blocks=blocks)
