"""ROR successor relationships followed to the active record they lead to (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

ACTIVE = "active"


def succession_edges(rows: Iterable[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """``(old, new)`` ROR ID pairs from relationship rows ``(record, type, target)``.

    A record's ``successor`` target replaces it; a record's ``predecessor`` target is
    replaced by it. Both directions are read because ROR relationships are not always
    symmetric (Paris Diderot names Université Paris Cité as successor, which lists no
    predecessor). Other relationship types are ignored.
    """
    edges: list[tuple[str, str]] = []
    for record, rel_type, target in rows:
        if rel_type == "successor":
            edges.append((record, target))
        elif rel_type == "predecessor":
            edges.append((target, record))
    return edges


def successor_ends(statuses: Mapping[str, str], edges: Iterable[tuple[str, str]]) -> dict[str, str]:
    """For each record that is not active (inactive or withdrawn, ROR schema v1 and v2
    ``status``): the one active record its successor chain leads to.

    ``statuses`` maps the ROR IDs loaded here to their status; ``edges`` are ``(old, new)``
    pairs (:func:`succession_edges`). Successors are followed through inactive or withdrawn
    records to the first active ones (a chain of any length); a target not loaded here is
    a dead end, and a record met twice is not followed again (a cycle ends there). A
    record is in the result only when exactly one active record is reached: none (dead
    end, cycle) or several (a split into two institutions) leave it as it is. Active
    records are never in the result. Returns ``{old ROR ID: active ROR ID}``.
    """
    successors: dict[str, set[str]] = {}
    for old, new in edges:
        if old != new:
            successors.setdefault(old, set()).add(new)
    out: dict[str, str] = {}
    for ror_id in successors:
        if statuses.get(ror_id, ACTIVE) == ACTIVE:
            continue  # not loaded, or active: nothing to replace
        ends = _active_ends(ror_id, successors, statuses)
        if len(ends) == 1:
            out[ror_id] = ends.pop()
    return out


def _active_ends(start: str, successors: Mapping[str, set[str]], statuses: Mapping[str, str]) -> set[str]:
    """The active records reached from ``start`` through records that are not active."""
    ends: set[str] = set()
    seen = {start}
    stack = [start]
    while stack:
        for new in successors.get(stack.pop(), ()):
            if new in seen or new not in statuses:
                continue  # a cycle, or a successor not loaded here
            seen.add(new)
            if statuses[new] == ACTIVE:
                ends.add(new)
            else:
                stack.append(new)
    return ends
