"""The keyword search index beside PostgreSQL (issue 28, papers.search_index): built from the
sample, kept in step by the pipeline's search-index stage through the papers' change log, and
read by the search page, ``/api/v1/papers?q=`` and ``/api/v1/search`` with one count.

Counts checked by hand on the sample with PostgreSQL's own full-text match
(``search_vector @@ websearch_to_tsquery('english', q)``): the index gives the same number
for these queries; a hyphenated word is searched as the phrase of its pieces by both
(``papers.search_filters.web_text``)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.http import QueryDict

from pages import search as site_search
from pages import search_facets
from papers import search_filters, search_index, search_index_sync, search_terms
from papers.models import Paper, SearchChange, SearchIndexState
from papers.tasks import search_index_stage

pytestmark = pytest.mark.django_db


@pytest.fixture
def index_dir(settings, tmp_path):
    settings.SEARCH_INDEX_DIR = str(tmp_path / "search-index")
    settings.SEARCH_INDEX_MAX_LAG = 0
    return tmp_path / "search-index"


@pytest.fixture
def indexed(sample_papers, index_dir):
    result = search_index_stage(trigger="inline")
    assert result["status"] == "ok" and result["rebuilt"] is True
    return result


def _status(client, **params) -> str:
    html = " ".join(client.get("/search", {"mode": "keyword", **params}).content.decode().split())
    return re.sub(r"<[^>]+>", "", re.search(r'role="status">(.*?)</p>', html).group(1))


@pytest.mark.parametrize(
    ("q", "text"),
    [
        ("dark matter", "dark matter"),
        ('"black hole" OR galaxy', '"black hole" OR galaxy'),
        ("quantum -gravity", "quantum -gravity"),
        ("Schwarzschild's metric", "schwarzschild metric"),
        ("AdS/CFT", '"ads cft"'),
        # Field names, ranges, boosts and regexes cannot be written into the index's query.
        ("title:foo abstract:[a TO z]^9 /re.*/", '"title foo" "abstract a" to "z 9" re'),
        ("-model", ""),
        ("OR", ""),
        ("Grünberg", "grünberg"),
    ],
)
def test_query_text_reads_web_search_syntax_and_nothing_else(q, text):
    assert search_terms.query_text(q) == text


@pytest.mark.parametrize(
    ("q", "text"),
    [
        ("black-hole", '"black hole"'),
        ("-black-hole merger", '-"black hole" merger'),
        ('"black-hole binaries" OR p-adic', '"black hole binaries" OR "p adic"'),
        ("2-dimensional state-of-the-art", '"2 dimensional" "state of the art"'),
        ("Schwarzschild's -dark", "Schwarzschild's -dark"),  # no hyphen inside a word: as typed
        # An excluded phrase stays one exclusion: no space between the "-" and its quote.
        ('model -"black-hole"', 'model -"black hole"'),
        ('-"dark matter" halo', '-"dark matter" halo'),
        # A dash standing alone excludes nothing (the index skips it; PostgreSQL read
        # "black - hole" as black without hole).
        ("black - hole", "black  hole"),
        ("black -- hole -", "black  hole "),
    ],
)
def test_web_text_writes_a_hyphenated_word_as_the_phrase_of_its_pieces(q, text):
    assert search_filters.web_text(q) == text


def test_the_log_records_inserts_changes_and_deletes_in_one_statement_each(db):
    from django.db import connection

    before = SearchChange.objects.order_by("-id").values_list("id", flat=True).first() or 0
    a = Paper.objects.create(arxiv_id="2601.00001", slug="a", title="First")
    b = Paper.objects.create(arxiv_id="2601.00002", slug="b", title="Second")
    assert list(SearchChange.objects.filter(id__gt=before).values_list("paper_id", flat=True)) == [a.pk, b.pk]
    mark = SearchChange.objects.order_by("-id").first().id
    # A change to a field the index does not hold logs nothing; to one it holds, the paper.
    Paper.objects.filter(pk=a.pk).update(editor_note="seen")
    assert not SearchChange.objects.filter(id__gt=mark).exists()
    Paper.objects.filter(pk__in=[a.pk, b.pk]).update(hidden=True)
    assert sorted(SearchChange.objects.filter(id__gt=mark).values_list("paper_id", flat=True)) == [a.pk, b.pk]
    mark = SearchChange.objects.order_by("-id").first().id
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM papers_paper WHERE id = %s", [b.pk])
    assert list(SearchChange.objects.filter(id__gt=mark).values_list("paper_id", flat=True)) == [b.pk]


@pytest.mark.parametrize(
    ("q", "count"),
    [
        ("dark matter", 67),
        ("Grunberg", 5),
        ("Lopez", 13),
        ('"black hole"', 96),
        ("model", 834),
        # A hyphenated word is the phrase of its pieces, in PostgreSQL as in the index: before
        # web_text PostgreSQL found 4 (only text hyphenated the same way) and the index 96.
        ("black-hole", 96),
        ('"black-hole"', 96),
    ],
)
def test_counts_match_postgres_and_agree_between_page_and_api(client, indexed, settings, q, count):
    pg = Paper.objects.public().filter(search_vector=site_search.web_query(q)).count()
    assert pg == count
    assert search_index.search(q).count == count
    assert _status(client, q=q).startswith(f"{count} paper")
    assert client.get("/api/v1/papers", {"q": q, "sort": "relevance"}).json()["count"] == count
    assert client.get("/api/v1/search", {"q": q, "kinds": "papers"}).json()["papers"]["count"] == count


def test_an_excluded_quoted_phrase_is_excluded_by_postgres_and_the_index_alike(client, indexed):
    # Before, web_text wrote 'model -"black-hole"' as 'model - "black hole"': PostgreSQL
    # then found the papers with the phrase instead of those without it.
    q = 'model -"black-hole"'
    model = Paper.objects.public().filter(search_vector=site_search.web_query("model"))
    both = model.filter(search_vector=site_search.web_query('"black hole"')).count()
    assert both > 0
    expected = model.count() - both
    assert Paper.objects.public().filter(search_vector=site_search.web_query(q)).count() == expected
    assert search_index.search(q).count == expected
    assert _status(client, q=q).startswith(f"{expected} paper")


def test_a_dash_standing_alone_excludes_nothing_in_postgres_as_in_the_index(client, indexed):
    # Before, PostgreSQL read "black - hole" as black without hole, and the index (which
    # skips the lone dash) as black and hole: the page and a saved search disagreed.
    words = Paper.objects.public().filter(search_vector=site_search.web_query("black hole")).count()
    assert words > 0
    for q in ("black - hole", "black -- hole -"):
        assert Paper.objects.public().filter(search_vector=site_search.web_query(q)).count() == words
        assert search_index.search(q).count == words


def test_the_page_lists_the_index_ranking_with_postgres_highlights(client, indexed):
    html = client.get("/search", {"q": "Grunberg", "mode": "keyword"}).content.decode()
    listed = re.findall(r'href="/papers/(0801\.39\d\d)-', html)
    assert set(listed) == {"0801.3913", "0801.3916", "0801.3917", "0801.3920", "0801.3922"}
    api = client.get("/api/v1/papers", {"q": "Grunberg", "sort": "relevance"}).json()["items"]
    assert [p["arxiv_id"] for p in api] == list(dict.fromkeys(listed))


def test_a_later_page_reads_the_index_to_its_own_end(client, indexed):
    """The page reads the index's matches up to the end of the page asked for (page 3 of
    "model": the first 100, for the facets too), and a page past the end shows the last."""
    ranking = search_index.search("model", limit=5_000).ids
    assert len(ranking) == 834
    arxiv = dict(Paper.objects.filter(pk__in=ranking).values_list("pk", "arxiv_id"))

    def listed(page):
        html = client.get("/search", {"q": "model", "mode": "keyword", "page": page}).content.decode()
        return re.findall(r'<h3 class="paper-item-title"><a href="/papers/([^"-]+)-', html)

    assert listed(3) == [arxiv[pk] for pk in ranking[40:60]]
    assert listed(30) == [arxiv[pk] for pk in ranking[580:600]]
    assert listed(999) == [arxiv[pk] for pk in ranking[820:834]]  # 834 papers: page 42 of 20


def test_facets_count_every_match(client, indexed):
    q = '"black hole"'
    hits = search_index.search(q, facets=True)
    by_hand = {}
    for codes in (
        Paper.objects.public()
        .filter(search_vector=site_search.web_query(q))
        .values_list("categories", flat=True)
    ):
        for code in codes:
            by_hand[code] = by_hand.get(code, 0) + 1
    assert dict(hits.categories) == {code: n for code, n in by_hand.items() if code in dict(hits.categories)}
    assert hits.categories[:2] == [("astro-ph", 46), ("gr-qc", 43)]
    assert sum(n for _year, n in hits.years) == 96


def test_category_counts_from_the_category_sets_equal_each_categorys_own(indexed, monkeypatch):
    """The facet counts the papers' category sets and splits them; with more sets than one
    pass holds it counts each category's column instead: both give the same numbers."""
    from_sets = search_index.search("galaxy OR quantum", facets=True, facet_size=40)
    monkeypatch.setattr(search_index, "CATEGORY_SETS_MAX", 2)
    from_columns = search_index.search("galaxy OR quantum", facets=True, facet_size=40)
    assert from_sets.categories == from_columns.categories
    assert len(from_sets.categories) >= 20 and from_sets.years == from_columns.years


