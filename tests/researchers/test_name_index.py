"""The name-word index (researchers.name_index, issue 28): kept by the researchers' table's
triggers, it finds what the name search finds, from the index alone."""

import itertools
import json

import pytest
from django.db import connection

from researchers.models import NameToken, NameWord, Researcher
from researchers.name_index import listed_named, listed_named_count, listed_named_sql
from researchers.querysets import name_words
from tests.plans import plan_nodes, plan_of

pytestmark = pytest.mark.django_db


def words_of(researcher: Researcher) -> list[tuple[str, int]]:
    return sorted(NameWord.objects.filter(researcher=researcher).values_list("word", "paper_count"))


def found(query: str, *among: Researcher) -> set[tuple[int, int]]:
    """The index's matches, of ``among`` only when given (the package's committed sample may
    be loaded beside a test's own rows)."""
    rows = set(listed_named(name_words(query), 100_000))
    ours = {r.pk for r in among}
    return {row for row in rows if row[0] in ours} if among else rows


def searched(query: str) -> set[tuple[int, int]]:
    return set(Researcher.objects.listed().search(query).values_list("pk", "paper_count"))


def test_a_listed_researchers_words_are_its_folded_names_split_at_spaces():
    # Real bylines of arXiv 0704.0001 and 0704.0027 (data/arxiv/kaggle): the space before a
    # hyphenated initial and the apostrophe are kept as the folded names hold them.
    yuan = Researcher.objects.create(display_name="C. -P. Yuan", name_variants=["C.-P. Yuan"], paper_count=2)
    falko = Researcher.objects.create(display_name="Vladimir I. Fal'ko", paper_count=1)
    balazs = Researcher.objects.create(display_name="C. Balázs", paper_count=0)  # not listed
    assert words_of(yuan) == [("-p.", 2), ("c.", 2), ("c.-p.", 2), ("yuan", 2)]
    assert words_of(falko) == [("fal'ko", 1), ("i.", 1), ("vladimir", 1)]
    assert words_of(balazs) == []
    assert set(NameToken.objects.values_list("word", flat=True)) >= {"c.-p.", "fal'ko", "yuan"}


def test_names_paper_counts_merges_deletes_and_truncates_keep_the_words_in_step():
    # Real names from data/arxiv/kaggle (0704.0062, 0704.0049).
    brejova = Researcher.objects.create(display_name="Broňa Brejová", paper_count=1)
    obro = Researcher.objects.create(display_name="Mikkel Øbro", paper_count=3)
    assert found("brejova", brejova) == {(brejova.pk, 1)}
    Researcher.objects.filter(pk=brejova.pk).update(paper_count=4)
    assert found("brejova", brejova) == {(brejova.pk, 4)}
    brejova.refresh_from_db()
    brejova.name_variants = ["B. Brejová"]
    brejova.save()
    assert words_of(brejova) == [("b.", 4), ("brejova", 4), ("brona", 4)]
    # Merged away: no longer listed, so no longer found; undone, found again.
    Researcher.objects.filter(pk=obro.pk).update(merged_into=brejova)
    assert found("obro", obro) == set() and words_of(obro) == []
    Researcher.objects.filter(pk=obro.pk).update(merged_into=None)
    assert found("Øbro", obro) == {(obro.pk, 3)}
    Researcher.objects.filter(pk=obro.pk).update(paper_count=0)
    assert found("obro", obro) == set()
    brejova.delete()
    assert NameWord.objects.filter(researcher_id=brejova.pk).count() == 0
    Researcher.objects.create(display_name="Rastislav Šrámek", paper_count=2)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("TRUNCATE researchers_researcher CASCADE")
    assert NameWord.objects.count() == 0


def test_a_bulk_write_keeps_every_row():
    # COPY and bulk_create fire the statement triggers once for all their rows.
    made = Researcher.objects.bulk_create(
        [
            Researcher(display_name=f"Wei-Zhen Deng {n}", slug="wei-zhen-deng", paper_count=n)
            for n in range(1, 51)
        ]
    )
    assert len(found("wei-zhen", *made)) == 50
    Researcher.objects.filter(pk__in=[r.pk for r in made]).update(paper_count=7)
    assert found("deng", *made) == {(r.pk, 7) for r in made}


def test_the_index_finds_what_the_name_search_finds_on_the_sample(matched_sample):
    # Every word of the sample's names, a three-letter piece from inside it, its first one
    # and two letters, every pair of words of a name, and queries with LIKE's wildcards and
    # a regular expression's characters (which must stand for themselves).
    names = list(Researcher.objects.listed().values_list("display_name", flat=True))
    assert len(names) > 1000
    queries = {"C. -P. Yuan", "J.-P.", "d'Ambrumenil", "o'", "_", "%", "a_b", "x%y", "(", "[a", "\\", "li li"}
    for name in names[::7]:
        words = name_words(name)
        queries.update(words)
        queries.update(w[1:4] for w in words if len(w) > 4)
        queries.update(w[:1] for w in words)
        queries.update(w[:2] for w in words)
        queries.update(" ".join(pair) for pair in itertools.combinations(words, 2))
    assert len(queries) > 1000
    differ = [q for q in sorted(queries) if found(q) != searched(q)]
    assert differ == []
    miscounted = [q for q in sorted(queries)[::5] if listed_named_count(name_words(q)) != len(searched(q))]
    assert miscounted == []
    # One to check by hand: the sample holds C. Balázs (arXiv 0704.0001) and L. G. Balazs.
    balazs = found("Balazs")
    assert sorted(Researcher.objects.get(pk=pk).display_name for pk, _n in balazs) == [
        "C. Balázs",
        "L. G. Balazs",
    ]


