"""The archive's counts kept by the pipeline (issue 28, "pages from kept rows"): the home page
and the paper list read one row the archive-facts stage writes, and count nothing on the
request; the kept numbers are the ones a live count gives."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pages.facts import archive_facts, archive_facts_backlog
from pages.tasks import archive_facts_stage
from papers.models import Paper
from wove import pipeline

pytestmark = pytest.mark.django_db


@pytest.fixture
def matched_sample(sample_papers):
    """The sample as ``make demo`` leaves it: ROR loaded, affiliations and authors matched."""
    cache.clear()  # without kept facts, pages count through the cache (wove.counts)
    call_command("load_ror", "--no-progress", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    call_command("match_affiliations", "--no-progress")
    call_command("match_authors", "--no-progress")
    yield
    cache.clear()


def _counts_run(ctx) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if "COUNT(" in q["sql"].upper()]


def test_the_home_page_reads_the_kept_counts_and_counts_nothing(client, matched_sample):
    live = " ".join(client.get("/").content.decode().split())
    assert archive_facts() is None and archive_facts_backlog().waiting == 1
    assert archive_facts_stage(trigger="test")["papers"] == 2800
    assert archive_facts_backlog().waiting == 0
    with CaptureQueriesContext(connection) as ctx:
        kept = " ".join(client.get("/").content.decode().split())
    assert _counts_run(ctx) == []
    # The same page as the live counts gave: 2,800 papers, 38 institutions (40 ROR records).
    assert kept == live
    assert "<strong>2,800</strong> papers" in kept
    assert '<strong>38</strong> institutions <span class="soft">(40 ROR records)</span>' in kept


def test_the_paper_list_pages_by_the_kept_count(client, matched_sample):
    archive_facts_stage(trigger="test")
    facts = archive_facts()
    # astro-ph, primary or cross-listed, as /papers?category= filters: the archive and
    # every class in it (astro-ph.CO, ...), each paper once.
    literal = Paper.objects.public().filter(categories__contains=["astro-ph"]).count()
    assert facts["categories"]["astro-ph"] == literal
    astro = sum(
        1
        for categories in Paper.objects.public().values_list("categories", flat=True)
        if any(code == "astro-ph" or code.startswith("astro-ph.") for code in categories)
    )
    assert facts["archives"]["astro-ph"] == astro > 24
    with CaptureQueriesContext(connection) as ctx:
        response = client.get("/papers", {"category": "astro-ph"})
    assert _counts_run(ctx) == []
    pages = -(-astro // 24)
    assert f"page 1 of {pages}" in " ".join(response.content.decode().split())


def test_a_harvest_after_the_count_puts_the_facts_in_the_backlog(matched_sample):
    from django.utils import timezone

    from papers.models import HarvestRun

    archive_facts_stage(trigger="test")
    HarvestRun.objects.create(metadata_prefix="arXivRaw", status="complete", finished_at=timezone.now())
    assert archive_facts_backlog().waiting == 1
    assert "archive-facts" in pipeline.STAGE_NAMES
    stage = next(s for s in pipeline.STAGES if s.name == "archive-facts")
    assert (stage.task, stage.queue) == ("pages.refresh_archive_facts", "summaries")


def test_researcher_pages_say_matching_is_behind_only_while_it_is(client, matched_sample):
    from researchers.models import Researcher

    url = Researcher.objects.listed().first().get_absolute_url()
    note = "Matching runs newest-first and has papers still waiting"
    assert note in client.get(url).content.decode()  # no count yet: it may be behind
    archive_facts_stage(trigger="test")
    assert archive_facts()["authors_waiting"] == 0  # match_authors matched every slot
    assert note not in client.get(url).content.decode()


def test_home_fields_count_as_the_category_pages_they_link(client, matched_sample):
    # The home page counted primary categories only ("High Energy Physics - Theory 160")
    # and linked /search?category=hep-th, which says 250 (primary or cross-listed).
    for kept in (False, True):
        if kept:
            archive_facts_stage(trigger="test")
        home = " ".join(client.get("/").content.decode().split())
        link = '<a href="/papers/?category=hep-th">High Energy Physics - Theory</a>'
        assert f'{link} <span class="n">250</span>' in home
        listing = " ".join(client.get("/papers/", {"category": "hep-th"}).content.decode().split())
        assert "page 1 of 11" in listing  # 250 papers, 24 a page
