"""The researcher page's profile: the kept summary laid out, and its schema.org JSON-LD."""

from __future__ import annotations

from django.conf import settings

from papers.models import Paper
from wove.jsonld import breadcrumb_list

from .blocks import INSTITUTIONS, researcher_block_items
from .models import Researcher
from .selectors import SORTS, make_bars, network_layout, researcher_papers, same_name, years_layout
from .summaries import researcher_summary

# Fields drawn as bars; the rest are counted ("and 99 more") and offered by the list's Field
# filter. A synthetic researcher with 2,523 papers had 111 bars (2.2 ms of an 11.8 ms page).
FIELD_BARS_SHOWN = 12


def researcher_profile(
    researcher: Researcher, *, category: str = "", sort: str = "newest", first_page: bool = False
) -> dict:
    """Everything the researcher page shows except the paged list (see the view); with
    ``first_page`` the list holds the first page's papers at least (read from the kept ids).

    Returns a dict: ``papers`` (QuerySet, filtered and sorted), ``paper_count`` (N, all
    public papers), ``positions``/``positions_known``, ``fields`` (primary-category
    bars with filter links, most papers first), ``field_bars`` (the first
    :data:`FIELD_BARS_SHOWN` of them, and the filtered one), ``fields_more`` (how many
    are not drawn), ``same_name``, ``institutions``, ``identity_sources``,
    ``local`` (bool), ``most_cited_id`` (a paper id or None: :func:`most_cited_paper` gives the
    paper), ``public_papers`` (QuerySet, unfiltered), ``citations_total``, ``cited_papers``
    (K), ``network``, ``years``, ``jsonld`` (dict), ``description``. The aggregates come
    from :func:`researchers.summaries.researcher_summary` (kept in the database for
    researchers with 100+ papers, issue #11); ``institutions`` from the block the
    institutions app supplies (:mod:`researchers.blocks`).
    """
    summary = researcher_summary(researcher)
    base_url = researcher.get_absolute_url()
    papers = researcher_papers(researcher)
    paper_count = summary["paper_count"]
    fields = make_bars(
        [(code, n) for code, n in summary["fields"]],
        href=lambda code: f"{base_url}?category={code}",
        current=category,
    )
    shown = fields[:FIELD_BARS_SHOWN]
    shown += [bar for bar in fields[FIELD_BARS_SHOWN:] if bar.current]  # the filter's field stays in view
    listed = papers.as_items()  # the columns a list item shows
    if category:
        listed = listed.filter(primary_category_id=category)
    elif first_page and sort == "newest" and "newest_ids" in summary:
        # The first page from the kept ids of the newest papers (a row from before they were
        # kept has none until its next refresh).
        listed = listed.filter(pk__in=summary["newest_ids"])
    listed = listed.order_by(*SORTS.get(sort, SORTS["newest"]))
    description = (
        f"{researcher.display_name}: {paper_count} paper{'s' if paper_count != 1 else ''} in this archive."
    )
    return {
        "papers": listed,
        "listed_count": None if category else paper_count,
        "paper_count": paper_count,
        "positions": make_bars([(label, n) for label, n in summary["positions"]]),
        "positions_known": summary["positions_known"],
        "fields": fields,
        "field_bars": shown,
        "fields_more": len(fields) - len(shown),
        "same_name": same_name(researcher),
        "institutions": researcher_block_items(INSTITUTIONS, summary["institutions"]),
        "identity_sources": summary["identity_sources"],
        "local": summary["local"],
        "most_cited_id": summary["most_cited_id"],
        "public_papers": papers,
        "citations_total": summary["citations_total"],
        "cited_papers": summary["cited_papers"],
        "network": network_layout(summary["coauthors"], summary["coauthor_links"]),
        "years": years_layout(summary["years"]),
        "description": description,
        "jsonld": researcher_jsonld(researcher, description=description),
    }


def researcher_jsonld(researcher: Researcher, *, description: str) -> dict:
    """schema.org ``Person`` (ORCID ``identifier`` and ``sameAs``) and ``BreadcrumbList``
    wovepaper > Researchers > name, as one ``@graph`` (the live site's shape)."""
    site = settings.SITE_URL
    url = f"{site}{researcher.get_absolute_url()}"
    person: dict = {
        "@type": "Person",
        "@id": f"{url}#person",
        "url": url,
        "name": researcher.display_name,
        "description": description,
    }
    if researcher.orcid:
        person["identifier"] = {"@type": "PropertyValue", "propertyID": "ORCID", "value": researcher.orcid}
        person["sameAs"] = [researcher.orcid_url]
    person["mainEntityOfPage"] = {"@id": f"{url}#page"}
    crumbs = breadcrumb_list(
        [("wovepaper", f"{site}/"), ("Researchers", f"{site}/researchers"), (researcher.display_name, url)]
    )
    return {"@context": "https://schema.org", "@graph": [person, crumbs]}


def most_cited_paper(profile: dict, shown) -> Paper | None:
    """The researcher's most cited public paper (``None`` without citation counts): one of the
    ``shown`` papers when it is among them (most researchers' pages list all their papers),
    else one query."""
    pk = profile["most_cited_id"]
    if pk is None:
        return None
    found = next((paper for paper in shown if paper.pk == pk), None)
    return found or profile["public_papers"].filter(pk=pk).first()
