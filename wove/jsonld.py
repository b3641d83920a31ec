"""schema.org pieces shared by the pages' JSON-LD (no app imported)."""

from __future__ import annotations

from typing import Any


def breadcrumb_list(crumbs: list[tuple[str, str | None]]) -> dict[str, Any]:
    """schema.org ``BreadcrumbList`` of ``crumbs``, ``(name, absolute URL)`` pairs in the
    order the page shows them; positions count from 1. A last step the page shows without a
    link has URL ``None`` and no ``item`` (schema.org and Google allow it for the last one).
    No ``@context``: the caller puts it in a graph or adds it."""
    return {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "name": name, **({"item": link} if link else {})}
            for i, (name, link) in enumerate(crumbs, start=1)
        ],
    }
