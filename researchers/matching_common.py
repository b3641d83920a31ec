"""What both ways of matching share: confidences, the run summary, name blocks, counts, one slot per paper."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from wove.bulk import int_array

from .constraints import must_linked_groups
from .models import (
    Authorship,
    MatchConstraint,
    Researcher,
)
from .names import (
    parse_name,
)

# Confidence by method (0..1): an ORCID iD is the person's own claim; a registry's author id
# is its own disambiguation; a local match is only this archive's evidence.
CONFIDENCE_ORCID = 0.98
CONFIDENCE_EXTERNAL = 0.9
CONFIDENCE_LOCAL_LINKED = 0.6
CONFIDENCE_LOCAL_ALONE = 0.5


@dataclass(slots=True)
class MatchSummary:
    """What one matching run did (counts of author slots, researchers and papers).

    ``papers`` counts distinct papers with a slot matched by the run (``paper_ids`` holds
    them); ``slots`` every slot matched, by a source or locally; ``left_for_review`` the
    slots left for an editor (:class:`researchers.models.SlotReview`);
    ``evidence_backfilled`` the older authorships given their evidence
    (:func:`authorships_evidence_backfill`).
    """

    papers: int = 0
    slots: int = 0
    matched_by_source: int = 0
    matched_locally: int = 0
    researchers_created: int = 0
    collaborations_skipped: int = 0
    left_for_review: int = 0
    papers_with_citations: int = 0
    evidence_backfilled: int = 0
    seconds: float = 0.0
    paper_ids: set[int] = field(default_factory=set, repr=False)

    def line(self) -> str:
        """The one summary line the management command prints."""
        rate = self.slots / self.seconds if self.seconds else 0.0
        return (
            f"matched {self.slots} author slots on {self.papers} papers: "
            f"{self.matched_by_source} via sources, {self.matched_locally} locally, "
            f"{self.researchers_created} researchers created, "
            f"{self.collaborations_skipped} collaborations skipped"
            + (f", {self.left_for_review} left for review" if self.left_for_review else "")
            + (f", {self.evidence_backfilled} older links given evidence" if self.evidence_backfilled else "")
            + f" ({self.seconds:.2f} s, {rate:,.0f} slots/s)"
        )


# Serialises matching runs (a Celery task and a command at once): both would otherwise
# cluster the same unmatched slots and create duplicate researchers (wove.locks name).
MATCH_LOCK = "researchers.match"

# The tables a matching run writes, settled (analysed, or vacuumed) after it:
# wove.statistics.tables_settle.
MATCHED_TABLES = (Researcher._meta.db_table, Authorship._meta.db_table)


def slot_block(name: str, keyname: str, forenames: str) -> str:
    """The name block of an author slot (``"j smith"``), as stored on :class:`Authorship`."""
    return parse_name(name, keyname, forenames).block[:200]


# The slots' names (``sub.names``, sorted) with the owner's declared names; the common case
# (none declared) is the slots' array as it is, without sorting it again.
_VARIANTS_SQL = """CASE WHEN r.declared_names = '{}' THEN COALESCE(sub.names, '{}')
                    ELSE ARRAY(SELECT DISTINCT n
                                 FROM unnest(COALESCE(sub.names, '{}') || r.declared_names) AS n
                                ORDER BY n) END"""


def researchers_refresh(*, researcher_ids: Iterable[int]) -> None:
    """Recompute ``paper_count`` and ``name_variants`` of the given researchers.

    ``name_variants`` is every name the researcher's author slots are written with and
    every name its owner declared (``declared_names``, issue 31), distinct, in the
    database's collation order. One statement whatever the number of researchers; the
    display name is left alone (editors and the researcher may have set it).
    """
    ids = sorted(set(researcher_ids))
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE researchers_researcher r
               SET paper_count = COALESCE(sub.n, 0),
                   name_variants = {_VARIANTS_SQL},
                   modified_at = %s
              FROM (SELECT id AS rid FROM unnest(%s::bigint[]) AS id) ids
              LEFT JOIN (
                    SELECT a.researcher_id,
                           count(DISTINCT a.paper_id) AS n,
                           array_agg(DISTINCT s.name ORDER BY s.name) AS names
                      FROM researchers_authorship a
                      JOIN papers_paperauthor s ON s.id = a.slot_id
                     WHERE a.researcher_id = ANY(%s::bigint[])
                     GROUP BY a.researcher_id
              ) sub ON sub.researcher_id = ids.rid
             WHERE r.id = ids.rid
               AND (r.paper_count IS DISTINCT FROM COALESCE(sub.n, 0)
                    OR r.name_variants IS DISTINCT FROM {_VARIANTS_SQL})
            """,  # noqa: S608 - the module's constant; the values are parameters
            # Python's time, not now() (the transaction's start); rows whose count and
            # variants hold are not written, so their modified_at stays.
            [timezone.now(), *[int_array(ids)] * 2],
        )


