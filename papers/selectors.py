"""Read-side helpers for paper pages."""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache, caches
from django.db.models import Q

from wove.compiled import CompiledQuery, attach_prefetched
from wove.errors import ApiError

from .identifiers import ArxivId, InvalidArxivId, parse_arxiv_id
from .models import Category, Paper, PaperVersion, SearchChange
from .querysets import category_codes_in, codes_q

# Compiled once per process (wove.compiled): writing the SQL of a paper with its category
# took the ORM longer than PostgreSQL took to answer it (issue 28). The identifier is unique.
PAPER_FOR_PAGE = CompiledQuery(
    lambda arxiv_id: (
        Paper.objects.select_related("primary_category").filter(arxiv_id=arxiv_id).order_by()[:1]
    ),
    sentinel="compiled-arxiv-id",
)
# Its versions, attached as a prefetch would attach them (a prefetch is compiled per request).
PAPER_VERSIONS = CompiledQuery(
    lambda pk: PaperVersion.objects.filter(paper_id=pk).order_by("version"), sentinel=-1
)


def paper_for_page(arxiv_id: str) -> Paper | None:
    """The paper with its versions and primary category loaded (2 queries), or ``None``
    when the identifier is unknown. Deleted papers are returned (they answer 410). Its
    author slots are not loaded: the page reads only those it shows (a paper may have
    3,000)."""
    paper = PAPER_FOR_PAGE.first(arxiv_id)
    if paper is not None:
        attach_prefetched(paper, "versions", PAPER_VERSIONS.all(paper.pk))
    return paper


def resolve_identifier(raw: str) -> tuple[ArxivId | None, str]:
    """Parse what follows ``/papers/``: an identifier in any form, optionally ``-<slug>``.

    Returns ``(ArxivId, slug)`` or ``(None, "")`` when nothing in it can be an arXiv
    identifier. Tries the whole string first, then splits off a trailing slug at each
    hyphen from the right (old-style archives hold hyphens themselves: ``hep-th/...``).
    """
    text = raw.strip().strip("/")
    try:
        return parse_arxiv_id(text), ""
    except InvalidArxivId:
        pass
    index = len(text)
    while True:
        index = text.rfind("-", 0, index)
        if index <= 0:
            return None, ""
        try:
            return parse_arxiv_id(text[:index]), text[index + 1 :]
        except InvalidArxivId:
            continue


# How long a process keeps arXiv's category names (seconds): the taxonomy changes with a
# migration or ``load_taxonomy``, a few times a year.
CATEGORY_NAMES_SECONDS = 600


def category_names(codes: list[str]) -> list[tuple[str, str]]:
    """``[(code, name), ...]`` in the given order; unknown codes get their code as name.

    Every category's name is kept in this process (the ``process`` cache, for
    :data:`CATEGORY_NAMES_SECONDS`): a paper page spends no query on them. A code the kept
    names lack (a category added since) is looked up in the database."""
    names = caches["process"].get("category-names")
    if names is None or not all(code in names for code in codes):
        names = dict(Category.objects.values_list("code", "name"))
        caches["process"].set("category-names", names, CATEGORY_NAMES_SECONDS)
    return [(code, names.get(code, code)) for code in codes]


def category_canonical(code: str) -> str | None:
    """The code papers are filed under for a category code: ``code`` itself when canonical,
    the target of an alias or retired archive (``math.IT`` gives ``cs.IT``, ``chao-dyn``
    gives ``nlin.CD``; arXiv's taxonomy, see :mod:`papers.taxonomy`), ``None`` for a code
    the taxonomy does not hold. Listings use it so an alias never answers an empty list
    (BUGS.md CAT-01): stored papers carry canonical codes only (:mod:`papers.upsert`)."""
    seen: set[str] = set()
    current = Category.objects.filter(code=code).values_list("code", "canonical_id").first()
    # A chain is followed to its end (one step in arXiv's taxonomy); a cycle stops it.
    while current is not None and current[1] and current[1] not in seen:
        seen.add(current[0])
        current = Category.objects.filter(code=current[1]).values_list("code", "canonical_id").first()
    return current[0] if current else None


