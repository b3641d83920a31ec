"""The researcher summaries' reads, for a batch of researchers at once (issue 28).

Each function answers for a list of researcher ids in one query (the authored papers' read is
:func:`researchers.selectors.authored_paper_rows_many`): a kept summary for every researcher
costs a few queries per :data:`BATCH` researchers, not six each (964,000 researchers at a
million papers). A summary of one researcher is a batch of one, so a researcher's rows
never depend on who else is in the batch (``tests/researchers/test_summaries_many.py``
compares batches of 500 with batches of one over the sample).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from operator import itemgetter

from django.db import connections

from wove.replicas import read_alias

from .models import IdentitySource, MatchMethod
from .selectors import COAUTHORS_SHOWN

BATCH = 500


def _rows(sql: str, params: list) -> list[tuple]:
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# Each researcher's top co-authors, and the papers of the researcher's own each of them is on,
# in one read for a batch. Every step starts from the batch's own papers: each paper's slots are
# read through the paper index (a LATERAL kept whole, OFFSET 0), so a batch costs its own
# papers' authors whatever the archive's size. Left to itself PostgreSQL hashed every
# authorship of the archive once a batch (302,000 at 100 k papers), and paired the links'
# rows with a nested loop estimated at one row (3.6 million comparisons for 1,900 rows):
# 440 -> 12 ms a batch of 500 at 100 k papers, the same rows (BENCHMARKS.md, issue 29).
COAUTHORS_SQL = """
    WITH own AS MATERIALIZED (
             SELECT DISTINCT researcher_id AS ego, paper_id
               FROM researchers_authorship WHERE researcher_id = ANY(%s)),
         pairs AS MATERIALIZED (
             SELECT DISTINCT own.ego, own.paper_id, x.researcher_id AS member
               FROM own
              CROSS JOIN LATERAL (SELECT researcher_id FROM researchers_authorship b
                                   WHERE b.paper_id = own.paper_id OFFSET 0) x
              WHERE x.researcher_id <> own.ego),
         top AS MATERIALIZED (
             SELECT ego, member, display_name, slug, shared, rank FROM (
                 SELECT p.ego, p.member, r.display_name, r.slug, p.shared,
                        row_number() OVER (
                            PARTITION BY p.ego ORDER BY p.shared DESC, r.display_name, p.member
                        ) AS rank
                   FROM (SELECT ego, member, count(*) AS shared FROM pairs GROUP BY 1, 2) p
                  CROSS JOIN LATERAL (SELECT display_name, slug FROM researchers_researcher x
                                       WHERE x.id = p.member OFFSET 0) r
             ) ranked
              WHERE rank <= %s)
    SELECT ego, member, display_name, slug, shared, rank, NULL::bigint FROM top
     UNION ALL
    SELECT ego, member, NULL, NULL, NULL, NULL, paper_id FROM pairs
     WHERE (ego, member) IN (SELECT ego, member FROM top)
"""


def coauthor_rows_many(ids: list[int]) -> dict[int, tuple[list[list], list[list]]]:
    """``{researcher id: (coauthors, links)}`` for each of ``ids`` with a co-author.

    ``coauthors`` is ``[[researcher_id, display_name, slug, shared_papers], ...]``, at most
    :data:`COAUTHORS_SHOWN`, most shared first, then by name and id; ``links`` is
    ``[[researcher_id_a, researcher_id_b, shared_papers], ...]`` (``a < b``, sorted) for pairs
    of those co-authors who wrote one of the researcher's own papers together: the ego network
    of the researcher's papers, so the links cost the researcher's papers, not all of the
    busiest co-authors'. One query (:data:`COAUTHORS_SQL`): the top co-authors, and which of
    the researcher's papers each is on, paired here."""
    top: dict[int, list[tuple]] = defaultdict(list)
    on_paper: dict[tuple[int, int], list[int]] = defaultdict(list)
    for ego, member, name, slug, shared, rank, paper_id in _rows(COAUTHORS_SQL, [ids, COAUTHORS_SHOWN]):
        if paper_id is None:
            top[ego].append((rank, [member, name, slug, shared]))
        else:
            on_paper[ego, paper_id].append(member)
    pairs: Counter = Counter()
    for (ego, _), members in on_paper.items():
        members.sort()
        pairs.update((ego, a, b) for a, b in combinations(members, 2))
    links: dict[int, list[list]] = defaultdict(list)
    for ego, a, b in sorted(pairs):
        links[ego].append([a, b, pairs[ego, a, b]])
    return {
        ego: ([row for _, row in sorted(rows, key=itemgetter(0))], links.get(ego, []))
        for ego, rows in top.items()
    }


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
