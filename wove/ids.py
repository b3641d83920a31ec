"""Reading a database id out of text a user typed or a URL carried."""

from __future__ import annotations

#: The largest id a PostgreSQL ``bigint`` holds (2**63 - 1); a longer number is no id here.
MAX_ID = 2**63 - 1


def id_or_none(raw: str | None) -> int | None:
    """``raw`` as a positive database id, or ``None``: ASCII digits only (``str.isdigit``
    also takes "²" and "١", which ``int`` then refuses or reads as another number), at most
    :data:`MAX_ID` (a larger one would fail in PostgreSQL, not match nothing)."""
    text = (raw or "").strip()
    if not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if 0 < value <= MAX_ID else None
