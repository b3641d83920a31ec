"""Matching speed: author slots matched to researchers per second by the local matcher.

Builds a corpus from the real sample (two recorded OAI-PMH pages and the Kaggle lines,
about 2,800 papers) copied ``--copies`` times under shifted arXiv ids (the year digits move
by the copy number, so ``0704.4001`` copy 3 is ``1004.4001``), then times, in the same run
on the same unmatched slots:

- the matcher: ``researchers_match_authors(sources=[])``, what ``manage.py match_authors
  --local-only`` runs (clustering, new researchers, authorships, all written);
- the naive rule: one researcher per name block (``"j smith"``), read and written the same
  way (the same pending query, COPY of researchers and authorships), so the ratio shows
  what the clustering evidence costs over the least a matcher must do;
- the floor: a plain ``COPY`` of the same authorship rows into an unindexed temp table.

Usage::

    .venv/bin/python bench/matching_speed.py [--copies 8] [--repeat 3] [--db wove_bench]

The bench database (``--db``, created and migrated on first use) is emptied of papers and
researchers first. Each figure is the best of ``--repeat`` runs (authorships are deleted
between runs).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import defaultdict

from _setup import ROOT, django_with_bench_db, shifted

OAI_PAGES = [
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml",
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml",
]
KAGGLE = ROOT / "data" / "arxiv" / "kaggle" / "weaviate_metadata_1000.lines0001-0800.json"


def load_corpus(copies: int) -> int:
    """Empty the bench database's papers and researchers, then ingest ``copies`` copies of
    the sample through the harvester's upsert. Returns the number of papers."""
    from django.db import connection, transaction

    from papers import upsert
    from papers.kaggle import iter_kaggle
    from papers.oai import parse_oai_response
    from papers.records import ArxivRecord

    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE researchers_authorship, researchers_researcher, papers_paperauthor, "
            "papers_paperversion, papers_paper CASCADE"
        )
    records = [r for path in OAI_PAGES for r in parse_oai_response(str(path)).records]
    with open(KAGGLE, "rb") as stream:
        records += [r for r in iter_kaggle(stream) if isinstance(r, ArxivRecord)]
    categories = upsert.CategoryMap()
    for copy in range(copies):
        batch = [dataclasses.replace(r, arxiv_id=shifted(r.arxiv_id, copy)) for r in records]
        for offset in range(0, len(batch), upsert.BATCH_SIZE):
            with transaction.atomic():
                upsert.papers_upsert(
                    records=batch[offset : offset + upsert.BATCH_SIZE], categories=categories
                )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE papers_paper, papers_paperauthor, papers_paperversion")
        cursor.execute("SELECT count(*) FROM papers_paper")
        return cursor.fetchone()[0]


