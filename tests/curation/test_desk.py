"""The editor's desk (issue 21): the comparison lists papers, records read as sentences,
every confirmation has Cancel, the queues open the comparison and come back."""

from __future__ import annotations

import re
from html import unescape

import pytest

import curation.selectors

from .conftest import researcher_of

pytestmark = pytest.mark.django_db


def cieza():
    """Lucas A. Cieza (1 paper: 0801.4572) and Lucas Cieza (2: 0801.4403, 0704.0253)."""
    return researcher_of("0801.4572", 1), researcher_of("0801.4403", 1)


def text(html: str) -> str:
    """The page as a reader sees it: inline tags dropped, others a space, entities decoded."""
    html = re.sub(r"</?(a|strong|em|span|label|code)\b[^>]*>", "", html)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def compare(client, *researchers, extra: str = "") -> str:
    ids = ",".join(str(r.pk) for r in researchers)
    response = client.get(f"/admin/curation/merge/?ids={ids}{extra}")
    assert response.status_code == 200
    return response.content.decode()


def test_comparison_lists_each_records_papers(curation_sample, editor):
    a, b = cieza()
    page = compare(editor, a, b)
    shown = text(page)
    # Titles linked to the public paper pages, with the year and the arXiv id.
    assert (
        '<a href="/papers/0801.4572-' in page and "The Evolution of Primordial Circumstellar Disks" in shown
    )
    assert "(2008, arXiv 0801.4403)" in shown and "(2007, arXiv 0704.0253)" in shown
    assert "Spitzer observations of the Hyades: Circumstellar debris disks at 625 Myr of age" in shown
    # The record's slot on each paper and the co-authors there (0704.0253 has 18 authors:
    # the first 8 others are named, 9 more counted).
    assert "As “Lucas Cieza”, author 8 of 18." in shown
    assert "With William D. Cochran, Jean-Charles Augereau." in shown
    assert "Neal J. Evans II" in shown and "Shih-Ping Lai and 9 more." in shown
    cochran = researcher_of("0801.4403", 2)
    assert f'<a href="{cochran.get_absolute_url()}"' in page
    # Each record links to its public page and its admin page.
    assert f'<a href="/admin/researchers/researcher/{a.pk}/change/">admin</a>' in page
    assert f'<a href="{b.get_absolute_url()}" target="_blank" rel="noopener">public page</a>' in page


def test_comparison_shows_the_slots_affiliations(curation_sample, editor):
    chablat = researcher_of("0705.0856", 3)
    wenger = researcher_of("0705.0982", 2)
    shown = text(compare(editor, chablat, wenger))
    assert "A New Three-DOF Parallel Mechanism: Milling Machine Applications" in shown
    assert "As “Damien Chablat”, author 1 of 2. Affiliation: IRCCyN." in shown


def test_comparison_lists_the_newest_papers_and_counts_the_rest(curation_sample, editor, monkeypatch):
    monkeypatch.setattr(curation.selectors, "PAPERS_SHOWN", 3)
    chablat = researcher_of("0705.0856", 3)  # 8 papers, the newest 0705.0982, 0705.0962, 0705.0961
    a, _b = cieza()
    page = compare(editor, chablat, a)
    assert "arXiv 0705.0982" in page and "arXiv 0705.0961" in page and "arXiv 0705.0856" not in page
    assert "And 5 older papers" in text(page)


def test_comparison_queries_do_not_grow_with_papers(curation_sample, editor, django_assert_max_num_queries):
    """Cieza's records hold 3 papers, Chablat's and Wenger's 8 and 5 with more co-authors:
    the same number of queries (no query per paper or co-author): 13 for two records
    (session, user, permissions twice, researchers, identities, co-authors, facts, papers,
    their co-authors, institutions per record, pair decisions)."""
    a, b = cieza()
    chablat, wenger = researcher_of("0705.0856", 3), researcher_of("0705.0982", 2)
    with django_assert_max_num_queries(13) as small:
        compare(editor, a, b)
    with django_assert_max_num_queries(13) as large:
        compare(editor, chablat, wenger)
    assert len(large.captured_queries) == len(small.captured_queries)
