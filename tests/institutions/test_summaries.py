"""Institution summaries (issue #11): a large institution's page aggregates kept in the database.

MIT gets three of Mehran Kardar's papers (as in test_selectors.py); the tests lower the
threshold to 1 link so its page goes through the stored summary.
"""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from institutions import selectors, summaries, views
from institutions.models import AuthorAffiliation, Institution, InstitutionSummary
from papers.models import Paper
from researchers.models import Researcher
from tests.institutions.test_selectors import _authored

pytestmark = pytest.mark.django_db


@pytest.fixture
def mit(ror_registry):
    kardar = Researcher.objects.create(display_name="Mehran Kardar")
    mit = ror_registry["042nb2s44"]
    for arxiv_id, when in [("0704.0191", "2007-04-02T12:00:00Z"), ("0801.4549", "2008-01-29T12:00:00Z")]:
        slot = _authored(kardar, arxiv_id, when)
        AuthorAffiliation.objects.create(slot=slot, institution=mit, source="string-match", confidence=0.95)
    return mit


def page(client, institution):
    html = client.get(institution.get_absolute_url()).content.decode()
    return re.sub(r'(csrfmiddlewaretoken" value|nonce)="[^"]+"', "", html)


def test_page_from_the_stored_summary_equals_the_page_computed_afresh(client, mit, monkeypatch):
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 100)  # computed on each view, not kept
    fresh = page(client, mit)
    assert "Mehran Kardar" in fresh and not InstitutionSummary.objects.exists()
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 1)
    assert page(client, mit) == fresh  # computed and stored
    row = InstitutionSummary.objects.get(pk=mit.pk)
    assert row.link_count == 2
    kardar = Researcher.objects.get(display_name="Mehran Kardar")
    assert row.data["paper_count"] == 2 and row.data["researchers"] == [[kardar.pk, 2]]
    # The first page's papers, newest first: 0801.4549 (January 2008), then 0704.0191.
    newest = list(Paper.objects.filter(pk__in=row.data["newest_ids"]).order_by("-submitted_at"))
    assert [p.arxiv_id for p in newest] == ["0801.4549", "0704.0191"]
    assert row.data["newest_ids"] == [p.pk for p in newest]
    assert page(client, mit) == fresh  # read from the row


def test_a_new_link_shows_once_the_pipeline_refreshes_the_row(client, mit, monkeypatch):
    # Issue 28: the page reads the kept row as it stands (counting the institution's links on
    # every view grew with the archive); the summaries stage sees the new link count.
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 1)
    page(client, mit)
    other = Researcher.objects.create(display_name="Leonid Levitov")
    slot = _authored(other, "0705.0712", "2007-05-04T12:00:00Z")
    AuthorAffiliation.objects.create(slot=slot, institution=mit, source="openalex")
    assert "Leonid Levitov" not in page(client, mit)  # the kept row of 2 links
    assert summaries.summaries_backlog().waiting == 1
    assert summaries.summaries_refresh() == 1
    assert "Leonid Levitov" in page(client, mit)
    assert InstitutionSummary.objects.get(pk=mit.pk).link_count == 3
    assert summaries.summaries_refresh() == 0  # current
    InstitutionSummary.objects.filter(pk=mit.pk).update(computed_at=timezone.now() - timedelta(hours=7))
    assert summaries.summaries_refresh() == 1
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 4)  # MIT's 3 links are now under it
    assert summaries.summaries_refresh() == 0
    assert not InstitutionSummary.objects.exists()


def test_a_small_institution_read_once_gives_the_five_queries_figures():
    """The figures computed for an institution under SMALL_LINKS links (papers and
    researchers each read once) equal the kept path's five queries, for every
    institution of a 400-paper synthetic corpus (one paper hidden, some uncategorised)."""
    call_command("generate_corpus", "--papers", "400", "--seed", "3", "--no-progress", stdout=io.StringIO())
    linked = Paper.objects.filter(authors__institution_links__isnull=False).order_by("pk")
    Paper.objects.filter(pk=linked.first().pk).update(hidden=True)
    Paper.objects.filter(pk__in=linked.values("pk")[5:9]).update(primary_category=None)
    institutions = Institution.objects.filter(author_links__isnull=False).distinct()
    assert institutions.count() >= 5
    for institution in institutions:
        assert summaries.summary_compute(institution, small=True) == summaries.summary_compute(institution)


def test_the_first_page_from_kept_ids_leaves_out_papers_hidden_or_unlinked_since(client, mit, monkeypatch):
    # The kept ids are read as they stand until the pipeline refreshes the row, but a paper
    # hidden (a takedown) or no longer linked to MIT since then is not listed.
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 1)
    listed = re.compile(r'href="/papers/(\d{4}\.\d{4,5})-')
    assert listed.findall(page(client, mit)) == ["0801.4549", "0704.0191"]
    kept = InstitutionSummary.objects.get(pk=mit.pk).data["newest_ids"]
    assert [p.arxiv_id for p in selectors.institution_first_page(mit.pk, kept)] == ["0801.4549", "0704.0191"]
    Paper.objects.filter(arxiv_id="0801.4549").update(hidden=True)
    assert listed.findall(page(client, mit)) == ["0704.0191"]
    AuthorAffiliation.objects.filter(slot__paper__arxiv_id="0704.0191").delete()
    assert listed.findall(page(client, mit)) == []
    assert InstitutionSummary.objects.get(pk=mit.pk).data["newest_ids"] == kept  # not yet refreshed
    assert selectors.institution_first_page(mit.pk, kept) == []
    assert selectors.institution_first_page(mit.pk, []) == []


def test_the_first_page_builds_no_query_of_every_linked_paper(client, mit, monkeypatch):
    # Page 1 lists the kept ids; the queryset of every linked paper is built only for a page
    # past the first (it cost about a twentieth of the page: issue 28).
    monkeypatch.setattr(summaries, "SUMMARY_MIN_LINKS", 1)
    built = []
    every_paper = selectors.institution_papers
    monkeypatch.setattr(selectors, "institution_papers", lambda i: built.append(i) or every_paper(i))
    listed = re.compile(r'href="/papers/(\d{4}\.\d{4,5})-')
    page(client, mit)  # the summary computed and the first page's query compiled: once each
    built.clear()
    assert listed.findall(page(client, mit)) == ["0801.4549", "0704.0191"]
    assert built == []
    kept = InstitutionSummary.objects.get(pk=mit.pk).data["newest_ids"]
    pages = views.PaperPages(mit, kept)
    assert [p.arxiv_id for p in pages[0:24]] == ["0801.4549", "0704.0191"]
    assert built == []
    # Past the first page (one paper a page here), and without kept ids: every linked paper.
    assert [p.arxiv_id for p in pages[1:2]] == ["0704.0191"]
    assert [p.arxiv_id for p in views.PaperPages(mit, None)[0:24]] == ["0801.4549", "0704.0191"]
    assert built == [mit, mit]
