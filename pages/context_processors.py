"""Template context from the kept archive facts (:mod:`pages.facts`), read only when a
template asks (one query by primary key)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .facts import archive_facts


def _matching_behind() -> bool:
    facts = archive_facts()
    # Before the first count, say what may be true; after it, what is.
    return facts is None or bool(facts.get("authors_waiting"))


def archive(request: HttpRequest) -> dict[str, object]:
    """``{"matching_behind": True while the authors stage has papers waiting (or before the
    archive-facts stage first ran)}``, lazily: a researcher page says "older work may not be
    attached yet" only then."""
    return {"matching_behind": SimpleLazyObject(_matching_behind)}