@pytest.mark.parametrize("sort", ["newest", "oldest"])
@pytest.mark.parametrize("days", [1, 30, 365, 3650])
def test_a_date_order_read_in_a_window_lists_what_ordering_every_match_lists(
    indexed, monkeypatch, sort, days
):
    """Newest or oldest first, the matches within the window of the archive's newest (oldest)
    submission answer when they hold the hits asked for; every match is ordered otherwise.
    Both give the ids and the count that ordering every match gives (issue 28), for common
    and rare words, first and later pages, windows the sample's papers fill or not."""
    cases = [("model", 0, 20), ("model", 40, 20), ("model", 0, 900), ("galaxy", 3, 7)]
    cases += [
        ('"black hole"', 0, 100),
        ("the", 0, 1),
        ("quantum -gravity", 10, 10),
        ("Schwarzschild", 0, 20),
        ("zzzzq", 0, 20),
    ]
    windowed = {}
    monkeypatch.setattr(search_index, "SORT_WINDOW", days * 86_400)
    for q, offset, limit in cases:
        windowed[q, offset, limit] = search_index.search(q, sort=sort, offset=offset, limit=limit)
    monkeypatch.setattr(search_index, "SORT_WINDOW", 0)
    for q, offset, limit in cases:
        whole = search_index.search(q, sort=sort, offset=offset, limit=limit)
        found = windowed[q, offset, limit]
        assert (found.ids, found.count) == (whole.ids, whole.count), (q, offset, limit)
    # By hand: "model" has 834 matches; 20 of them within a year of the newest paper, so the
    # window answered the first page there.
    assert windowed["model", 0, 20].count == 834
    if days == 365 and sort == "newest":
        newest = Paper.objects.public().order_by("-submitted_at").values_list("submitted_at", flat=True)[0]
        recent = search_index.search("model", submitted_from=(newest - timedelta(days=364)).date()).count
        assert recent >= 20


