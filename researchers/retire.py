"""Remove the researchers made from collaboration and junk slots, keeping their URLs (issue 19)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from papers.models import PaperCollaboration

from .models import Authorship, Researcher, RetiredResearcher


@dataclass(frozen=True, slots=True)
class RetireModels:
    """The models read and written; a data migration passes its historical ones."""

    researcher: type = Researcher
    authorship: type = Authorship
    retired: type = RetiredResearcher
    paper_collaboration: type = PaperCollaboration


def collaboration_researchers_retire(*, models: RetireModels | None = None) -> tuple[int, int]:
    """Take every authorship off collaboration and junk slots (``is_collaboration``), and
    remove each researcher left with none of a person: a :class:`RetiredResearcher` keeps
    its id and points at the collaboration its first such slot names on that paper (none
    for a ``:`` slot: 410). A researcher also holding person slots keeps them, its
    ``paper_count`` recounted. Re-runnable. Returns ``(authorships removed, researchers
    retired)``.
    """
    models = models or RetireModels()
    wrong = models.authorship.objects.filter(slot__is_collaboration=True)
    rows = list(
        wrong.order_by("researcher_id", "paper_id", "slot__position").values_list(
            "researcher_id", "paper_id", "slot__position"
        )
    )
    touched = {researcher_id for researcher_id, _, _ in rows}
    keep = set(
        models.authorship.objects.filter(researcher_id__in=touched, slot__is_collaboration=False)
        .values_list("researcher_id", flat=True)
        .distinct()
    )
    first_slot: dict[int, tuple[int, int]] = {}
    for researcher_id, paper_id, position in rows:
        if researcher_id not in keep:
            first_slot.setdefault(researcher_id, (paper_id, position))
    entries = {
        (paper_id, position): collaboration_id
        for paper_id, position, collaboration_id in models.paper_collaboration.objects.filter(
            paper_id__in={p for p, _ in first_slot.values()}
        ).values_list("paper_id", "position", "collaboration_id")
    }
    names = dict(models.researcher.objects.filter(pk__in=list(first_slot)).values_list("pk", "display_name"))
    models.retired.objects.bulk_create(
        [
            models.retired(id=pk, display_name=names.get(pk, "")[:300], collaboration_id=entries.get(slot))
            for pk, slot in first_slot.items()
        ],
        ignore_conflicts=True,
    )
    removed, _ = wrong.delete()
    models.researcher.objects.filter(pk__in=list(first_slot)).delete()
    for researcher_id, count in (
        models.authorship.objects.filter(researcher_id__in=keep)
        .values("researcher_id")
        .annotate(n=Count("paper_id", distinct=True))
        .values_list("researcher_id", "n")
    ):
        models.researcher.objects.filter(pk=researcher_id).update(paper_count=count)
    return removed, len(first_slot)