def unmatch() -> None:
    """Remove every authorship and researcher (the bench database only)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE researchers_authorship, researchers_researcher CASCADE")
        cursor.execute("ANALYZE researchers_authorship, researchers_researcher")


def naive_match() -> int:
    """One researcher per name block, read and written like the matcher. Returns slots."""
    from django.db import connection, transaction
    from django.utils import timezone

    from papers.text import make_slug
    from researchers.matching_common import slot_block
    from researchers.matching_local import _PENDING_SQL, _copy_rows
    from researchers.models import MatchMethod

    with transaction.atomic(), connection.cursor() as django_cursor:
        cursor = django_cursor.cursor
        cursor.execute(_PENDING_SQL)
        pending = cursor.fetchall()
        by_block: dict[str, list[tuple]] = defaultdict(list)
        for row in pending:
            by_block[slot_block(row[2], row[3], row[4])].append(row)
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('researchers_researcher', 'id')) "
            "FROM generate_series(1, %s)",
            [len(by_block)],
        )
        ids = [row[0] for row in cursor.fetchall()]
        now = timezone.now()
        researchers, authorships = [], []
        for rid, (block, rows) in zip(ids, by_block.items(), strict=True):
            names = sorted({r[2] for r in rows})
            researchers.append(
                (rid, names[0], make_slug(names[0]), names, len({r[1] for r in rows}), now, now)
            )
            authorships.extend(
                (r[0], r[1], rid, MatchMethod.LOCAL.value, "", 0.5, block, now, now) for r in rows
            )
        _copy_rows(
            cursor,
            "researchers_researcher",
            ["id", "display_name", "slug", "name_variants", "paper_count", "created_at", "modified_at"],
            researchers,
        )
        _copy_rows(
            cursor,
            "researchers_authorship",
            [
                "slot_id",
                "paper_id",
                "researcher_id",
                "method",
                "source",
                "confidence",
                "block",
                "created_at",
                "modified_at",
            ],
            authorships,
        )
    return len(pending)


def copy_floor() -> tuple[int, float]:
    """COPY the authorship rows (as the matcher writes them) into an unindexed temp table.
    Returns (rows, seconds) for the COPY alone."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as django_cursor:
        cursor = django_cursor.cursor
        cursor.execute(
            "SELECT slot_id, paper_id, researcher_id, method, source, confidence, block, created_at "
            "FROM researchers_authorship"
        )
        rows = cursor.fetchall()
        cursor.execute(
            "CREATE TEMP TABLE floor_authorship ON COMMIT DROP AS SELECT slot_id, paper_id, researcher_id, "
            "method, source, confidence, block, created_at FROM researchers_authorship WITH NO DATA"
        )
        start = time.perf_counter()
        with cursor.copy(
            "COPY floor_authorship (slot_id, paper_id, researcher_id, method, source, confidence, block, "
            "created_at) FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row(row)
        return len(rows), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=8, help="copies of the ~2,800-paper sample")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (best kept)")
    parser.add_argument("--db", default="wove_bench", help="bench database name")
    parser.add_argument("--profile", action="store_true", help="cProfile one matcher run instead")
    args = parser.parse_args()
    django_with_bench_db(args.db)
    from researchers.models import Authorship, Researcher
    from researchers.services import researchers_match_authors

    start = time.perf_counter()
    papers = load_corpus(args.copies)
    seconds = time.perf_counter() - start
    print(f"corpus: {papers} papers ({args.copies} copies of the sample), loaded in {seconds:.1f} s")

    if args.profile:
        import cProfile
        import pstats

        unmatch()
        import gc

        gc.disable()
        profiler = cProfile.Profile()
        profiler.enable()
        researchers_match_authors(sources=[])
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        return

    best: dict[str, float] = {}
    slots = 0
    summary_line = ""
    for _ in range(args.repeat):
        unmatch()
        start = time.perf_counter()
        summary = researchers_match_authors(sources=[])
        best["matcher"] = min(best.get("matcher", 1e9), time.perf_counter() - start)
        slots = summary.slots
        summary_line = summary.line()
        researchers = Researcher.objects.count()
        floor_rows, floor_seconds = copy_floor()
        best["floor"] = min(best.get("floor", 1e9), floor_seconds)
        unmatch()
        start = time.perf_counter()
        naive_slots = naive_match()
        best["naive"] = min(best.get("naive", 1e9), time.perf_counter() - start)
        naive_researchers = Researcher.objects.count()
    assert naive_slots == slots == floor_rows == Authorship.objects.count(), (naive_slots, slots, floor_rows)

    print(f"authorships: {slots} on {papers} papers; best of {args.repeat} runs each")
    print(f"matcher    : {slots / best['matcher']:10.0f} authorships/s  ({researchers} researchers)")
    print(f"  last run: {summary_line}")
    naive_rate = slots / best["naive"]
    print(f"naive rule : {naive_rate:10.0f} authorships/s  ({naive_researchers} researchers, one per block)")
    print(f"COPY floor : {slots / best['floor']:10.0f} authorships/s")
    print(f"ratio matcher/naive: {best['naive'] / best['matcher']:.2f}")
    print(f"ratio matcher/floor: {best['floor'] / best['matcher']:.3f}")
    print(f"target: >= 10,000 authorships/s: {'met' if slots / best['matcher'] >= 10_000 else 'MISSED'}")


if __name__ == "__main__":
    main()
