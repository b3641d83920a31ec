"""Harvest ingest speed: records per second from recorded OAI-PMH XML into PostgreSQL.

Prints three figures measured in the same run on the same records, and their ratios:
parsing alone (lxml + TeX decoding), the full ingest (parse, merge, COPY-upsert papers,
author slots and versions), and the floor: a plain ``COPY`` of the same rows into
staging tables of the same shape. Usage:

    .venv/bin/python bench/harvest_ingest.py [--repeat N]

``--repeat`` re-ingests the 2,000 sample records N times under fresh identifiers
(``9901.0NNNN``-style ids are not used; each repeat shifts the ids' year), so the
database grows as in a real harvest.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from _setup import ROOT, django_with_bench_db

SAMPLES = [
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml",
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="times to ingest the 2,000 records")
    args = parser.parse_args()
    connection = django_with_bench_db()
    from django.db import transaction

    from papers import services
    from papers.models import Paper
    from papers.oai import parse_oai_response

    # 1. Parsing alone.
    start = time.perf_counter()
    pages = [parse_oai_response(str(path)) for path in SAMPLES for _ in range(args.repeat)]
    parse_seconds = time.perf_counter() - start
    records = [r for page in pages for r in page.records]

    # Fresh identifiers per repeat so every record is a new paper (YYMM shifted by years).
    renamed = []
    for index, record in enumerate(records):
        shift = index // 2000
        yymm = int(record.arxiv_id[:2]) + 10 * shift
        new_id = f"{yymm % 100:02d}{record.arxiv_id[2:]}"
        renamed.append(dataclasses.replace(record, arxiv_id=new_id))
    Paper.objects.filter(arxiv_id__in=[r.arxiv_id for r in renamed]).delete()

    # 2. Full ingest, in the harvester's page-sized batches.
    categories = services.CategoryMap()
    start = time.perf_counter()
    for offset in range(0, len(renamed), services.BATCH_SIZE):
        with transaction.atomic():
            services.papers_upsert(
                records=renamed[offset : offset + services.BATCH_SIZE], categories=categories
            )
    ingest_seconds = time.perf_counter() - start
    slots = sum(len(r.authors or []) for r in renamed)

    # 3. The floor: COPY of the same paper and author rows, nothing else.
    paper_rows = [(r.arxiv_id, r.title, r.abstract, r.authors_text, r.categories, r.license) for r in renamed]
    author_rows = [
        (i, pos, a.name, a.keyname, a.forenames, a.affiliations)
        for i, r in enumerate(renamed)
        for pos, a in enumerate(r.authors or [], start=1)
    ]
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
        floor_seconds = time.perf_counter() - start

    n = len(renamed)
    print(f"records: {n} ({slots} author slots), from {len(SAMPLES)} recorded OAI-PMH pages x {args.repeat}")
    print(f"parse only : {n / parse_seconds:10.0f} records/s")
    print(f"full ingest: {n / ingest_seconds:10.0f} records/s  (includes no parsing)")
    print(f"COPY floor : {n / floor_seconds:10.0f} records/s")
    end_to_end = n / (parse_seconds + ingest_seconds)
    print(f"parse+ingest end to end: {end_to_end:.0f} records/s")
    print(f"ratio ingest/floor: {floor_seconds / ingest_seconds:.2f}  (target >= 0.5)")
    print(f"ratio end-to-end/floor: {floor_seconds / (parse_seconds + ingest_seconds):.2f}")


if __name__ == "__main__":
    main()
