"""schema.org pieces shared by the pages' JSON-LD (no app imported)."""

from __future__ import annotations

from typing import Any


def breadcrumb_list(crumbs: list[tuple[str, str]]) -> dict[str, Any]:
    """schema.org ``BreadcrumbList`` of ``crumbs``, ``(name, absolute URL)`` pairs in the
    order the page shows them; positions count from 1. No ``@context``: the caller puts it
    in a graph or adds it."""
    return {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "name": name, "item": link}
            for i, (name, link) in enumerate(crumbs, start=1)
        ],
    }
