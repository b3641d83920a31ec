"""What a pipeline stage waits to do, as each app reports it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Backlog:
    """What one stage is waiting to do: ``waiting`` items of ``unit`` (``None``: the stage
    cannot tell, see ``note``), the oldest waiting since ``oldest`` (a paper's harvest or
    change time, UTC), or ``None`` when nothing waits."""

    waiting: int | None
    unit: str = "papers"
    oldest: datetime | None = None
    note: str = ""