def paper_or_error(raw: str, fetch: Callable[[str], Paper | None] | None = None) -> Paper:
    """The paper named by ``raw`` (any identifier form), read by ``fetch`` (an arXiv
    identifier to its paper or ``None``; default: the paper with its primary category, a
    caller passes its own to read annotations with it).

    Raises :class:`ApiError` 404 for an unparsable or unknown identifier or a version the
    paper is known not to have (:meth:`Paper.lacks_version`: ``0801.4566v9`` of a paper with
    v1 and v2, the body adding its ``id`` and ``latest_version``), and 410 (the ``Error``
    shape with code ``deleted`` plus the paper's ``id``) for a paper arXiv deleted (BUGS.md
    OAI-04)."""
    try:
        ident = parse_arxiv_id(raw)
    except InvalidArxivId as exc:
        raise ApiError(404, "not_found", f"Not an arXiv identifier: {exc}") from exc
    if fetch is None:
        paper = Paper.objects.select_related("primary_category").filter(arxiv_id=ident.id).first()
    else:
        paper = fetch(ident.id)
    if paper is None:
        raise ApiError(404, "not_found", f"No paper has the identifier {ident.id}.")
    if paper.deleted:
        raise ApiError(410, "deleted", f"arXiv deleted the record of {ident.id}.", fields={"id": ident.id})
    if paper.lacks_version(ident.version):
        raise ApiError(
            404,
            "not_found",
            f"{ident.id} has no version {ident.version}: the archive holds {paper.version_range}.",
            fields={"id": ident.id, "latest_version": paper.latest_version},
        )
    return paper


# Cached so a burst of 404s (crawlers) costs one lookup in five minutes (an example names a
# record held a few minutes ago: one deleted since is rare and short-lived); a minute while
# the archive is empty, so a freshly loaded one names its papers soon.
EXAMPLES_CACHE_KEY = "papers:example-papers"
EXAMPLES_SECONDS = 300
EXAMPLES_EMPTY_SECONDS = 60


def example_papers() -> dict[str, dict[str, str]]:
    """Papers this archive holds, to name in URL examples (the 404 page, llms.txt).

    Returns ``{"new": {...}, "old": {...}, "first": {...}}``, each ``{"arxiv_id":
    "0801.4566", "url": "/papers/0801.4566-<slug>"}``: the public, not withdrawn paper with
    the highest new-style identifier (``YYMM.NNNNN``, so the most recently announced), the
    highest old-style one (``archive/YYMMNNN``) and the lowest new-style one (a second
    paper for examples that name two). A key is missing when the archive holds no such paper
    (``{}`` when it is empty). Old-style identifiers begin with a letter, new-style ones with
    a digit, so each is one scan of the ``arxiv_id`` index. Cached (Django's cache) for
    :data:`EXAMPLES_SECONDS`, :data:`EXAMPLES_EMPTY_SECONDS` while empty."""
    cached = cache.get(EXAMPLES_CACHE_KEY)
    if cached is not None:
        return cached
    shown = Paper.objects.public().filter(withdrawn=False).only("arxiv_id", "slug").order_by("-arxiv_id")
    examples = {}
    for kind, paper in (
        ("new", shown.filter(arxiv_id__lt="a").first()),
        ("old", shown.filter(arxiv_id__gt="a").first()),
        ("first", shown.filter(arxiv_id__lt="a").order_by("arxiv_id").first()),
    ):
        if paper is not None:
            examples[kind] = {"arxiv_id": paper.arxiv_id, "url": paper.get_absolute_url()}
    cache.set(EXAMPLES_CACHE_KEY, examples, EXAMPLES_SECONDS if examples else EXAMPLES_EMPTY_SECONDS)
    return examples


def category_codes(code: str) -> list[str]:
    """``code`` and every subject class of the archive ``code`` (``math``: ``math.AC``, ...;
    :func:`papers.querysets.category_codes_in`)."""
    return category_codes_in(Category, code)


def category_q(code: str, field: str = "categories") -> Q:
    """Papers listed in ``code`` or in a class of the archive ``code``, as a ``Q`` on the
    array ``field`` (:func:`papers.querysets.codes_q`)."""
    return codes_q(category_codes(code), field)


def search_log_last_id() -> int:
    """The paper search log's last id (:class:`papers.models.SearchChange`; 0 when empty), one
    probe of its primary key. Kept page summaries record it when computed: a later entry for
    one of their papers (a citation count, a hidden paper, authorships moved) makes them stale."""
    return SearchChange.objects.order_by("-id").values_list("id", flat=True).first() or 0