def test_filters_narrow_the_index_search_as_they_narrow_postgres(client, indexed):
    q = "galaxy"
    pg = Paper.objects.public().filter(
        search_vector=site_search.web_query(q), categories__contains=["astro-ph"]
    )
    assert _status(client, q=q, category="astro-ph").startswith(f"{pg.count()} paper")
    api = client.get(
        "/api/v1/papers", {"q": q, "category": "astro-ph", "submitted_from": "2008-01-01"}
    ).json()
    in_2008 = pg.filter(submitted_at__date__gte="2008-01-01").count()
    assert api["count"] == in_2008


def test_the_stage_keeps_the_index_in_step_with_the_papers(client, indexed, settings):
    assert search_index.search("zyxwvut").count == 0
    paper = Paper.objects.create(
        arxiv_id="2601.04242", slug="zyxwvut", title="The zyxwvut effect", abstract="Zyxwvut everywhere."
    )
    # Not yet applied: the page does not read an index that is behind (SEARCH_INDEX_MAX_LAG 0)
    # and PostgreSQL answers, so the new paper is found either way.
    assert search_index.usable() is None
    assert _status(client, q="zyxwvut") == "1 paper"
    result = search_index_stage(trigger="inline")
    assert result["changes"] == 1 and result["rebuilt"] is False
    assert search_index.usable() is not None
    assert search_index.search("zyxwvut").ids == [paper.pk]
    Paper.objects.filter(pk=paper.pk).update(deleted=True)  # an OAI deleted record
    search_index_stage(trigger="inline")
    assert search_index.search("zyxwvut").count == 0
    assert _status(client, q="zyxwvut") == "0 papers"


