"""Archive-wide counts kept in the database (issue 28: "pages from kept rows").

The home page's counts (public papers, listed researchers, institutions and their ROR
records), its top categories, every category's paper count (primary or cross-list, as
``/papers?category=`` filters) and the number of papers with a vector of the current model
("2,100 of 2,800 papers are searchable by meaning"). Counting them costs 0.1-2 s at a
million papers; the pipeline's ``archive-facts`` stage (:func:`archive_facts_refresh`) does it
after every harvest's stages and every beat sweep (15 minutes), and pages read one row
(:func:`archive_facts`). Before the stage has first run, pages count as before
(:mod:`wove.counts`).
"""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from django.db import connections
from django.utils import timezone

from institutions.models import Institution
from papers.models import Category, HarvestRun, Paper
from researchers.models import Researcher
from researchers.services import authors_backlog
from semantic.schema import vector_column_exists
from semantic.search_model import search_model
from wove.backlog import Backlog
from wove.replicas import read_alias

from .models import ArchiveFacts

KEY = "archive"
# Bumped when the fields of ``data`` change: a row of another version is not read.
VERSION = 3  # 3: archives
TOP_CATEGORIES = 10


def archive_facts_compute() -> dict[str, Any]:
    """Count the archive now: ``{"version", "papers", "researchers", "institutions":
    {"listed", "records"}, "top_categories": :func:`top_categories` (the 10 largest, primary
    or cross-list), "categories": :func:`category_counts`, "archives": :func:`archive_counts`,
    "embedded": public papers with a vector of the model searches read or None without
    pgvector or model, "model", "authors_waiting": papers the authors stage waits for}``.
    Nine queries, each one pass over an index or a table."""
    public = Paper.objects.public()
    categories = category_counts()
    model = search_model()
    embedded = None
    if model and vector_column_exists():
        embedded = public.filter(embeddings__model=model).count()
    return {
        "version": VERSION,
        "papers": public.count(),
        "researchers": Researcher.objects.listed().count(),
        "institutions": {
            "listed": Institution.objects.listed().count(),
            "records": Institution.objects.count(),
        },
        "top_categories": top_categories(categories),
        "categories": categories,
        "archives": archive_counts(),
        "embedded": embedded,
        "model": model or "",
        # Papers the authors stage still waits for: researcher pages say older work may be missing.
        "authors_waiting": authors_backlog().waiting,
    }


def category_counts() -> dict[str, int]:
    """``{category code: public papers filed under it, primary or cross-list}``: what
    ``/papers?category=`` and the search page's category filter count. One pass over the
    papers' category arrays."""
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT code, count(*) FROM papers_paper, unnest(categories) AS code"
            " WHERE NOT deleted AND NOT hidden GROUP BY code"
        )
        return dict(cursor.fetchall())


def archive_counts() -> dict[str, int]:
    """``{archive: public papers listed in any of its classes}`` for the arXiv archives
    divided into subject classes (``math``, ``cs``, ``astro-ph``, ``physics``): what
    ``/papers?category=math`` counts (a paper in math.AG and math.NT once)."""
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT archive, count(*) FROM (SELECT DISTINCT p.id, c.archive"
            " FROM papers_paper p, unnest(p.categories) AS listed_in(code)"
            " JOIN papers_category c ON c.code = listed_in.code"
            " WHERE NOT p.deleted AND NOT p.hidden AND c.archive IN"
            " (SELECT archive FROM papers_category WHERE code <> archive)) listed GROUP BY archive"
        )
        return dict(cursor.fetchall())


def top_categories(counts: dict[str, int], limit: int = TOP_CATEGORIES) -> list[dict[str, Any]]:
    """The ``limit`` largest of ``counts`` (:func:`category_counts`), largest first (ties by
    code), as ``{"primary_category": code, "primary_category__name": name, "n": papers}``
    (the home page's list; it links each to ``/papers?category=``, which counts the same)."""
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    names = dict(Category.objects.filter(code__in=[code for code, _ in top]).values_list("code", "name"))
    return [
        {"primary_category": code, "primary_category__name": names.get(code, ""), "n": n} for code, n in top
    ]


# Each process reads the kept row at most once a minute: the stage refreshes it every few
# minutes at best, and every researcher page, list and search asked for it (one query each).
FACTS_PROCESS_SECONDS = 60
_PROCESS_KEY = "archive-facts"


def archive_facts_refresh() -> dict[str, Any]:
    """Compute the facts and store them (upsert of the one row); returns the data. This
    process's copy is replaced at once; other processes read the row within
    :data:`FACTS_PROCESS_SECONDS`."""
    data = archive_facts_compute()
    ArchiveFacts.objects.update_or_create(key=KEY, defaults={"computed_at": timezone.now(), "data": data})
    caches["process"].delete(_PROCESS_KEY)
    return data


def archive_facts() -> dict[str, Any] | None:
    """The kept facts, or ``None`` before the stage's first run or when the row is of another
    :data:`VERSION` (callers then count live). One query by primary key, then kept in the
    process for :data:`FACTS_PROCESS_SECONDS` (a missing row too)."""
    return caches["process"].get_or_set(_PROCESS_KEY, _facts_row, FACTS_PROCESS_SECONDS) or None


def _facts_row() -> dict[str, Any]:
    """The kept row's data when it is of this :data:`VERSION`, else ``{}``."""
    row = ArchiveFacts.objects.filter(key=KEY).values_list("data", flat=True).first()
    return row if isinstance(row, dict) and row.get("version") == VERSION else {}


def kept_list_count(code: str = "") -> int | None:
    """Public papers listed in category ``code`` (primary or cross-list; an archive divided
    into classes counts its classes' papers once), or all public papers for ``""``, from the
    kept facts: what ``/papers`` and ``/api/v1/papers`` count without a query (issue 28).
    ``None`` before the facts are first counted (callers count live); 0 for a code no paper
    is listed in. One query (the facts row)."""
    facts = archive_facts()
    if facts is None:
        return None
    if not code:
        return facts["papers"]
    return {**facts["categories"], **facts["archives"]}.get(code, 0)


def archive_facts_backlog() -> Backlog:
    """One archive to count when no facts are kept or a harvest ended after they were
    counted; else nothing (the stage still recounts on every run: curation and embeddings
    move the counts too, and a recount is one pass over a few indexes)."""
    computed = ArchiveFacts.objects.filter(key=KEY).values_list("computed_at", flat=True).first()
    if computed is None:
        return Backlog(waiting=1 if Paper.objects.exists() else 0, unit="archive")
    newer = HarvestRun.objects.filter(finished_at__gt=computed).exists()
    return Backlog(waiting=1 if newer else 0, unit="archive", oldest=computed if newer else None)
