"""``manage.py generate_corpus``: exact counts, consistent rows, and the same corpus for a seed."""

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, Sum

from corpus.synthetic import CorpusGenerator, sample_shape
from institutions.models import AuthorAffiliation, Institution
from papers.models import Paper, PaperAuthor, PaperVersion
from researchers.models import Authorship, Researcher


def _generate(papers: int, seed: int) -> dict[str, int]:
    out = io.StringIO()
    call_command("generate_corpus", "--papers", str(papers), "--seed", str(seed), "--no-progress", stdout=out)
    line, summaries = out.getvalue().strip().splitlines()
    assert line.startswith("wovepaper: generated ")
    # Then the page summaries, kept for every researcher with a paper and every institution
    # with a link (issue 28), as the pipeline's summaries stage keeps them.
    researchers = Researcher.objects.filter(merged_into__isnull=True, paper_count__gte=1).count()
    institutions = AuthorAffiliation.objects.values("institution_id").distinct().count()
    kept = f"page summaries: {researchers} researchers, {institutions} institutions, archive facts in "
    assert summaries.startswith(kept)
    return {
        name: int(n)
        for n, name in re.findall(
            r"(\d+) (papers|versions|author slots|researchers|authorships|affiliation links)", line
        )
    }


def _snapshot() -> list[tuple]:
    return list(
        PaperAuthor.objects.order_by("paper__arxiv_id", "position").values_list(
            "paper__arxiv_id",
            "paper__title",
            "paper__categories",
            "paper__latest_version",
            "position",
            "name",
            "affiliations",
            "authorship__researcher__display_name",
        )
    )


@pytest.mark.django_db
def test_generate_corpus_writes_exact_consistent_counts():
    counts = _generate(200, seed=7)
    assert counts["papers"] == Paper.objects.count() == 200
    assert len(set(Paper.objects.values_list("arxiv_id", flat=True))) == 200
    # One version row per version each paper claims; one slot per author in authors_text.
    assert (
        counts["versions"]
        == PaperVersion.objects.count()
        == Paper.objects.aggregate(n=Sum("latest_version"))["n"]
    )
    assert counts["author slots"] == PaperAuthor.objects.count()
    persons = PaperAuthor.objects.filter(is_collaboration=False)
    assert counts["authorships"] == Authorship.objects.count() == persons.count()
    assert counts["researchers"] == Researcher.objects.count()
    # paper_count is the number of papers a researcher holds a slot on.
    assert Researcher.objects.aggregate(n=Sum("paper_count"))["n"] == Authorship.objects.count()
    assert not Researcher.objects.filter(paper_count=0).exists()
    assert (
        not Authorship.objects.values("researcher", "paper").annotate(n=Count("id")).filter(n__gt=1).exists()
    )
    # An affiliation link per slot that names an institution: its ROR display name.
    assert (
        counts["affiliation links"]
        == AuthorAffiliation.objects.count()
        == persons.exclude(affiliations=[]).count()
    )
    link = AuthorAffiliation.objects.select_related("slot", "institution").first()
    assert link.slot.affiliations == [link.institution.name]
    assert Institution.objects.count() == 40  # the bundled ROR records, loaded on demand
    # Every slot of a researcher carries that researcher's family name.
    for a in Authorship.objects.select_related("slot", "researcher")[:50]:
        assert a.researcher.display_name.endswith(a.slot.keyname)
    # New-style identifiers, from 2008 (the sample's 0704/0705/0801 never collide).
    first, last = Paper.objects.order_by("submitted_at").values_list("arxiv_id", flat=True)[::199]
    assert first > "0801" and re.fullmatch(r"\d{4}\.\d{4}", first)
    assert last.startswith("25") and re.fullmatch(r"25\d{2}\.\d{5}", last)


@pytest.mark.django_db
def test_same_seed_same_corpus_and_a_second_run_refuses():
    _generate(120, seed=3)
    before = _snapshot()
    with pytest.raises(CommandError, match="exists"):
        _generate(120, seed=3)
    Paper.objects.all().delete()
    Researcher.objects.all().delete()
    _generate(120, seed=3)
    assert _snapshot() == before


def test_generator_is_deterministic_per_seed():
    shape = sample_shape()
    one = [
        (p.arxiv_id, p.title, [a.name for a in p.authors])
        for p in CorpusGenerator(shape=shape, papers=300, seed=5, institutions=40)
    ]
    two = [
        (p.arxiv_id, p.title, [a.name for a in p.authors])
        for p in CorpusGenerator(shape=shape, papers=300, seed=5, institutions=40)
    ]
    other = [
        (p.arxiv_id, p.title, [a.name for a in p.authors])
        for p in CorpusGenerator(shape=shape, papers=300, seed=6, institutions=40)
    ]
    assert one == two
    assert one != other
    assert [i for i, _t, _a in one] == [i for i, _t, _a in other]  # ids depend on the count only


@pytest.mark.django_db
def test_math_islands_are_drawn_whole():
    """A sample island such as ``$\\sqrt{s}=7$ TeV`` spans words; drawn word by word, halves met
    at random and a $ stayed open to the abstract's end (a page then read the whole abstract
    as TeX). Every generated title and abstract closes each $ it opens."""
    shape = sample_shape()
    islands = [w for w in shape.abstract_words if "$" in w and " " in w]
    assert any(w.startswith("$") and w.endswith("$") and " " in w for w in islands)
    for paper in CorpusGenerator(shape=shape, papers=400, seed=5, institutions=40):
        for text in (paper.title, paper.abstract):
            assert text.replace("\\$", "").count("$") % 2 == 0, text


def _index_definitions() -> set[str]:
    from django.db import connection

    from corpus.synthetic import CORPUS_TABLES

    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = ANY(%s)", [list(CORPUS_TABLES)])
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db
def test_a_first_load_builds_its_secondary_indexes_once_at_the_end(monkeypatch):
    from wove import bulk

    before = _index_definitions()
    assert any("researcher_id" in d and "UNIQUE" not in d for d in before)  # a secondary one
    dropped: list[list[str]] = []
    drop = bulk.secondary_indexes_drop

    def recording(cursor, tables):
        dropped.append(drop(cursor, tables))
        return dropped[-1]

    monkeypatch.setattr("corpus.synthetic.secondary_indexes_drop", recording)
    _generate(150, seed=5)
    # Dropped before the rows (an empty archive), every one of them built again after.
    assert len(dropped) == 1 and dropped[0]
    assert all("UNIQUE" not in statement for statement in dropped[0])
    assert _index_definitions() == before
    # A second corpus into a non-empty archive keeps its indexes throughout.
    Paper.objects.all().delete()
    Researcher.objects.all().delete()
    Paper.objects.create(arxiv_id="0704.0001", title="A stored paper", slug="a-stored-paper")
    _generate(50, seed=6)
    assert len(dropped) == 1
    assert _index_definitions() == before