def test_a_copy_that_missed_pruned_changes_is_rebuilt(indexed, index_dir):
    from datetime import timedelta

    Paper.objects.filter(arxiv_id="0801.3913").update(hidden=True)
    search_index_stage(trigger="inline")
    pruned = search_index_sync.prune_changes(older_than=timedelta(0))
    assert pruned > 0
    assert SearchIndexState.objects.get(key="log").pruned_through == search_index.usable().applied
    # A host whose copy is older than the pruning point rebuilds instead of missing changes.
    copy = search_index.usable()
    copy.applied = 0
    search_index._write_meta(copy)
    result = search_index_sync.sync()
    assert result["rebuilt"] is True
    assert search_index.search("Grunberg").count == 4  # 0801.3913 is hidden


def test_the_index_off_leaves_postgres_answering(client, sample_papers, settings):
    settings.SEARCH_INDEX_DIR = ""
    assert search_index_stage(trigger="inline") == {"status": "ok", "index": "off"}
    assert _status(client, q="Grunberg") == "5 papers"


def test_hybrid_and_keyword_rankings_read_the_index_within_their_filters(indexed):
    from semantic.services import rank_papers

    best = search_index.search('"black hole"', limit=10)
    result = rank_papers(query='"black hole"', mode="keyword", limit=10)
    # The same BM25 scores in the same order (papers of equal score may come in either order).
    assert [score for _pk, score in result.hits] == best.scores
    assert {pk for pk, score in result.hits if score > best.scores[-1]} <= set(best.ids)
    assert result.complete is False  # 96 match, 10 listed
    # Within gr-qc: the index's order, only papers filed (or cross-listed) there.
    in_grqc = rank_papers(query='"black hole"', mode="keyword", limit=100, category="gr-qc")
    codes = dict(Paper.objects.filter(pk__in=[pk for pk, _ in in_grqc.hits]).values_list("pk", "categories"))
    assert len(in_grqc.hits) == 43 and all("gr-qc" in codes[pk] for pk, _ in in_grqc.hits)
    order = search_index.search('"black hole"', category="gr-qc", limit=100)
    assert {pk for pk, _ in in_grqc.hits} == set(order.ids)
    scores = [score for _pk, score in in_grqc.hits]
    assert scores == sorted(scores, reverse=True)


