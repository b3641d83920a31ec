"""Harvest ingest speed: records per second from recorded OAI-PMH XML into PostgreSQL.

Prints figures measured in the same run on the same records, and their ratios: parsing
alone (lxml + TeX decoding), per metadata format against issue 29's parse floor (the ``sickle``
OAI-PMH harvester's own record parsing, ``sickle.models.Record`` with its ``metadata`` dict, on
the same page bytes: target at least 1.0), the full ingest (merge, COPY-upsert papers, author slots and
versions), and two floors: a plain ``COPY`` of the same rows into unindexed TEMP tables
(unlogged: no WAL, which no real table gets) and into ordinary, logged unindexed tables
(with the commit's WAL flush). Then end to end through ``harvest_files`` on the same
records written out as page files, the normal way and with ``bulk=True`` (parsing in a
second process, indexes dropped and rebuilt; the rebuild is inside the time), and what
each rate means for 2.5 M records. Then a memory check: the Python heap's peak
(``tracemalloc``) while ``harvest_files`` loads 1, 2 and ``--pages`` pages, which should
not grow with the pages. Usage::

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
import os
import re
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from _setup import ROOT, django_with_bench_db, shifted

SAMPLES = [
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_436115-5001.xml",
    ROOT / "data" / "arxiv" / "oai" / "arxivsync_47001.xml",
]


ARXIV_RECORDS = 2_500_000  # issue 11: full arXiv
_PAGE_ID = re.compile(rb"(oai:arXiv\.org:|<id>)(\d\d)(\d\d\.\d{4,5})")


def write_pages(folder: Path, repeat: int) -> list[Path]:
    """The bench's records as page files: copy k of each sample with its ids moved as
    :func:`shifted` moves them (the same ids the in-memory copies get)."""
    paths = []
    for sample in SAMPLES:
        data = sample.read_bytes()
        for copy in range(repeat):
            moved = _PAGE_ID.sub(lambda m: m[1] + b"%02d" % ((int(m[2]) + copy) % 100) + m[3], data)  # noqa: B023
            path = folder / f"{sample.stem}-{copy}.xml"
            path.write_bytes(moved)
            paths.append(path)
    return paths


def cpu_seconds(backend_pid: int) -> tuple[float, float, float]:
    """CPU seconds used so far by this process, by its finished child processes (the bulk
    load's parser), and by the PostgreSQL backend serving this connection (read from
    /proc, so the server must run on this machine; parallel index-build workers and
    background processes are not counted)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(f"/proc/{backend_pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    backend = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return time.process_time(), children.ru_utime + children.ru_stime, backend


def delete_papers(ids: list[str]) -> None:
    """Delete the bench's papers, then VACUUM their tables: each run loads into tables as
    a first load finds them, not into the dead rows of the runs before (after a dozen runs
    without it, the bulk path ran 15-20 % slower on the same records)."""
    from django.db import connection

    from papers.models import Paper, PaperAuthor, PaperVersion

    Paper.objects.filter(arxiv_id__in=ids).delete()
    if not connection.in_atomic_block:
        with connection.cursor() as cursor:
            tables = ", ".join(m._meta.db_table for m in (Paper, PaperAuthor, PaperVersion))
            cursor.execute(f"VACUUM {tables}")


def memory_check(pages: int, bulk: bool = False) -> list[float]:
    """Peak traced Python memory (MiB) of ``harvest_files`` over 1, 2 and ``pages`` pages
    (at most 5), with ``bulk`` that of the writing process only (the parsing process holds
    at most the page it parses and one queued). The first page of a process also pays
    one-off imports and caches, and the second still holds the first's unreclaimed cycles,
    so flat means 2 pages = N pages.

    The arXivRaw page (0801.3673 ...) is copied with its month moved to 07 ... 11
    (``0807.3673`` ...): valid ids no other copy here uses, so every page is written."""
    from papers.harvest import harvest_files

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
        run = harvest_files(paths=paths[:count], bulk=bulk)
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
        assert run.records_written == 1000 * count, run.records_written
    delete_papers(ids)
    return peaks


@dataclasses.dataclass
class Figures:
    """Seconds (best of the runs) of each measurement, and what they were measured on."""

    n: int = 0
    slots: int = 0
    parse: float = 1e9
    ingest: float = 1e9
    floor: float = 1e9
    logged: float = 1e9
    tsvector: float = 1e9
    files: float = 1e9
    bulk: float = 1e9
    # {metadataPrefix: (records, our seconds, sickle's seconds)} for one page of each format.
    formats: dict = dataclasses.field(default_factory=dict)
    # writer, parser, PostgreSQL CPU seconds per path (normal: False, bulk: True).
    cpu: dict = dataclasses.field(default_factory=lambda: {False: (1e9,) * 3, True: (1e9,) * 3})
    table_rows: int = 0


def sickle_records(data: bytes) -> list:
    """The parse floor of issue 29: ``sickle`` (0.7) parsing an OAI-PMH page as its
    ``ListRecords`` iterator does (the whole document with its lxml parser, then a
    ``Record`` per ``record`` element, whose ``metadata`` dict is built on creation)."""
    from lxml import etree
    from sickle.models import Record
    from sickle.response import XMLParser

    xml = etree.XML(data, parser=XMLParser)
    return [Record(element) for element in xml.iterfind(".//{http://www.openarchives.org/OAI/2.0/}record")]


def parse_floor(runs: int, figures: Figures) -> None:
    """Each sample page parsed by :func:`papers.oai.parse_oai_response` and by
    :func:`sickle_records`, best of ``runs`` x 3 each, alternating."""
    from papers.oai import parse_oai_response

    for path in SAMPLES:
        data = path.read_bytes()
        prefix = "arXivRaw" if b"<arXivRaw " in data[:5000] else "arXiv"
        ours = theirs = 1e9
        for _ in range(runs * 3):
            start = time.perf_counter()
            records = len(parse_oai_response(data).records)
            ours = min(ours, time.perf_counter() - start)
            start = time.perf_counter()
            assert len(sickle_records(data)) == records
            theirs = min(theirs, time.perf_counter() - start)
        figures.formats[prefix] = (records, ours, theirs)


def parse_pages(repeat: int, runs: int, figures: Figures) -> list:
    """1. Parsing alone; returns the records, copy k of a page renamed to fresh identifiers."""
    from papers.oai import parse_oai_response

    for _ in range(runs):
        start = time.perf_counter()
        pages = [parse_oai_response(str(path)) for path in SAMPLES for _ in range(repeat)]
        figures.parse = min(figures.parse, time.perf_counter() - start)
    # Page k of a sample is copy k: fresh identifiers, every record a new paper.
    renamed = [
        dataclasses.replace(record, arxiv_id=shifted(record.arxiv_id, index % repeat))
        for index, page in enumerate(pages)
        for record in page.records
    ]
    ids = [r.arxiv_id for r in renamed]
    assert len(set(ids)) == len(ids)
    figures.n = len(renamed)
    figures.slots = sum(len(r.authors or []) for r in renamed)
    return renamed


def ingest(renamed: list, runs: int, figures: Figures, profiler=None) -> None:
    """2. Full ingest, in the harvester's page-sized batches."""
    from django.db import transaction

    from papers import upsert

    ids = [r.arxiv_id for r in renamed]
    categories = upsert.CategoryMap()
    for _ in range(runs):
        delete_papers(ids)
        if profiler is not None:
            profiler.enable()
        start = time.perf_counter()
        for offset in range(0, len(renamed), upsert.BATCH_SIZE):
            with transaction.atomic():
                result = upsert.papers_upsert(
                    records=renamed[offset : offset + upsert.BATCH_SIZE], categories=categories
                )
                assert result.written == len(renamed[offset : offset + upsert.BATCH_SIZE])
        figures.ingest = min(figures.ingest, time.perf_counter() - start)


def _copy_rows(cursor, tables: tuple[str, str], paper_rows: list, author_rows: list) -> None:
    with cursor.cursor.copy(f"COPY {tables[0]} FROM STDIN") as copy:
        for row in paper_rows:
            copy.write_row(row)
    with cursor.cursor.copy(f"COPY {tables[1]} FROM STDIN") as copy:
        for row in author_rows:
            copy.write_row(row)


def _logged_floor(connection, paper_rows: list, author_rows: list) -> float:
    """Ordinary tables (WAL-logged, as papers_paper is), created and committed first, then
    the COPY and its commit timed: what a real table's write costs at the least."""
    from django.db import transaction

    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS floor_paper_logged, floor_author_logged")
        cursor.execute(
            "CREATE TABLE floor_paper_logged (arxiv_id text, title text, abstract text, "
            "authors_text text, categories varchar(32)[], license text)"
        )
        cursor.execute(
            "CREATE TABLE floor_author_logged (paper integer, position integer, name text, "
            "keyname text, forenames text, affiliations text[])"
        )
    try:
        start = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            _copy_rows(cursor, ("floor_paper_logged", "floor_author_logged"), paper_rows, author_rows)
        return time.perf_counter() - start
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS floor_paper_logged, floor_author_logged")


def _temp_floor(connection, paper_rows: list, author_rows: list) -> tuple[float, float]:
    """The COPY into TEMP tables, and what PostgreSQL spends on the stored search vector alone
    (papers.Paper's generated column: English stemming of title, authors and abstract)."""
    from django.db import transaction

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
        _copy_rows(cursor, ("floor_paper", "floor_author"), paper_rows, author_rows)
        floor = time.perf_counter() - start
        start = time.perf_counter()
        cursor.execute(
            "SELECT sum(length(setweight(to_tsvector('english', title), 'A') || "
            "setweight(to_tsvector('english', authors_text), 'B') || "
            "setweight(to_tsvector('english', abstract), 'C'))) FROM floor_paper"
        )
        cursor.fetchone()
        return floor, time.perf_counter() - start


def copy_floors(connection, renamed: list, runs: int, figures: Figures) -> None:
    """3. The floor: COPY of the same paper and author rows, nothing else."""
    paper_rows = [(r.arxiv_id, r.title, r.abstract, r.authors_text, r.categories, r.license) for r in renamed]
    author_rows = [
        (i, pos, a.name, a.keyname, a.forenames, a.affiliations)
        for i, r in enumerate(renamed)
        for pos, a in enumerate(r.authors or [], start=1)
    ]
    for _ in range(runs):
        figures.logged = min(figures.logged, _logged_floor(connection, paper_rows, author_rows))
        floor, tsvector = _temp_floor(connection, paper_rows, author_rows)
        figures.floor = min(figures.floor, floor)
        figures.tsvector = min(figures.tsvector, tsvector)


def end_to_end(connection, ids: list[str], repeat: int, runs: int, figures: Figures) -> None:
    """4. End to end through harvest_files: the same records as page files, normal and bulk."""
    from papers.harvest import harvest_files
    from papers.models import Paper

    folder = Path(tempfile.mkdtemp(prefix="wove-bench-e2e-"))
    paths = write_pages(folder, repeat)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend_pid = cursor.fetchone()[0]
    for _ in range(runs):
        for bulk in (False, True):
            delete_papers(ids)
            before = cpu_seconds(backend_pid)
            start = time.perf_counter()
            run = harvest_files(paths=paths, bulk=bulk)
            took = time.perf_counter() - start
            used = [b - a for a, b in zip(before, cpu_seconds(backend_pid), strict=True)]
            figures.cpu[bulk] = tuple(min(a, b) for a, b in zip(figures.cpu[bulk], used, strict=True))
            assert run.records_written == len(ids), (run.records_written, run.error)
            if bulk:
                figures.bulk = min(figures.bulk, took)
            else:
                figures.files = min(figures.files, took)
    assert set(Paper.objects.filter(arxiv_id__in=ids).values_list("arxiv_id", flat=True)) == set(ids)
    figures.table_rows = Paper.objects.count()


def report_rates(f: Figures, repeat: int, runs: int) -> None:
    """The rates, and what each means for 2.5 M records."""
    n = f.n

    def minutes(seconds: float) -> str:
        return f"{ARXIV_RECORDS * seconds / n / 60:.0f} min for 2.5 M"

    print(f"records: {n} new papers ({f.slots} author slots), 2 recorded OAI-PMH pages x {repeat} copies")
    print(f"best of {runs} runs each; papers_paper holds {f.table_rows} rows after the runs")
    print(f"parse only : {n / f.parse:10.0f} records/s")
    for prefix, (records, ours, theirs) in f.formats.items():
        print(
            f"  {prefix:8} page: {records / ours:6.0f} records/s; sickle's Record.metadata "
            f"{records / theirs:6.0f}/s; ratio {theirs / ours:.2f} (issue 29: at least 1.0)"
        )
    print(f"full ingest: {n / f.ingest:10.0f} records/s  (papers_upsert; includes no parsing)")
    print(f"COPY floor, TEMP tables (unlogged)  : {n / f.floor:10.0f} records/s")
    print(f"COPY floor, ordinary (logged) tables: {n / f.logged:10.0f} records/s  (incl. commit)")
    print(f"search vector alone (to_tsvector in PostgreSQL): {n / f.tsvector:.0f} records/s")
    rate = n / (f.parse + f.ingest)
    print(f"parse+ingest end to end (sum of the two): {rate:.0f} records/s, {minutes(n / rate)}")
    print(f"harvest_files end to end            : {n / f.files:.0f} records/s, {minutes(f.files)}")
    print(
        f"harvest_files(bulk=True) end to end: {n / f.bulk:.0f} records/s, {minutes(f.bulk)} "
        f"(index rebuild included; x{f.files / f.bulk:.2f} the normal path)"
    )
    # On a shared, loaded machine wall time says little about two cores: the CPU time of
    # each lane does. The writer waits for PostgreSQL, so writer + backend are one lane; the
    # bulk load's parser is the other. Best case on 2 idle cores: the longer lane.
    for bulk in (False, True):
        writer, parser, backend = f.cpu[bulk]
        lane = max(writer + backend, parser, (writer + backend + parser) / 2)
        print(
            f"CPU s per {n} records, {'bulk' if bulk else 'normal'}: writer {writer:.1f} (parsing "
            f"{'not ' if bulk else ''}included), parser process {parser:.1f}, PostgreSQL backend "
            f"{backend:.1f}; on 2 idle cores at best {n / lane:.0f} records/s, {minutes(lane)}"
        )


def report_ratios(f: Figures) -> None:
    """The ratios against the floors measured in the same run."""
    print(f"ratio ingest/floor (TEMP): {f.floor / f.ingest:.2f}  (target >= 0.5)")
    print(f"ratio ingest/floor (logged): {f.logged / f.ingest:.2f}")
    print(f"ratio end-to-end/floor (TEMP): {f.floor / (f.parse + f.ingest):.2f}")
    print(f"ratio harvest_files bulk/floor: TEMP {f.floor / f.bulk:.2f}, logged {f.logged / f.bulk:.2f}")
    print(f"ratio ingest/(COPY floor TEMP + search vector): {(f.floor + f.tsvector) / f.ingest:.2f}")
    logged_vector = f.logged + f.tsvector
    print(f"ratio bulk end to end/(COPY floor logged + search vector): {logged_vector / f.bulk:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="copies of each 1,000-record page")
    parser.add_argument("--runs", type=int, default=3, help="runs of each measurement (best kept)")
    parser.add_argument("--pages", type=int, default=5, help="pages for the memory check, 2-5 (0: skip it)")
    parser.add_argument("--db", default="wove_bench", help="bench database name")
    parser.add_argument("--profile", action="store_true", help="cProfile parsing and one ingest instead")
    args = parser.parse_args()
    connection = django_with_bench_db(args.db)
    with connection.cursor() as cursor:  # rows other benches left that protect papers
        cursor.execute("TRUNCATE provenance_event, provenance_record, researchers_authorship CASCADE")

    figures = Figures()
    renamed = parse_pages(args.repeat, args.runs, figures)
    parse_floor(args.runs, figures)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        ingest(renamed, args.runs, figures, profiler)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
        return
    ingest(renamed, args.runs, figures)
    copy_floors(connection, renamed, args.runs, figures)
    end_to_end(connection, [r.arxiv_id for r in renamed], args.repeat, args.runs, figures)
    report_rates(figures, args.repeat, args.runs)
    report_ratios(figures)
    if args.pages:
        for bulk in (False, True):
            one, two, many = memory_check(args.pages, bulk=bulk)
            print(
                f"memory (tracemalloc peak, harvest_files{'(bulk=True), this process' if bulk else ''}): "
                f"1 page {one:.1f} MiB, 2 pages {two:.1f} MiB, {args.pages} pages {many:.1f} MiB "
                f"(ratio {args.pages}/2 pages {many / two:.2f}; flat is 1.0)"
            )


if __name__ == "__main__":
    main()
