"""Summaries of many researchers read together (issue 28): every researcher's page reads a
kept summary, so the pipeline computes them in batches (researchers.summary_reads). A
batch must give each researcher exactly the summary computed for that researcher alone (a
batch of one), whoever else the batch holds."""

from collections import Counter
from itertools import combinations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from institutions.models import AuthorAffiliation, Institution
from papers.models import Paper
from researchers import summaries
from researchers.models import Authorship, ExternalIdentity, Researcher, ResearcherSummary

pytestmark = pytest.mark.django_db


def _researchers() -> list[Researcher]:
    # Everyone with 3 papers or more and every 7th of the rest: single-paper researchers, the
    # mega-papers' thousands of co-authors, Chablat's 8 papers, the busiest records.
    active = Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1).order_by("pk")
    return [r for i, r in enumerate(active) if r.paper_count >= 3 or i % 7 == 0]


def test_a_batch_gives_each_researcher_the_summary_computed_alone(matched_sample):
    researchers = _researchers()
    assert len(researchers) > 700
    alone = {r.pk: summaries.summary_compute(r) for r in researchers}
    together = {}
    for start in range(0, len(researchers), 500):
        together |= summaries.summaries_compute_many(researchers[start : start + 500])
    assert together == alone
    # The sample's busiest co-author network: positions, links and years are not empty.
    busiest = max(researchers, key=lambda r: r.paper_count)
    assert together[busiest.pk]["coauthor_links"] and together[busiest.pk]["years"]


def test_identity_sources_institutions_and_local_evidence_agree_too(matched_sample):
    """Chablat (8 papers of the sample, matched locally) given an OpenAlex id and an
    institution on one paper; a co-author of his keeps local evidence only."""
    chablat = Authorship.objects.get(slot__paper__arxiv_id="0705.0856", slot__position=3).researcher
    ExternalIdentity.objects.create(researcher=chablat, source="openalex", external_id="A5000000001")
    institution = Institution.objects.create(ror_id="03yrm5c26", name="Example Institute", slug="example")
    slot = chablat.authorships.order_by("paper__arxiv_id").first().slot
    AuthorAffiliation.objects.create(slot=slot, institution=institution, source="ror-id")
    coauthor = Authorship.objects.filter(paper=slot.paper).exclude(researcher=chablat).first().researcher

    together = summaries.summaries_compute_many([chablat, coauthor])

    assert together[chablat.pk] == summaries.summary_compute(chablat)
    assert together[coauthor.pk] == summaries.summary_compute(coauthor)
    assert together[chablat.pk]["identity_sources"] == ["OpenAlex"]
    assert together[chablat.pk]["local"] is False
    year = slot.paper.submitted_at.year
    assert together[chablat.pk]["institutions"] == [[institution.pk, year, year, 1]]
    assert together[coauthor.pk]["local"] is True


def test_the_refresh_keeps_a_summary_for_every_researcher_with_a_paper(matched_sample):
    """The stage keeps every page's aggregates (not only busy researchers'): after a refresh
    a researcher page with one paper reads its summary in one query instead of six."""
    ResearcherSummary.objects.all().delete()
    done = summaries.summaries_refresh()
    listed = Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1)
    assert done == listed.count() == ResearcherSummary.objects.count()
    single = listed.filter(paper_count=1).order_by("pk").first()
    with CaptureQueriesContext(connection) as ctx:
        data = summaries.researcher_summary(single)
    assert len(ctx.captured_queries) == 1
    assert data == summaries.summary_compute(single)
    assert summaries.summaries_refresh() == 0  # nothing stale a moment later
    # A citation count arrives for 0705.0856 (Chablat's, 4 authors): the paper search log
    # says so, and the next run refreshes its authors' rows, and only theirs.
    paper = Paper.objects.get(arxiv_id="0705.0856")
    authors = set(Authorship.objects.filter(paper=paper).values_list("researcher_id", flat=True))
    Paper.objects.filter(pk=paper.pk).update(cited_by_count=7)
    assert set(summaries.summaries_stale().values_list("pk", flat=True)) == authors
    assert summaries.summaries_refresh() == len(authors) == 4
    kept = ResearcherSummary.objects.get(pk=min(authors)).data
    assert kept["citations_total"] == 7 and kept["most_cited_id"] == paper.pk


def test_the_kept_first_page_holds_every_paper_tied_at_its_edge():
    """The list's first page comes from the kept newest ids (issue 28): 60 papers, the 40th to
    the 55th submitted at the same second, one without a date (PostgreSQL lists it first)."""
    from datetime import UTC, datetime, timedelta

    from researchers.selectors import AuthoredPaper

    start = datetime(2020, 1, 1, tzinfo=UTC)
    dates = [start - timedelta(days=i) for i in range(39)] + [start - timedelta(days=50)] * 16
    dates += [start - timedelta(days=60 + i) for i in range(4)] + [None]
    rows = [AuthoredPaper(i + 1, 1, 1, True, "hep-th", None, at) for i, at in enumerate(dates)]
    kept = summaries._newest_ids(rows)
    assert kept[0] == 60  # no date: first, as the list sorts
    assert set(kept) == set(range(1, 56)) | {60}  # the 48 newest and the 7 tied with the 48th


def test_the_links_are_the_pairs_of_top_coauthors_on_the_researchers_own_papers(matched_sample):
    # Counted here from the authorships, one paper at a time, for the sample's busiest
    # researchers (Chablat's network, the mega-papers' members) and every 50th of the rest.
    active = list(
        Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1).order_by("-paper_count", "pk")
    )
    chosen = active[:10] + active[10::50]
    linked = 0
    for researcher in chosen:
        data = summaries.summary_compute(researcher)
        top = {row[0] for row in data["coauthors"]}
        counts = Counter()
        for paper in set(Authorship.objects.filter(researcher=researcher).values_list("paper_id", flat=True)):
            on_paper = Authorship.objects.filter(paper_id=paper, researcher_id__in=top)
            for a, b in combinations(sorted(set(on_paper.values_list("researcher_id", flat=True))), 2):
                counts[(a, b)] += 1
        assert data["coauthor_links"] == [[a, b, n] for (a, b), n in sorted(counts.items())]
        linked += bool(counts)
    assert linked >= 10
