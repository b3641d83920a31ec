"""Template tags for semantic search: ``{% similar_papers paper %}`` and availability."""

from __future__ import annotations

import logging

from django import template
from django.db import DatabaseError

from semantic import services

register = template.Library()
logger = logging.getLogger(__name__)


@register.inclusion_tag("semantic/includes/similar_papers.html")
def similar_papers(paper, limit: int = 5) -> dict:
    """Render the "Similar papers" box for ``paper`` (nothing when there are none).

    Never breaks the page: a database error is logged and the box is left out.
    """
    try:
        papers = services.similar_papers_for_display(paper=paper, limit=int(limit))
    except DatabaseError:
        logger.exception("similar papers for %s failed", getattr(paper, "pk", paper))
        papers = []
    return {"similar_papers": papers, "paper": paper}


@register.simple_tag
def semantic_status() -> services.SemanticStatus:
    """``{% semantic_status as status %}``: ``status.available``, ``status.reason``."""
    return services.semantic_status()