def test_people_facets_from_the_index_follow_matching_merges_and_links(client, sample_papers, index_dir):
    """The index holds each paper's researchers and institutions: the search page counts its
    researcher and institution facets over the first 100 papers listed from those ids, the
    same counts PostgreSQL's authorships and links give for the same papers; a merge (the
    authorships moved to the survivor) and a new institution link reach the index through
    the log at the next stage run."""
    from institutions.models import AuthorAffiliation, Institution
    from pages import search_facets
    from researchers.models import Authorship
    from researchers.services import researchers_match_authors
    from wove.bulk import int_array

    researchers_match_authors(sources=[])
    mit = Institution.objects.create(ror_id="042nb2s44", name="Massachusetts Institute of Technology")
    black_hole = Paper.objects.filter(search_vector=site_search.web_query('"black hole"'))
    slots = [p.authors.order_by("position").first() for p in black_hole.order_by("pk")[:3]]
    for slot in slots:
        AuthorAffiliation.objects.create(slot=slot, institution=mit, source="ror-id", confidence=1.0)
    search_index_stage(trigger="inline")

    search = site_search.parse_search(QueryDict('q="black hole"&mode=keyword'))
    site_search.tab_counts(search)
    hits = search.index_hits
    assert hits is not None and hits.count == 96
    by_postgres = search_facets._people_counts(int_array(hits.ids[:100]))
    assert hits.linked["researchers"] == by_postgres["researchers"]
    assert hits.linked["institutions"] == by_postgres["institutions"]
    authorships = Authorship.objects.filter(paper_id__in=hits.ids[:100])
    assert sum(hits.linked["researchers"].values()) == authorships.count()
    facets = search_facets.paper_facets(search)
    assert facets["people_among"] == 0  # 96 papers: all of them counted
    first_listed = {s.paper_id for s in slots} <= set(hits.ids[:100])
    assert first_listed and ("Massachusetts Institute of Technology", 3) in [
        (f.label, f.count) for f in facets["institutions"]
    ]

    # A merge moves the authorships of the busiest researcher to another: one update.
    top, second = facets["researchers"][0], facets["researchers"][1]
    Authorship.objects.filter(researcher_id=int(top.value)).update(researcher_id=int(second.value))
    AuthorAffiliation.objects.filter(institution=mit).delete()
    result = search_index_stage(trigger="inline")
    assert result["rebuilt"] is False and result["changes"] >= 1
    search = site_search.parse_search(QueryDict('q="black hole"&mode=keyword'))
    site_search.tab_counts(search)
    linked = search.index_hits.linked
    assert int(top.value) not in linked["researchers"]
    survivor = int(second.value)
    # The survivor holds the papers of both (a paper they wrote together counts once).
    assert linked["researchers"][survivor] >= top.count
    assert linked == search_facets._people_counts(int_array(search.index_hits.ids[:100]))
    assert mit.pk not in linked["institutions"]


def test_name_tabs_are_counted_for_the_tab_opened_and_after_load_for_the_others(client, indexed):
    """The papers tab leaves the Researchers and Institutions counts to ``/search/counts``
    (site.js fills them once the page has loaded); the tab opened counts its own."""
    from institutions.models import Institution, InstitutionName
    from researchers.models import Researcher

    Researcher.objects.create(display_name="Alberto Grunberg", paper_count=2)
    Researcher.objects.create(display_name="Grunberg Zed", paper_count=1)
    Researcher.objects.create(display_name="Gruen Berg", paper_count=1)  # not "grunberg"
    institute = Institution.objects.create(ror_id="042nb2s44", name="Grunberg Institute")
    InstitutionName.objects.create(
        institution=institute, value="Grunberg Institute", kind="label", normalized="grunberg institute"
    )
    html = client.get("/search", {"q": "Grunberg", "mode": "keyword"}).content.decode()
    assert 'data-tab-counts="/search/counts?q=Grunberg"' in html
    assert '<span class="n" data-tab-count="researchers" hidden></span>' in html
    counts = client.get("/search/counts", {"q": "Grunberg"})
    assert counts.json() == {"researchers": 2, "institutions": 1}
    assert "max-age" in counts["Cache-Control"]
    opened = client.get("/search", {"q": "Grunberg", "type": "researchers"}).content.decode()
    assert re.search(r'aria-current="page">Researchers<span class="n">2</span>', opened)


