"""Signing speed: provenance records and signatures per second, against a bare ed25519 loop.

Loads ``--copies`` copies of the real sample under shifted arXiv ids (as
``bench/matching_speed.py`` does), then times, in the same process:

- ``records_sign()``, what ``manage.py sign_provenance`` runs: for every paper version a
  canonical record (RFC 8785 JSON, SHA-256), its receipt and two events, each signed with
  ed25519, written with COPY; three signatures per record;
- the same run's CPU time in this process (``time.process_time``): everything but
  PostgreSQL's own work (the server is another process), so the figure without database
  writes can be stated too;
- the bare loop: ``Ed25519PrivateKey.sign`` (the ``cryptography`` package, same key) over
  the very 32-byte digests the run signed, nothing else.

Usage::

    .venv/bin/python bench/signing_speed.py [--copies 4] [--repeat 3] [--db wove_bench]

The bench database's papers and provenance rows are replaced (TRUNCATE: the append-only
triggers guard rows, not the bench). Figures are the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _setup import django_with_bench_db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=4, help="copies of the ~2,800-paper sample")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (best kept)")
    parser.add_argument("--db", default="wove_bench", help="bench database name")
    parser.add_argument("--profile", action="store_true", help="cProfile one signing run instead")
    args = parser.parse_args()
    keydir = tempfile.mkdtemp(prefix="wove-bench-keys-")
    os.environ["PROVENANCE_SIGNING_KEY_FILE"] = str(Path(keydir) / "bench-ed25519.pem")
    django_with_bench_db(args.db)
    from django.db import connection
    from matching_speed import load_corpus

    from provenance import services
    from provenance.models import Event, Record

    papers = load_corpus(args.copies)
    print(f"corpus: {papers} papers ({args.copies} copies of the sample)")

    def unsign() -> None:
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE provenance_event, provenance_record, provenance_papersigning CASCADE")

    if args.profile:
        import cProfile
        import pstats

        unsign()
        profiler = cProfile.Profile()
        profiler.enable()
        services.records_sign()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        return

    # Wall time includes PostgreSQL's work; this process's CPU time (time.process_time)
    # excludes it (the server is another process) and most of the machine's other load.
    best_total = best_cpu = 1e9
    result = None
    for _ in range(args.repeat):
        unsign()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = services.records_sign()
        best_total = min(best_total, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    records = Record.objects.count()
    events = Event.objects.count()
    signatures = records + events  # a receipt per record, one signature per event
    assert records == result.records_created and events == result.events_created

    signer, _row = services.signer_current()
    digests = [bytes.fromhex(h) for h in Record.objects.values_list("canonical_sha256", flat=True)]
    digests += [bytes.fromhex(h) for h in Event.objects.values_list("content_sha256", flat=True)]
    key = signer.private_key
    best_bare = best_bare_cpu = 1e9
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for digest in digests:
            key.sign(digest)
        best_bare = min(best_bare, time.perf_counter() - start)
        best_bare_cpu = min(best_bare_cpu, time.process_time() - start_cpu)

    print(f"signed: {records} records, {events} events, {signatures} signatures; best of {args.repeat} runs")
    print(f"  last run: {result.summary()}")
    print(
        f"sign_provenance, wall       : {records / best_total:8.0f} records/s  "
        f"{signatures / best_total:8.0f} signatures/s  (PostgreSQL's work included)"
    )
    print(
        f"sign_provenance, process CPU: {records / best_cpu:8.0f} records/s  "
        f"{signatures / best_cpu:8.0f} signatures/s  (this process only: build, hash, sign, send)"
    )
    print(f"bare ed25519 loop, wall     : {'':8s}            {signatures / best_bare:8.0f} signatures/s")
    print(f"bare ed25519 loop, CPU      : {'':8s}            {signatures / best_bare_cpu:8.0f} signatures/s")
    print(f"ratio per signature, wall, with the database: {best_bare / best_total:.2f}  (target >= 0.5)")
    print(f"ratio per signature, process CPU            : {best_bare_cpu / best_cpu:.2f}  (target >= 0.5)")


if __name__ == "__main__":
    main()
