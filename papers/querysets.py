"""Read-side queries for papers."""

from __future__ import annotations

from django.db import models
from django.db.models import BigIntegerField, F, Value
from django.db.models.functions import Coalesce

from wove.pagination import SortKey


class PaperQuerySet(models.QuerySet):
    """Permission-free public reads of papers."""

    def public(self) -> PaperQuerySet:
        """Papers a visitor may list: not deleted, not hidden by an editor."""
        return self.filter(deleted=False, hidden=False)

    def newest(self) -> PaperQuerySet:
        """Newest submission first, ties broken by identifier for a stable order."""
        return self.order_by("-submitted_at", "-arxiv_id")

    def in_category(self, code: str) -> PaperQuerySet:
        """Papers listed in ``code`` as primary or cross-list category (GIN-indexed)."""
        return self.filter(categories__contains=[code])


_SUBMITTED_DESC = SortKey("k_submitted", F("submitted_at"), True, "datetime")
_ID_DESC = SortKey("k_id", F("arxiv_id"), True, "str")
# The keyset sorts of paper lists in the API (papers, a researcher's, an institution's): each
# name maps to its sort keys, the last of them unique (arXiv id) so cursors never skip a row.
PAPER_ORDERS: dict[str, list[SortKey]] = {
    "newest": [_SUBMITTED_DESC, _ID_DESC],
    "oldest": [
        SortKey("k_submitted", F("submitted_at"), False, "datetime"),
        SortKey("k_id", F("arxiv_id"), False, "str"),
    ],
    # Papers without a count sort as -1: after every counted paper, newest first among them.
    # (A plain integer output: lookups on a PositiveIntegerField expression reject -1.)
    "cited": [
        SortKey(
            "k_cited", Coalesce("cited_by_count", Value(-1), output_field=BigIntegerField()), True, "int"
        ),
        _SUBMITTED_DESC,
        _ID_DESC,
    ],
}