def test_a_large_search_the_index_answered_keeps_its_facets_out_of_the_cache(client, indexed, monkeypatch):
    """The index counts a search's facets with its list, so the facets of a large search
    (at least MATCH_CAP matches, here 20) are computed on each view, not read from nor
    written to Django's cache (a read and a write cost 1.9 ms at 1 M papers; issue 28). The
    same view without the index keeps them there (pages.search_facets.facets_for_page)."""
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr(site_search, "MATCH_CAP", 20)
    key = search_facets.facets_cache_key(site_search.PaperSearch(q="model", mode="keyword"))
    html = client.get("/search", {"q": "model", "mode": "keyword"}).content.decode()
    assert "834 papers: the first 20 are listed" in " ".join(html.split())
    assert cache.get(key) is None
    monkeypatch.setattr(search_index, "usable", lambda: None)
    client.get("/search", {"q": "model", "mode": "keyword"})
    assert cache.get(key) is not None


def test_the_sample_holds_about_one_paper_in_64_spread_over_the_ids():
    """in_sample keeps about one id in SAMPLE_EVERY (64): of 1..65,536, 1,024 within four
    binomial standard deviations (+-128), as many among the even ids as among the odd, and
    the same id always alike."""
    ids = range(1, 65_537)
    kept = [pk for pk in ids if search_index.in_sample(pk)]
    assert abs(len(kept) - 1_024) <= 128
    even = sum(1 for pk in kept if pk % 2 == 0)
    assert abs(even - len(kept) / 2) <= 4 * (len(kept) / 4) ** 0.5
    assert [search_index.in_sample(pk) for pk in kept[:5]] == [True] * 5


@pytest.mark.parametrize(("n", "rounded"), [(7, 7), (99, 99), (987, 990), (12_345, 12_000), (95_500, 96_000)])
def test_about_keeps_two_significant_digits(n, rounded):
    assert search_index.about(n) == rounded


def test_a_common_query_is_counted_on_the_sample_and_says_about(client, indexed, monkeypatch):
    """With the sampling bounds lowered to the sample's size (an archive's 400 sampled
    matches, 25,600 possible and 10,000 estimated as 5, 320 and 500; the lists' cap 5,000 as
    100), "model" (834 papers; its term in 900-odd papers' fields) is counted on the sample:
    its matches there times the archive's papers over the sample's, rounded, computed here
    from PostgreSQL's own matches and in_sample (a sample of some 44 papers here: the
    estimate itself is rough; at a million papers its error is about 2 %, BENCHMARKS.md).
    The page says "About", the API
    count_estimated, both with that number; the years facet is the sample's, scaled. "dark
    matter" (67 papers, "dark" in too few papers' fields) stays exact."""
    monkeypatch.setattr(search_index, "MIN_SAMPLE", 5)
    monkeypatch.setattr(search_index, "SAMPLE_FROM", 320)
    monkeypatch.setattr(search_index, "ESTIMATE_FROM", 500)
    monkeypatch.setattr(site_search, "MATCH_CAP", 100)
    public = list(Paper.objects.public().values_list("pk", flat=True))
    sampled = [pk for pk in public if search_index.in_sample(pk)]
    scale = len(public) / len(sampled)
    matching = Paper.objects.public().filter(search_vector=site_search.web_query("model"))
    in_sample = [
        (pk, at) for pk, at in matching.values_list("pk", "submitted_at") if search_index.in_sample(pk)
    ]
    assert matching.count() == 834 and len(in_sample) >= 5
    expected = search_index.about(len(in_sample) * scale)
    hits = search_index.search("model", facets=True)
    assert (hits.count, hits.estimated) == (expected, True)
    years: dict[int, int] = {}
    for _pk, at in in_sample:
        years[at.year] = years.get(at.year, 0) + 1
    assert dict(hits.years) == {year: search_index.about(n * scale) for year, n in years.items()}
    assert _status(client, q="model").startswith(f"About {expected:,} papers: the first 100 are listed")
    api = client.get("/api/v1/papers", {"q": "model", "sort": "relevance"}).json()
    assert (api["count"], api["count_estimated"]) == (expected, True)
    both = client.get("/api/v1/search", {"q": "model", "kinds": "papers"}).json()["papers"]
    assert (both["count"], both["count_estimated"]) == (expected, True)
    html = client.get("/search", {"q": "model", "mode": "keyword"}).content.decode()
    assert "Category and year counts are estimates" in html
    # The ranking is the one every match gives.
    monkeypatch.setattr(search_index, "SAMPLE_FROM", 10**12)
    assert search_index.search("model", limit=20).ids == hits.ids
    exact = search_index.search("dark matter", facets=True)
    assert (exact.count, exact.estimated) == (67, False)
    assert client.get("/api/v1/papers", {"q": "dark matter"}).json()["count_estimated"] is False


