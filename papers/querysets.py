"""Read-side queries for papers."""

from __future__ import annotations

from django.core.cache import caches
from django.db import models
from django.db.models import BigIntegerField, F, Q, Value
from django.db.models.functions import Coalesce

from wove.pagination import SortKey

# arXiv's taxonomy changes about once a year: each process keeps an archive's classes this
# long (the ``process`` cache, which tests empty before each test, as a new process starts).
CLASSES_SECONDS = 600


def category_codes_in(category_model, code: str) -> list[str]:
    """``code`` and, for an arXiv archive divided into subject classes (``math``, ``cs``,
    ``astro-ph``, ``physics``), every class in it: ``["math", "math.AC", ..., "math.ST"]``.
    A class or an undivided archive (``hep-th``) is itself alone. From ``category_model``'s
    table (``Category.archive``, arXiv's category taxonomy), read once per process and code
    every :data:`CLASSES_SECONDS`. :func:`papers.selectors.category_codes` passes the model
    (it imports this module)."""

    def read() -> list[str]:
        rows = category_model.objects.filter(archive=code).exclude(code=code).values_list("code", flat=True)
        return [code, *sorted(rows)]

    return caches["process"].get_or_set(f"category-classes:{code}", read, CLASSES_SECONDS)


def codes_q(codes: list[str], field: str = "categories") -> Q:
    """Papers listed (primary or cross-list) in any of ``codes``, as a ``Q`` on the array
    ``field`` (GIN: ``@>`` for one code, ``&&`` for several)."""
    if len(codes) == 1:
        return Q(**{f"{field}__contains": codes})
    return Q(**{f"{field}__overlap": codes})


# The columns of a paper that a list item shows (PaperQuerySet.as_items).
PAPER_ITEM_FIELDS = (
    "arxiv_id",
    "slug",
    "title",
    "authors_text",
    "primary_category",
    "submitted_at",
    "cited_by_count",
    "withdrawn",
)


class PaperQuerySet(models.QuerySet):
    """Permission-free public reads of papers."""

    def public(self) -> PaperQuerySet:
        """Papers a visitor may list: not deleted, not hidden by an editor."""
        return self.filter(deleted=False, hidden=False)

    def newest(self) -> PaperQuerySet:
        """Newest submission first, ties broken by identifier for a stable order."""
        return self.order_by("-submitted_at", "-arxiv_id")

    def as_items(self, *, abstract: bool = False) -> PaperQuerySet:
        """Only the columns a list item shows (``{% paper_item %}``,
        :func:`papers.templatetags.wove.paper_item`): identifier, slug, title, byline, primary
        category and its name, submission time, citations, withdrawn; the abstract too with
        ``abstract``. A list of 24 papers otherwise reads every column of each (comments,
        journal references, DOIs, set specs) and of its category, and the ORM spends longer
        on those columns than PostgreSQL does (issue 28). Reading a column left out costs a
        query per paper: a template that shows more asks for it with ``.only()`` or
        ``abstract``."""
        fields = [*PAPER_ITEM_FIELDS, *(("abstract",) if abstract else ())]
        return self.select_related("primary_category").only(*fields, "primary_category__name")

    def in_category(self, code: str) -> PaperQuerySet:
        """Papers listed in ``code`` as primary or cross-list category, or in a class of the
        archive ``code`` (``math``: every ``math.*``; :func:`category_codes_in`; GIN-indexed)."""
        category_model = self.model._meta.get_field("primary_category").related_model
        return self.filter(codes_q(category_codes_in(category_model, code)))


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


class PaperManager(models.Manager.from_queryset(PaperQuerySet)):
    """``Paper.objects``: every read leaves out ``search_vector``, the stored tsvector that
    PostgreSQL searches and no page shows. A list page read 24 of them (kilobytes each, parsed
    into Python strings) to show titles (issue 28); a query that names the column still reads
    it, and an instance that asks for it loads it then."""

    def get_queryset(self) -> PaperQuerySet:
        return super().get_queryset().defer("search_vector")
