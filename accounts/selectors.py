"""Read-side queries for accounts: a user's follows, their papers, digest candidates."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import or_

from django.db.models import BooleanField, ExpressionWrapper, F, Q, QuerySet

from institutions.models import AuthorAffiliation, Institution
from papers.models import Category, Paper
from papers.search_filters import filters_q, web_query
from papers.selectors import category_codes, category_q
from researchers.models import Authorship, Researcher
from researchers.selectors import researcher_resolve
from wove.ids import id_or_none

from .models import DigestPaper, Follow, FollowKind, SavedSearch


@dataclass
class FollowGroups:
    """A user's follows split by kind, each list newest follow first."""

    researchers: list[Follow] = field(default_factory=list)
    institutions: list[Follow] = field(default_factory=list)
    categories: list[Follow] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.researchers) + len(self.institutions) + len(self.categories)


def follows_for_user(user_id: int) -> FollowGroups:
    """The user's follows grouped by kind, with their targets loaded (one query)."""
    groups = FollowGroups()
    rows = Follow.objects.filter(user_id=user_id).select_related(
        "researcher", "institution__superseded_by", "category"
    )
    for follow in rows:
        getattr(
            groups,
            {"researcher": "researchers", "institution": "institutions"}.get(follow.kind, "categories"),
        ).append(follow)
    return groups


def follow_target(kind: str, key: str) -> Researcher | Institution | Category | None:
    """The object ``kind``/``key`` names (``researcher``/``12``, ``category``/``hep-th``), or
    ``None`` when there is none. A researcher merged away resolves to its survivor."""
    if kind == FollowKind.RESEARCHER:
        pk = id_or_none(key)
        return researcher_resolve(pk)[0] if pk is not None else None
    if kind == FollowKind.INSTITUTION:
        return Institution.objects.filter(pk=id_or_none(key)).first() if id_or_none(key) else None
    if kind == FollowKind.CATEGORY:
        return Category.objects.filter(pk=key).first()
    return None


def kind_of(obj: object) -> str:
    """The follow kind of a model instance; raises ``TypeError`` for anything unfollowable."""
    if isinstance(obj, Researcher):
        return FollowKind.RESEARCHER
    if isinstance(obj, Institution):
        return FollowKind.INSTITUTION
    if isinstance(obj, Category):
        return FollowKind.CATEGORY
    raise TypeError(f"cannot follow a {type(obj).__name__}")


def follow_exists(user_id: int, obj: Researcher | Institution | Category) -> bool:
    """Whether the user follows ``obj``."""
    return Follow.objects.filter(user_id=user_id, **{kind_of(obj): obj}).exists()


def _followed_institution_links(user_id: int, *, since_follow: bool = False) -> QuerySet[AuthorAffiliation]:
    """Author links to an institution the user follows, or to the active record a followed
    withdrawn or inactive one leads to (``Institution.superseded_by``: the links moved there,
    :func:`institutions.services.affiliation_links_repoint`, so the old record gets no new
    papers). ``since_follow`` keeps links made at or after that follow began."""
    direct = Q(institution__follows__user_id=user_id)
    through = Q(institution__supersedes__follows__user_id=user_id)
    if since_follow:
        direct &= Q(created_at__gte=F("institution__follows__created_at"))
        through &= Q(created_at__gte=F("institution__supersedes__follows__created_at"))
    return AuthorAffiliation.objects.filter(direct | through)


def saved_search_researcher(saved: SavedSearch) -> Researcher | None:
    """The researcher ``saved`` filters by, read as the survivor when an editor merged it
    away (``None`` without one)."""
    researcher = saved.researcher
    if researcher is not None and researcher.merged_into_id:
        researcher = researcher_resolve(researcher.merged_into_id)[0]
    return researcher