def constraints_for(slot_ids: Iterable[int]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Editor constraints touching ``slot_ids``: ``(must_link, cannot_link)`` pairs of slot ids.

    The hook the curation issue fills (:class:`MatchConstraint`); one query.
    """
    ids = sorted(set(slot_ids))
    must: list[tuple[int, int]] = []
    cannot: list[tuple[int, int]] = []
    with connection.cursor() as cursor:
        # One array parameter rather than an IN list of thousands of placeholders.
        cursor.execute(
            "SELECT slot_a_id, slot_b_id, kind FROM researchers_matchconstraint "
            "WHERE slot_a_id = ANY(%s::bigint[]) OR slot_b_id = ANY(%s::bigint[])",
            [int_array(ids)] * 2,
        )
        rows = cursor.fetchall()
    for a, b, kind in rows:
        (must if kind == MatchConstraint.Kind.MUST else cannot).append((a, b))
    return must, cannot


@dataclass(slots=True)
class OneSlotPerPaper:
    """Which researcher holds which slots of which paper, so that one researcher never holds
    two slots of one paper unless an editor joined them (must-links,
    :func:`researchers.constraints.must_linked_groups`): two authors of one paper are two
    people, however a source's ids or local evidence pair them.

    ``held`` maps ``(paper id, researcher id)`` to slot ids. :meth:`allows` answers for one
    more slot (a query only when the researcher already holds a slot there); :meth:`add`
    records it.
    """

    held: dict[tuple[int, int], set[int]] = field(default_factory=dict)

    @classmethod
    def of_papers(
        cls, paper_ids: Iterable[int], researcher_ids: Iterable[int] | None = None
    ) -> OneSlotPerPaper:
        """The authorships already written on ``paper_ids`` (optionally only those of
        ``researcher_ids``); one query."""
        rows = Authorship.objects.filter(paper_id__in=set(paper_ids))
        if researcher_ids is not None:
            rows = rows.filter(researcher_id__in=set(researcher_ids))
        out = cls()
        for paper_id, researcher_id, slot_id in rows.values_list("paper_id", "researcher_id", "slot_id"):
            out.add(paper_id, researcher_id, slot_id)
        return out

    def allows(self, paper_id: int, researcher_id: int, slot_id: int) -> bool:
        """True when ``researcher_id`` may take ``slot_id`` of ``paper_id``."""
        others = self.held.get((paper_id, researcher_id))
        if not others or others == {slot_id}:
            return True
        groups = must_linked_groups([*others, slot_id])
        return len({groups.get(s, s) for s in [*others, slot_id]}) == 1

    def add(self, paper_id: int, researcher_id: int, slot_id: int) -> None:
        """Record that ``researcher_id`` holds ``slot_id`` of ``paper_id``."""
        self.held.setdefault((paper_id, researcher_id), set()).add(slot_id)
