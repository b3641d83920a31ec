"""Reads for the site's paper pages that combine apps (author slots with their researchers)."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from papers.models import Collaboration, Paper, PaperCollaboration
from researchers.models import Authorship, Researcher
from researchers.selectors import authors_with_researchers


def authors_for_page(paper: Paper) -> list[dict]:
    """The ordered author slots as dicts ``{slot, researcher, authorship, position, author_count}``.

    ``researcher`` is the researcher the slot is matched to
    (``researchers.selectors.authors_with_researchers``) and ``authorship`` the link (its
    method, confidence, evidence and ``unconfirmed`` flag), both ``None`` while unmatched.
    """
    slots = list(paper.authors.all())
    researchers: dict[int, object] = {}
    authorships: dict[int, object] = {}
    for slot, researcher in authors_with_researchers(paper):
        researchers[slot.pk] = researcher
        authorships[slot.pk] = getattr(slot, "authorship", None)
    count = len(slots)
    out = []
    for slot in slots:
        slot._author_count = count
        out.append(
            {
                "slot": slot,
                "researcher": researchers.get(slot.pk),
                "authorship": authorships.get(slot.pk),
                "position": slot.author_position,
                "author_count": count,
            }
        )
    return out


def collaboration_papers(collaboration: Collaboration) -> QuerySet[Paper]:
    """The public papers naming ``collaboration`` (as an author or through a member), newest first."""
    return (
        Paper.objects.public()
        .filter(collaborations__collaboration=collaboration)
        .select_related("primary_category")
        .newest()
    )


def collaboration_members(collaboration: Collaboration, *, limit: int = 200) -> list[tuple[Researcher, int]]:
    """Researchers seen writing "for" ``collaboration`` (matched person slots among its
    members on any public paper): ``[(researcher, papers)]``, most papers first, at most
    ``limit``. Merged-away researchers count for their survivor only through their
    authorships, which curation moves."""
    rows = (
        Authorship.objects.filter(
            slot__collaborations__collaboration=collaboration,
            paper__deleted=False,
            paper__hidden=False,
            researcher__merged_into__isnull=True,
        )
        .values("researcher_id")
        .annotate(n=Count("paper_id", distinct=True))
        .order_by("-n", "researcher_id")[:limit]
    )
    counts = {row["researcher_id"]: row["n"] for row in rows}
    people = Researcher.objects.in_bulk(list(counts))
    return [(people[pk], n) for pk, n in counts.items() if pk in people]


def paper_collaborations(paper: Paper) -> list[PaperCollaboration]:
    """The paper's collaboration entries in author order, with the collaboration and the
    member slots (persons who wrote "for" it) loaded."""
    return list(
        PaperCollaboration.objects.filter(paper=paper)
        .select_related("collaboration")
        .prefetch_related("members")
        .order_by("position", "id")
    )
