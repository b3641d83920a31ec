"""Harvest ingest speed: records per second from recorded OAI-PMH XML into PostgreSQL.

Prints three figures measured in the same run on the same records, and their ratios:
parsing alone (lxml + TeX decoding), the full ingest (merge, COPY-upsert papers, author
slots and versions), and the floor: a plain ``COPY`` of the same rows into staging tables
of the same shape. Then a memory check: the Python heap's peak (``tracemalloc``) while
``harvest_files`` loads 1, 2 and ``--pages`` pages, which should not grow with the pages.
Usage::

    .venv/bin/python bench/harvest_ingest.py [--repeat 5] [--runs 3] [--pages 5] [--db wove_bench]

``--repeat`` ingests each of the two recorded 1,000-record pages N times under fresh
identifiers (copy k moves the ids' year digits by k: ``0704.4001`` copy 2 is
``0904.4001``), so every record is a new paper, as in a first harvest. Each figure is the
best of ``--runs`` runs (the papers are deleted between runs; provenance records and
authorships in the bench database, which would protect papers from deletion, are emptied
first).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import tempfile
import time
import tracemalloc
from pathlib import Path

from _setup import ROOT, django_with_bench_db, shifted

SAMPLES = [
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml",
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml",
]


def delete_papers(ids: list[str]) -> None:
    from papers.models import Paper

    Paper.objects.filter(arxiv_id__in=ids).delete()


def memory_check(pages: int) -> list[float]:
    """Peak traced Python memory (MiB) of ``harvest_files`` over 1, 2 and ``pages`` pages
    (at most 5). The first page of a process also pays one-off imports and caches, and the
    second still holds the first's unreclaimed cycles, so flat means 2 pages = N pages.

    The arXivRaw page (0801.3673 ...) is copied with its month moved to 07 ... 11
    (``0807.3673`` ...): valid ids no other copy here uses, so every page is written."""
    from papers.services import harvest_files

    folder = Path(tempfile.mkdtemp(prefix="wove-bench-pages-"))
    data = SAMPLES[1].read_bytes()
    paths, ids = [], []
    for copy in range(pages):
        month = b"%02d" % (7 + copy)
        path = folder / f"page{copy}.xml"
        path.write_bytes(re.sub(rb"(oai:arXiv\.org:|<id>)0801\.", rb"\g<1>08" + month + rb".", data))
        paths.append(path)
        ids += [f"08{7 + copy:02d}.{n}" for n in range(3673, 4673)]
    peaks = []
    for count in (1, 2, pages):
        delete_papers(ids)
        tracemalloc.start()
        run = harvest_files(paths=paths[:count])
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
        assert run.records_written == 1000 * count, run.records_written
    delete_papers(ids)
    return peaks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="copies of each 1,000-record page")
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (best kept)")
    parser.add_argument("--pages", type=int, default=5, help="pages for the memory check, 2-5 (0: skip it)")
    parser.add_argument("--db", default="wove_bench", help="bench database name")
    parser.add_argument("--profile", action="store_true", help="cProfile parsing and one ingest instead")
    args = parser.parse_args()
    connection = django_with_bench_db(args.db)
    from django.db import transaction

    from papers import services
    from papers.oai import parse_oai_response

    with connection.cursor() as cursor:  # rows other benches left that protect papers
        cursor.execute("TRUNCATE provenance_event, provenance_record, researchers_authorship CASCADE")

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()

    # 1. Parsing alone.
    parse_seconds = 1e9
    for _ in range(args.runs):
        start = time.perf_counter()
        pages = [parse_oai_response(str(path)) for path in SAMPLES for _ in range(args.repeat)]
        parse_seconds = min(parse_seconds, time.perf_counter() - start)
    # Page k of a sample is copy k: fresh identifiers, every record a new paper.
    renamed = [
        dataclasses.replace(record, arxiv_id=shifted(record.arxiv_id, index % args.repeat))
        for index, page in enumerate(pages)
        for record in page.records
    ]
    ids = [r.arxiv_id for r in renamed]
    assert len(set(ids)) == len(ids)

    # 2. Full ingest, in the harvester's page-sized batches.
    categories = services.CategoryMap()
    ingest_seconds = 1e9
    for _ in range(args.runs):
        delete_papers(ids)
        if profiler is not None:
            profiler.enable()
        start = time.perf_counter()
        for offset in range(0, len(renamed), services.BATCH_SIZE):
            with transaction.atomic():
                result = services.papers_upsert(
                    records=renamed[offset : offset + services.BATCH_SIZE], categories=categories
                )
                assert result.written == len(renamed[offset : offset + services.BATCH_SIZE])
        ingest_seconds = min(ingest_seconds, time.perf_counter() - start)
    slots = sum(len(r.authors or []) for r in renamed)
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
        return

    # 3. The floor: COPY of the same paper and author rows, nothing else.
    paper_rows = [(r.arxiv_id, r.title, r.abstract, r.authors_text, r.categories, r.license) for r in renamed]
    author_rows = [
        (i, pos, a.name, a.keyname, a.forenames, a.affiliations)
        for i, r in enumerate(renamed)
        for pos, a in enumerate(r.authors or [], start=1)
    ]
    floor_seconds = tsvector_seconds = 1e9
    for _ in range(args.runs):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMP TABLE floor_paper (arxiv_id text, title text, abstract text, authors_text text, "
                "categories varchar(32)[], license text) ON COMMIT DROP"
            )
            cursor.execute(
                "CREATE TEMP TABLE floor_author (paper integer, position integer, name text, keyname text, "
                "forenames text, affiliations text[]) ON COMMIT DROP"
            )
            start = time.perf_counter()
            with cursor.cursor.copy("COPY floor_paper FROM STDIN") as copy:
                for row in paper_rows:
                    copy.write_row(row)
            with cursor.cursor.copy("COPY floor_author FROM STDIN") as copy:
                for row in author_rows:
                    copy.write_row(row)
            floor_seconds = min(floor_seconds, time.perf_counter() - start)
            # What PostgreSQL spends on the stored search vector alone (papers.Paper's generated
            # column: English stemming of title, authors and abstract), on the same rows.
            start = time.perf_counter()
            cursor.execute(
                "SELECT sum(length(setweight(to_tsvector('english', title), 'A') || "
                "setweight(to_tsvector('english', authors_text), 'B') || "
                "setweight(to_tsvector('english', abstract), 'C'))) FROM floor_paper"
            )
            cursor.fetchone()
            tsvector_seconds = min(tsvector_seconds, time.perf_counter() - start)

    n = len(renamed)
    print(f"records: {n} new papers ({slots} author slots), 2 recorded OAI-PMH pages x {args.repeat} copies")
    print(f"best of {args.runs} runs each")
    print(f"parse only : {n / parse_seconds:10.0f} records/s")
    print(f"full ingest: {n / ingest_seconds:10.0f} records/s  (includes no parsing)")
    print(f"COPY floor : {n / floor_seconds:10.0f} records/s")
    print(f"search vector alone (to_tsvector in PostgreSQL): {n / tsvector_seconds:.0f} records/s")
    end_to_end = n / (parse_seconds + ingest_seconds)
    print(f"parse+ingest end to end: {end_to_end:.0f} records/s")
    print(f"ratio ingest/floor: {floor_seconds / ingest_seconds:.2f}  (target >= 0.5)")
    print(f"ratio end-to-end/floor: {floor_seconds / (parse_seconds + ingest_seconds):.2f}")
    with_vector = floor_seconds + tsvector_seconds
    print(f"ratio ingest/(COPY floor + search vector): {with_vector / ingest_seconds:.2f}")
    if args.pages:
        one, two, many = memory_check(args.pages)
        print(
            f"memory (tracemalloc peak, harvest_files): 1 page {one:.1f} MiB, 2 pages {two:.1f} MiB, "
            f"{args.pages} pages {many:.1f} MiB (ratio {args.pages}/2 pages {many / two:.2f}; flat is 1.0)"
        )


if __name__ == "__main__":
    main()
