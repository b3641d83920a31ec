"""Reads for the site's paper pages that combine apps (author slots with their researchers)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Prefetch, Q, QuerySet

from papers.models import Collaboration, Paper, PaperAuthor, PaperCollaboration
from researchers.models import Authorship, Researcher
from researchers.selectors import authors_with_researchers
from wove.compiled import CompiledQuery

MEMBERS_SHOWN = 10


def authors_for_page(paper: Paper, *, count: int, start: int = 0, stop: int | None = None) -> list[dict]:
    """The author slots ``[start:stop]`` in order as dicts ``{slot, researcher, authorship,
    position, author_count}``.

    ``researcher`` is the researcher the slot is matched to
    (``researchers.selectors.authors_with_researchers``) and ``authorship`` the link (its
    method, confidence, evidence and ``unconfirmed`` flag), both ``None`` while unmatched;
    ``count`` is the paper's number of slots (for "first"/"last" author positions).
    """
    return _author_items(authors_with_researchers(paper, start=start, stop=stop), count)


def _author_items(pairs: Iterable[tuple[PaperAuthor, Researcher | None]], count: int) -> list[dict]:
    out = []
    for slot, researcher in pairs:
        slot._author_count = count
        out.append(
            {
                "slot": slot,
                "researcher": researcher,
                "authorship": getattr(slot, "authorship", None),
                "position": slot.author_position,
                "author_count": count,
            }
        )
    return out


def authors_for_paper_page(
    paper: Paper, *, inline_max: int, shown: int
) -> tuple[list[dict], int, list | None]:
    """The paper page's authors in one query for an ordinary paper: ``(items, count, pairs)``.

    Reads the first ``inline_max + 1`` slots. A paper with at most ``inline_max`` gives all
    of them as :func:`authors_for_page` items, their number as ``count`` (no ``COUNT``) and
    the ``(slot, researcher)`` pairs (for :func:`researchers.selectors.author_lines_of`: its
    complete author list without a second read). A longer one gives the first ``shown``, the
    counted total and ``pairs`` ``None`` (the complete list is read, and cached, apart)."""
    pairs = authors_with_researchers(paper, stop=inline_max + 1)
    if len(pairs) <= inline_max:
        return _author_items(pairs, len(pairs)), len(pairs), pairs
    count = paper.authors.count()
    return _author_items(pairs[:shown], count), count, None


def collaboration_list() -> QuerySet[Collaboration]:
    """Every collaboration with a public paper, annotated ``paper_count`` (its public papers),
    most papers first, then by name: ``/collaborations``. One query a page (a collaboration
    row per distinct key; a few thousand at most in all of arXiv)."""
    public = Q(paper_entries__paper__deleted=False, paper_entries__paper__hidden=False)
    return (
        Collaboration.objects.annotate(
            paper_count=Count("paper_entries__paper", filter=public, distinct=True)
        )
        .filter(paper_count__gt=0)
        .order_by("-paper_count", "name", "id")
    )


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


def _paper_collaborations(paper_id: int) -> QuerySet[PaperCollaboration]:
    return (
        PaperCollaboration.objects.filter(paper_id=paper_id)
        .select_related("collaboration")
        .annotate(member_count=Count("members"))
        # A sliced prefetch: the first members by author position, not 3,000 of them.
        .prefetch_related(
            Prefetch(
                "members",
                queryset=PaperAuthor.objects.order_by("position")[:MEMBERS_SHOWN],
                to_attr="members_shown",
            )
        )
        .order_by("position", "id")
    )


# Every paper page asks, most papers have none: compiled once per process (wove.compiled;
# issue 28). A paper id is never negative.
PAPER_COLLABORATIONS = CompiledQuery(_paper_collaborations, sentinel=-1)


def paper_collaborations(paper: Paper) -> list[PaperCollaboration]:
    """The paper's collaboration entries in author order, with the collaboration, the
    number of member slots (persons who wrote "for" it) as ``member_count`` and the first
    ``MEMBERS_SHOWN`` of them as ``members_shown`` (``members_more`` the rest's number)."""
    entries = PAPER_COLLABORATIONS.all(paper.pk)
    for entry in entries:
        entry.members_more = entry.member_count - len(entry.members_shown)
    return entries