def saved_search_q(saved: SavedSearch) -> Q:
    """The papers ``saved`` matches, as one ``Q``: its words by full text
    (:func:`papers.search_filters.web_query`, as the keyword search matches them) and its
    filters (:func:`papers.search_filters.filters_q`; a researcher counts the authorships of
    the records merged into it too, as the search page does; a withdrawn or inactive
    institution is read as the active record its links moved to, ``Institution.superseded_by``,
    as a follow of it is)."""
    cond = Q(search_vector=web_query(saved.q)) if saved.q else Q()
    researcher_ids: list[int] = []
    if (researcher := saved_search_researcher(saved)) is not None:
        researcher_ids = [researcher.pk, *researcher.merged_from.values_list("pk", flat=True)]
    # superseded_by names the active end of the ROR succession already: one hop.
    institution_id = saved.institution_id
    if saved.institution is not None and saved.institution.superseded_by_id:
        institution_id = saved.institution.superseded_by_id
    return cond & filters_q(
        category=saved.category,
        year_from=saved.year_from,
        year_to=saved.year_to,
        researcher_ids=researcher_ids,
        institution_id=institution_id,
        collaboration_id=saved.collaboration_id,
    )


def saved_search_new(saved: SavedSearch) -> QuerySet[Paper]:
    """The papers the next digest holds for ``saved``, newest submission first: public papers
    it matches that reached the archive at or after its ``matches_since`` and are in no digest of its
    owner yet (its preview; the digest itself gathers every search and follow at once,
    :func:`digest_candidates`)."""
    sent = DigestPaper.objects.filter(user_id=saved.user_id).values("paper_id")
    return (
        Paper.objects.public()
        .filter(saved_search_q(saved), created_at__gte=saved.matches_since)
        .exclude(pk__in=sent)
        .select_related("primary_category")
        .newest()
    )


def saved_searches_for_user(user_id: int) -> list[SavedSearch]:
    """The user's saved searches by name, their researcher and institution loaded."""
    return list(
        SavedSearch.objects.filter(user_id=user_id).select_related(
            "researcher", "institution", "collaboration"
        )
    )


def papers_for_user(user_id: int) -> QuerySet[Paper]:
    """Public papers by followed researchers, from followed institutions (or the records
    that replaced them), in followed categories (primary or cross-list) or matching a saved
    search, newest submission first. Empty without follows and saved searches."""
    researchers = Authorship.objects.filter(researcher__follows__user_id=user_id).values("paper_id")
    institutions = _followed_institution_links(user_id).values("slot__paper_id")
    codes = list(
        Follow.objects.filter(user_id=user_id, category__isnull=False).values_list("category_id", flat=True)
    )
    condition = Q(pk__in=researchers) | Q(pk__in=institutions)
    if codes:
        # A followed archive (math) brings every class in it (math.AG, ...).
        condition |= Q(categories__overlap=sorted({c for code in codes for c in category_codes(code)}))
    for saved in saved_searches_for_user(user_id):
        condition |= saved_search_q(saved)
    return Paper.objects.public().filter(condition).select_related("primary_category").newest()


def digest_candidates(user_id: int) -> QuerySet[Paper]:
    """Papers a user's next digest announces, newest submission first.

    A paper is new to a follow when it reached the follow after the follow began: its
    researcher attribution (``Authorship.created_at``) or institution link
    (``AuthorAffiliation.created_at``) was made, or for a category the paper was archived
    (``Paper.created_at``), at or after ``Follow.created_at``; it is new to a saved search
    when it matches (:func:`saved_search_q`) and was archived at or after the search's
    ``matches_since`` (when it was saved, or the digest period its terms last changed in).
    Papers already in any digest
    of the user (:class:`accounts.models.DigestPaper`) are left out, as are hidden and
    deleted ones.
    """
    researchers = Authorship.objects.filter(
        researcher__follows__user_id=user_id, created_at__gte=F("researcher__follows__created_at")
    ).values("paper_id")
    institutions = _followed_institution_links(user_id, since_follow=True).values("slot__paper_id")
    conditions = [Q(pk__in=researchers), Q(pk__in=institutions)]
    for code, since in Follow.objects.filter(user_id=user_id, category__isnull=False).values_list(
        "category_id", "created_at"
    ):
        conditions.append(category_q(code) & Q(created_at__gte=since))
    for saved in saved_searches_for_user(user_id):
        conditions.append(saved_search_q(saved) & Q(created_at__gte=saved.matches_since))
    sent = DigestPaper.objects.filter(user_id=user_id).values("paper_id")
    return (
        Paper.objects.public()
        .filter(reduce(or_, conditions))
        .exclude(pk__in=sent)
        .select_related("primary_category")
        .newest()
    )