def test_the_sample_follows_the_papers(client, indexed):
    """The stage keeps the sample in step with the copy: a sampled paper deleted from
    PostgreSQL is gone from both after the next cycle."""
    sampled = next(p for p in Paper.objects.public().order_by("pk") if search_index.in_sample(p.pk))
    copy = search_index.usable()
    sample = search_index._open(copy, sample=True).searcher()
    before = sample.num_docs
    assert before == sum(
        1 for pk in Paper.objects.public().values_list("pk", flat=True) if search_index.in_sample(pk)
    )
    Paper.objects.filter(pk=sampled.pk).delete()
    search_index_stage(trigger="inline")
    copy = search_index.usable()
    assert search_index._open(copy, sample=True).searcher().num_docs == before - 1


def test_opening_another_copy_drops_the_one_before_even_when_its_name_begins_alike(tmp_path):
    """A process keeps one copy open (and its sample): opening ``index-1`` drops
    ``index-12``. Before, the copies kept were those whose path began with the new one's, so
    ``index-12`` stayed open beside ``index-1``."""
    import tantivy

    copies = []
    for name in ("index-12", "index-1"):
        path = tmp_path / name
        path.mkdir()
        tantivy.Index(search_index._schema(), path=str(path), reuse=False)
        copy = search_index.Copy(path, 0, search_index.SCHEMA_VERSION)
        search_index._write_meta(copy)
        copies.append(copy)
    search_index._open(copies[0])
    search_index._open(copies[1])
    assert list(search_index._opened) == [str(copies[1].path)]


def test_a_process_opening_a_copy_asks_the_kernel_to_read_its_files(indexed, settings, monkeypatch):
    """Opening a copy (and its sample) reads ahead every file of its directory on a thread
    of its own (issue 28: a first search of a rare word read its terms from disk at 2.5 M
    papers); not with SEARCH_INDEX_READ_AHEAD off."""
    import threading

    copy = search_index.usable()
    sizes = sum(entry.stat().st_size for entry in copy.path.iterdir() if entry.is_file())
    assert search_index.read_ahead(copy.path) == sizes > 0
    asked = []
    monkeypatch.setattr(search_index, "read_ahead", asked.append)

    def opened_afresh():
        search_index._opened.clear()
        search_index._open(copy)
        search_index._open(copy, sample=True)
        for thread in threading.enumerate():
            if thread.name == "search-read-ahead":
                thread.join(5)

    opened_afresh()
    assert asked == [copy.path, copy.path / search_index.SAMPLE_DIR]
    settings.SEARCH_INDEX_READ_AHEAD = False
    opened_afresh()
    assert len(asked) == 2
