"""Blocks of a researcher's page that apps above researchers supply (institutions by year)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# The institutions-by-year block: its name is also the key of the researcher summary and
# the profile (``summary["institutions"]``). Supplied by the institutions app.
INSTITUTIONS = "institutions"


@dataclass(frozen=True)
class ResearcherBlock:
    """One block of a researcher's page, supplied by an app researchers may not import.

    ``rows_many(pks)`` gives ``{pk: rows}``, the block's JSON-able rows for each of many
    researchers in one read (a pk with no rows may be absent): researcher summaries keep them
    in the database, in batches (issue 28), so they must survive a JSON round trip.
    ``items(rows)`` turns kept rows into the objects the page and the API show.
    """

    rows_many: Callable[[list[int]], dict[int, list]]
    items: Callable[[list], list]


_BLOCKS: dict[str, ResearcherBlock] = {}


def researcher_block_register(name: str, block: ResearcherBlock) -> None:
    """Supply the block ``name`` (e.g. :data:`INSTITUTIONS`); called from the supplying
    app's ``AppConfig.ready()``. Registering a name again replaces its block."""
    _BLOCKS[name] = block


def researcher_block_rows_many(name: str, pks: list[int]) -> dict[int, list]:
    """``{pk: rows}`` of block ``name`` for researchers ``pks`` (absent or ``[]``: none), in
    one read; ``{}`` when no app supplies the block."""
    block = _BLOCKS.get(name)
    return block.rows_many(pks) if block else {}


def researcher_block_items(name: str, rows: list) -> list:
    """What the page and the API show for kept ``rows`` of block ``name``; ``[]`` when no app
    supplies the block."""
    block = _BLOCKS.get(name)
    return block.items(rows) if block else []


__all__ = [
    "INSTITUTIONS",
    "ResearcherBlock",
    "researcher_block_items",
    "researcher_block_register",
    "researcher_block_rows_many",
]
