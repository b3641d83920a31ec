"""Shared co-authors of two researcher records: the one rule the same-name queue and the comparison read.

**The rule.** A co-author of a record is another author slot on one of its papers (the
record's own slot and collaborations aside). Two records share a co-author when both have
one who is

- the same researcher (each slot's authorship names one researcher record), or
- for a slot no researcher holds (not matched yet, or left for review), the same name as
  spelled on the paper (spaces collapsed, case folded): nothing better is known for it.

A name block is not a co-author: "H. Lee" on one record's paper and "Hyun Lee" on the
other's share the block ``h lee`` but are two researchers here, so they are not shared.
(The queue used to compare co-authors' name blocks and ranked Jae-Joon Lee and J. Lee,
two people, first on "shared co-authors: h lee, m lee"; the comparison, reading researcher
ids, said none.) The records being compared are never their own shared co-authors.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import connections

from wove.replicas import read_alias

# A co-author: ("researcher", id) for a slot someone holds, ("name", folded spelling) otherwise.
CoauthorKey = tuple[str, int | str]

# No join with the researcher table: the same-name queue's load is pinned in rows read from it
# (tests/curation/test_queue_load.py), and a co-author is shown as written on the paper.
_COAUTHORS_SQL = """
    SELECT DISTINCT a.researcher_id, b.researcher_id, s.name
      FROM researchers_authorship a
      JOIN papers_paperauthor s ON s.paper_id = a.paper_id AND s.id <> a.slot_id AND NOT s.is_collaboration
      LEFT JOIN researchers_authorship b ON b.slot_id = s.id
     WHERE a.researcher_id = ANY(%s::bigint[])
"""


def _spelling(name: str) -> str:
    return " ".join(name.split()).casefold()


def coauthor_keys(researcher_ids: Iterable[int]) -> dict[int, dict[CoauthorKey, str]]:
    """Each record's co-authors by the rule of this module's docstring: ``{researcher id:
    {key: name to show}}``, the key ``("researcher", id)`` or ``("name", folded spelling)``,
    each shown as written on the record's papers (the first spelling in sort order). Records
    without co-authors are absent. One query; a record on a 3,000-author paper gets 3,000
    keys, as it has as many co-authors."""
    ids = sorted({int(i) for i in researcher_ids})
    out: dict[int, dict[CoauthorKey, str]] = defaultdict(dict)
    if not ids:
        return {}
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(_COAUTHORS_SQL, [ids])
        rows = cursor.fetchall()
    for rid, other, spelled in sorted(rows, key=lambda row: (row[0], row[2])):
        if other is not None:
            out[rid].setdefault(("researcher", other), spelled)
        else:
            out[rid].setdefault(("name", _spelling(spelled)), spelled)
    return dict(out)


def coauthors_shared(
    keys: dict[int, dict[CoauthorKey, str]], a: int, b: int, *, compared: Iterable[int] = ()
) -> list[str]:
    """The co-authors records ``a`` and ``b`` share (``keys`` from :func:`coauthor_keys`), as
    names sorted case-insensitively; neither record, nor any of ``compared`` (the other
    records on the comparison), counts as a shared co-author. Pure."""
    mine, theirs = keys.get(a, {}), keys.get(b, {})
    pair = {("researcher", i) for i in (a, b, *compared)}
    return sorted((mine[k] for k in mine.keys() & theirs.keys() if k not in pair), key=str.casefold)


__all__ = ["CoauthorKey", "coauthor_keys", "coauthors_shared"]