def test_the_limit_is_of_distinct_researchers():
    # Chao-Hsi Chang (arXiv 0704.0016) with a made-up misspelt variant: two of the
    # researcher's words hold "chang" ("chang", "changg"), one researcher found.
    chang = Researcher.objects.create(
        display_name="Chao-Hsi Chang", name_variants=["C.-H. Chang", "Chao-Hsi Changg"], paper_count=1
    )
    assert found("chang", chang) == {(chang.pk, 1)}
    assert found("changg", chang) == {(chang.pk, 1)}
    rows = listed_named(["chang"], 100_000)
    assert len(rows) == len({pk for pk, _n in rows})


def test_a_name_search_reads_the_word_index_alone():
    # Issue 28: the matching ids and paper counts come from (word) INCLUDE (researcher_id,
    # paper_count), never from the researchers' table (its heap reads were the cost).
    Researcher.objects.create(display_name="Yu-Ming Wang", paper_count=2)  # arXiv 0704.0016
    sql, params = listed_named_sql(name_words("wang yu"), 5001)
    # Whether the index covers the read: without VACUUM inside a test's transaction the
    # visibility map is unset, and the planner may weigh a bitmap scan cheaper.
    plan = plan_of(sql, params, off=("seqscan", "bitmapscan"))
    read = [(n["Relation Name"], n["Node Type"]) for n in plan_nodes(plan) if "Relation Name" in n]
    assert "researchers_researcher" not in json.dumps(plan)
    # Each query word's matches: its distinct words, then their rows of the word index.
    assert (
        sorted(read)
        == [("researchers_nametoken", "Index Only Scan")] * 2
        + [("researchers_nameword", "Index Only Scan")] * 2
    )


@pytest.mark.parametrize("query", ["li", "wang", "li x", "a"])
def test_a_capped_name_search_ranks_its_first_page_from_the_word_index(matched_sample, monkeypatch, query):
    # Issue 28: a name with more matches than the API counts was ranked by walking the
    # researchers' paper-count index and reading each row's names until a page was found.
    # From the word index, the matches that can be on the first n begin as every match does.
    from researchers import name_index
    from researchers.selectors import researchers_named

    order = ("-paper_count", "display_name", "id")
    expected = list(Researcher.objects.listed().search(query).order_by(*order).values_list("pk", flat=True))
    named = researchers_named(query, cap=3)
    assert named.capped and len(expected) > 3
    for n in (1, 2, 5, 21, len(expected)):
        top = name_index.listed_named_top(list(named.words), n)
        if query == "a":
            assert top is None  # "a" starts more distinct words than TOP_WORDS_MAX
            continue
        narrowed = named.most_papers(n).order_by(*order).values_list("pk", flat=True)
        assert list(narrowed[:n]) == expected[:n], n
    assert name_index.listed_named_top(list(named.words), len(expected) + 1) is None
    monkeypatch.setattr(name_index, "TOP_WORDS_MAX", 0)
    assert list(named.most_papers(2).order_by(*order).values_list("pk", flat=True)[:2]) == expected[:2]


def test_a_capped_page_keeps_its_ties_whole():
    # Wael Abu-Shammala (arXiv 0704.0005) and three namesakes made up here: one with 9
    # papers, three tied at 5. The two with most papers are 9 and 5, and all three with 5
    # are kept, so that the list's order by name decides among them, as among every match.
    from researchers.name_index import listed_named_top

    top = Researcher.objects.create(display_name="Wael Abu-Shammala", paper_count=9)
    tied = [
        Researcher.objects.create(display_name=f"{given} Abu-Shammala", paper_count=5)
        for given in ("Amal", "Omar", "Rami")
    ]
    Researcher.objects.create(display_name="Sami Abu-Shammala", paper_count=1)
    counts = sorted(Researcher.objects.listed().search("shammala").values_list("paper_count", flat=True))[
        ::-1
    ]
    assert counts[:4] == [9, 5, 5, 5]  # the committed sample's Abu-Shammala, if loaded, has fewer
    assert set(listed_named_top(["shammala"], 2)) == {top.pk, *(r.pk for r in tied)}


@pytest.mark.parametrize("ids_read", [10_000, 3])
def test_the_site_list_pages_a_name_search_as_the_name_search_orders_it(
    client, matched_sample, monkeypatch, ids_read
):
    # /researchers?q= pages from the name-word index (the matches' ids, or for a name past
    # LIST_NAME_IDS its words' rows by paper count) in the order of every match.
    import re

    from researchers import views
    from researchers.querysets import LISTED_ORDER

    monkeypatch.setattr(views, "LIST_PAGE_SIZE", 4)
    monkeypatch.setattr(views, "LIST_NAME_IDS", ids_read)
    expected = list(
        Researcher.objects.listed().search("li").order_by(*LISTED_ORDER).values_list("pk", flat=True)
    )
    assert len(expected) > 12
    shown = []
    for page in (1, 2, 3):
        html = client.get("/researchers", {"q": "li", "page": page}).content.decode()
        shown += [int(pk) for pk in re.findall(r'class="entity-name" href="/researchers/(\d+)-', html)]
        assert f"{len(expected):,} researchers" in html
    assert shown == expected[:12]

    def listed(page):
        html = client.get("/researchers", {"q": "li", "page": page}).content.decode()
        return [int(pk) for pk in re.findall(r'class="entity-name" href="/researchers/(\d+)-', html)]

    # The site's page-number rule (wove.paginator.SitePaginator): not a whole number or
    # below 1 gives page 1, past the end the last page.
    assert listed("x") == listed("2.0") == listed("-1") == expected[:4]
    assert listed("999") == expected[(len(expected) - 1) // 4 * 4 :]