@dataclass(frozen=True)
class Reason:
    """Why a paper reached a user.

    ``key`` names what matched it (``researcher:12``, ``institution:3``, ``category:hep-th``,
    ``search:7``), ``text`` says so on the paper's line (``by Ada Lovelace``), ``heading``
    over a digest's group (``By Ada Lovelace``) and ``url`` is the site page listing all of
    that thing's papers.
    """

    key: str
    text: str
    heading: str
    url: str


def match_reasons(user_id: int, paper_ids: list[int], *, new_only: bool = False) -> dict[int, list[Reason]]:
    """Why each paper is in a user's feed or digest, ``{paper_id: [Reason, ...]}``: followed
    researchers first, then institutions, then categories, each in name order, then saved
    searches by name; one query per kind, one for all saved searches. ``new_only`` (a
    digest's sense): a saved search gives a reason only for papers archived since it was
    saved, as only those are new to it."""
    reasons: dict[int, list[Reason]] = {pk: [] for pk in paper_ids}
    seen: set[tuple[int, str]] = set()

    def add(paper_id: int, reason: Reason) -> None:
        if (paper_id, reason.key) not in seen:
            seen.add((paper_id, reason.key))
            reasons[paper_id].append(reason)

    rows = (
        Authorship.objects.filter(paper_id__in=paper_ids, researcher__follows__user_id=user_id)
        .order_by("researcher__display_name", "researcher_id")
        .values_list("paper_id", "researcher_id", "researcher__display_name", "researcher__slug")
    )
    for paper_id, pk, name, slug in rows:
        add(paper_id, Reason(f"researcher:{pk}", f"by {name}", f"By {name}", Researcher.url_for(pk, slug)))
    rows = (
        _followed_institution_links(user_id)
        .filter(slot__paper_id__in=paper_ids)
        .order_by("institution__name", "institution_id")
        .values_list("slot__paper_id", "institution_id", "institution__name", "institution__slug")
    )
    for paper_id, pk, name, slug in rows:
        url = Institution(pk=pk, slug=slug).get_absolute_url()
        add(paper_id, Reason(f"institution:{pk}", f"from {name}", f"From {name}", url))
    codes = sorted(
        Follow.objects.filter(user_id=user_id, category__isnull=False).values_list("category_id", flat=True)
    )
    if codes:
        for paper_id, categories in Paper.objects.filter(pk__in=paper_ids).values_list("pk", "categories"):
            for code in codes:
                if set(category_codes(code)) & set(categories):
                    url = f"/papers/?category={code}"
                    add(paper_id, Reason(f"category:{code}", f"in {code}", f"In {code}", url))
    searches = saved_searches_for_user(user_id)
    if searches and paper_ids:
        # One query: a boolean column per saved search (a hundred searches were a hundred
        # queries on the Following page and in each digest).
        flags = {
            f"s{saved.pk}": ExpressionWrapper(
                saved_search_q(saved) & (Q(created_at__gte=saved.matches_since) if new_only else Q()),
                output_field=BooleanField(),
            )
            for saved in searches
        }
        rows = Paper.objects.filter(pk__in=paper_ids).annotate(**flags).values_list("pk", *flags)
        matched = {row[0]: row[1:] for row in rows}
        for paper_id in paper_ids:
            for saved, hit in zip(searches, matched.get(paper_id, ()), strict=False):
                if hit:
                    text = f"your search “{saved.name}”"
                    heading = text[0].upper() + text[1:]
                    add(
                        paper_id,
                        Reason(f"search:{saved.pk}", f"matches {text}", heading, saved.get_absolute_url()),
                    )
    return reasons


def follow_reasons(user_id: int, paper_ids: list[int]) -> dict[int, list[str]]:
    """:func:`match_reasons` as the lines' words: ``{paper_id: ["by Ada Lovelace", "in hep-th"]}``."""
    return {pk: [reason.text for reason in found] for pk, found in match_reasons(user_id, paper_ids).items()}
