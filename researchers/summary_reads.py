"""The researcher summaries' reads, for a batch of researchers at once (issue 28).

Each function answers for a list of researcher ids in one query (the authored papers' read is
:func:`researchers.selectors.authored_paper_rows_many`): a kept summary for every researcher
costs a few queries per :data:`BATCH` researchers, not six each (964,000 researchers at a
million papers). A summary of one researcher is a batch of one, so a researcher's rows
never depend on who else is in the batch (``tests/researchers/test_summaries_many.py``
compares batches of 500 with batches of one over the sample).
"""

from __future__ import annotations

from collections import defaultdict

from django.db import connections

from wove.replicas import read_alias

from .models import IdentitySource, MatchMethod
from .selectors import COAUTHORS_SHOWN

BATCH = 500


def _rows(sql: str, params: list) -> list[tuple]:
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# The links among each researcher's top co-authors on the researcher's own papers, for
# parallel arrays of (researcher, co-author) ids and the batch's researcher ids: the top
# co-authors' slots on the researcher's own papers (``sel``), paired per paper. Each step is
# kept (MATERIALIZED) so that the plan starts from the researcher's papers: left to itself,
# PostgreSQL read every paper of every top co-author (129,000 authorships for 500
# single-paper researchers at a million papers), a cost that grows with the archive. At 1 M,
# per batch of 500: 1,455 -> 888 ms for the busiest researchers, 40 -> 37 ms for
# single-paper ones (the same rows).
LINKS_SQL = """
    WITH m AS MATERIALIZED (SELECT * FROM unnest(%s::bigint[], %s::bigint[]) AS t(ego, member)),
         own AS MATERIALIZED (SELECT DISTINCT researcher_id AS ego, paper_id
                                FROM researchers_authorship WHERE researcher_id = ANY(%s)),
         sel AS MATERIALIZED (SELECT DISTINCT own.ego, own.paper_id, x.researcher_id AS member
                                FROM own
                                JOIN researchers_authorship x ON x.paper_id = own.paper_id
                                JOIN m ON m.ego = own.ego AND m.member = x.researcher_id)
    SELECT a.ego, a.member, b.member, count(*)
      FROM sel a
      JOIN sel b ON b.ego = a.ego AND b.paper_id = a.paper_id AND a.member < b.member
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
"""


def coauthor_rows_many(ids: list[int]) -> dict[int, tuple[list[list], list[list]]]:
    """``{researcher id: (coauthors, links)}`` for each of ``ids`` with a co-author.

    ``coauthors`` is ``[[researcher_id, display_name, slug, shared_papers], ...]``, at most
    :data:`COAUTHORS_SHOWN`, most shared first, then by name and id; ``links`` is
    ``[[researcher_id_a, researcher_id_b, shared_papers], ...]`` (``a < b``, sorted) for pairs
    of those co-authors who wrote one of the researcher's own papers together: the ego network
    of the researcher's papers, so the links cost the researcher's papers, not all of the
    busiest co-authors'. Two queries: the top co-authors by a window over the batch's
    pairs, then the links."""
    top = _rows(
        """
        SELECT ego, coauthor, display_name, slug, shared FROM (
            SELECT a.researcher_id AS ego, b.researcher_id AS coauthor, r.display_name, r.slug,
                   count(DISTINCT b.paper_id) AS shared,
                   row_number() OVER (
                       PARTITION BY a.researcher_id
                       ORDER BY count(DISTINCT b.paper_id) DESC, r.display_name, b.researcher_id
                   ) AS rank
              FROM researchers_authorship a
              JOIN researchers_authorship b ON b.paper_id = a.paper_id AND b.researcher_id <> a.researcher_id
              JOIN researchers_researcher r ON r.id = b.researcher_id
             WHERE a.researcher_id = ANY(%s)
             GROUP BY a.researcher_id, b.researcher_id, r.display_name, r.slug
        ) ranked
         WHERE rank <= %s
         ORDER BY ego, rank
        """,
        [ids, COAUTHORS_SHOWN],
    )
    coauthors: dict[int, list[list]] = defaultdict(list)
    for ego, *row in top:
        coauthors[ego].append(list(row))
    if not coauthors:
        return {}
    egos = [ego for ego, rows in coauthors.items() for _ in rows]
    members = [row[0] for rows in coauthors.values() for row in rows]
    links: dict[int, list[list]] = defaultdict(list)
    for ego, a, b, shared in _rows(LINKS_SQL, [egos, members, list(coauthors)]):
        links[ego].append([a, b, shared])
    return {ego: (rows, links.get(ego, [])) for ego, rows in coauthors.items()}


def identity_sources_many(ids: list[int]) -> dict[int, list[str]]:
    """``{researcher id: [display name, ...]}``: the registries behind each identity (Semantic
    Scholar, OpenAlex, in :class:`researchers.models.IdentitySource` order), from its external
    identities and its links' sources; absent when only local evidence holds the record
    together. One query."""
    wanted = [IdentitySource.SEMANTIC_SCHOLAR.value, IdentitySource.OPENALEX.value]
    found: dict[int, set[str]] = defaultdict(set)
    for researcher_id, source in _rows(
        """
        SELECT researcher_id, source FROM researchers_externalidentity
         WHERE researcher_id = ANY(%s) AND source = ANY(%s)
        UNION
        SELECT researcher_id, source FROM researchers_authorship
         WHERE researcher_id = ANY(%s) AND source = ANY(%s)
        """,
        [ids, wanted, ids, wanted],
    ):
        found[researcher_id].add(source)
    return {
        pk: [label for value, label in IdentitySource.choices if value in sources]
        for pk, sources in found.items()
    }


def with_local_authorships(ids: list[int]) -> set[int]:
    """Those of ``ids`` holding an authorship matched by local evidence. One query."""
    sql = """
        SELECT DISTINCT researcher_id FROM researchers_authorship
         WHERE researcher_id = ANY(%s) AND method = %s
    """
    return {pk for (pk,) in _rows(sql, [ids, MatchMethod.LOCAL.value])}
