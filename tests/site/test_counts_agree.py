"""Every count says what it counts, and one label means one number on every page (issue 32:
the home page said 40 institutions where /institutions listed 38, and the list's "7 authors"
for Caltech counted author slots while its page listed 6 researchers)."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.core.management import call_command

from institutions import summaries as institution_summaries

pytestmark = pytest.mark.django_db

CALTECH = "/institutions/05dxps055"  # California Institute of Technology's ROR ID


@pytest.fixture
def matched_sample(sample_papers):
    """The sample as ``make demo`` leaves it: ROR loaded, affiliations and authors matched."""
    cache.clear()  # page counts are cached (wove.counts)
    call_command("load_ror", "--no-progress", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    call_command("match_affiliations", "--no-progress")
    call_command("match_authors", "--no-progress")
    # The pipeline's summaries stage, after the authors stage: pages read kept rows (issue 28).
    institution_summaries.summaries_refresh()
    yield
    cache.clear()


def _badges(html: str, name: str) -> list[str]:
    row = html.split(f">{name}</a>", 1)[1].split("</li>", 1)[0]
    return re.findall(r'<span class="badge">([^<]+)</span>', row)


def test_home_counts_institutions_as_the_list_does(client, matched_sample):
    home = client.get("/").content.decode()
    # 40 ROR records; Université Paris-Sud and the inactive Université Montpellier 2 lead to
    # their active successors and are listed as them.
    assert '<li><strong>38</strong> institutions <span class="soft">(40 ROR records)</span></li>' in home
    listing = client.get("/institutions").content.decode()
    assert '<p class="muted">38 institutions. A withdrawn or retired ROR record' in listing


def test_an_institution_counts_papers_and_researchers_alike_everywhere(client, matched_sample):
    page = client.get(CALTECH, follow=True).content.decode()
    # Six researchers on seven papers: Daniel Babich signs two of them.
    assert 'Researchers <span class="muted">(6)</span>' in page
    listed = page.split('id="researchers-h"', 1)[1].split("</ol>")[0]
    assert len(re.findall(r'<li><a href="/researchers/', listed)) == 6
    assert 'Papers <span class="muted">(7)</span>' in page
    assert 'Daniel Babich</a> <span class="muted">2 papers</span>' in page
    listing = client.get("/institutions").content.decode()
    assert _badges(listing, "California Institute of Technology") == ["7 papers", "6 researchers"]
    search = client.get("/search?q=caltech&type=institutions").content.decode()
    assert "7 papers here" in search
    assert "authors</span>" not in listing  # no badge counts author slots any more


def test_the_list_counts_only_public_papers_as_the_page_does(client, matched_sample):
    from papers.models import Paper

    # Hide one of Caltech's papers (an editor can): both the page and the list drop it.
    linked = Paper.objects.filter(authors__institution_links__institution__ror_id="05dxps055")
    Paper.objects.filter(pk=linked.order_by("arxiv_id")[0].pk).update(hidden=True)
    assert institution_summaries.summaries_refresh() >= 1  # the next sweep sees the paper change
    listing = client.get("/institutions").content.decode()
    page = client.get(CALTECH, follow=True).content.decode()
    assert _badges(listing, "California Institute of Technology")[0] == "6 papers"
    assert 'Papers <span class="muted">(6)</span>' in page
