"""Mega-paper speed: aligning and matching one paper's author list against a registry's.

Takes the edited 3,000-author paper of the tests (arXiv 2201.11990 as arXiv and Semantic
Scholar list it, ``tests/fixtures/semanticscholar/make_edited_3000.py``) cut into pieces of
100, 1,000 and 3,000 consecutive authors on both sides (30, 3 and 1 papers: every size sees
the same names, so the growth is the code's, not the names'; the first hundred, 20 real
authors and plain ASCII names, cost half the average), and times per paper, in the same run:

- align: :func:`researchers.matching_sources.align_authors` alone (the name cache emptied first, so
  every name is parsed, as for a paper whose authors the run has not met);
- align + match: :func:`researchers.matching_sources.researchers_attach_from_source`, what the
  Semantic Scholar path runs per paper (alignment, holder lookups, new researchers,
  identities and authorships written, counts refreshed), rolled back after each run.

The growth is each size's time over the 100-author time of the same run; the target
(issue 19) is 3,000 authors at most 35 x 100 (linear would be 30 x; the quadratic
alignment it replaces grew about 900 x).

Usage::

    .venv/bin/python bench/mega_paper_speed.py [--repeat 5] [--db wove_bench]

The bench database (``--db``, created and migrated on first use) gets the 34 papers
(``9901.*``), replaced on each run; nothing else in it is touched. Each figure is the mean
over a size's papers, best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time

from _setup import ROOT, django_with_bench_db

FIXTURES = ROOT / "tests" / "fixtures"
ARXIV_RECORD = FIXTURES / "arxiv" / "oai" / "edited_arXiv_2201.11990_3000_authors.xml"
S2_PAPER = FIXTURES / "semanticscholar" / "edited_paper_2201.11990_3000_authors.json"
SIZES = (100, 1000, 3000)
TARGET = 35.0


def load_papers() -> dict[int, list[tuple]]:
    """Upsert the papers of each size (consecutive pieces of ``n`` arXiv authors) and return
    ``{n: [(arxiv slots, SourceWork with the same piece of the source's authors), ...]}``."""
    from django.db import transaction

    from papers import upsert
    from papers.models import Paper
    from papers.oai import parse_oai_response
    from researchers.clients.semanticscholar import parse_paper

    record = parse_oai_response(str(ARXIV_RECORD)).records[0]
    work = parse_paper(json.loads(S2_PAPER.read_text()))
    out: dict[int, list[tuple]] = {}
    Paper.objects.filter(arxiv_id__startswith="9901.").delete()
    for n in SIZES:
        out[n] = []
        for piece in range(len(record.authors) // n):
            arxiv_id = f"9901.{n // 100:02d}{piece:03d}"
            authors = record.authors[piece * n : (piece + 1) * n]
            with transaction.atomic():
                upsert.papers_upsert(
                    records=[dataclasses.replace(record, arxiv_id=arxiv_id, authors=authors)],
                    categories=upsert.CategoryMap(),
                )
            slots = [(i, a.name, a.keyname, a.forenames) for i, a in enumerate(authors, start=1)]
            source = work.authors[piece * n : (piece + 1) * n]
            out[n].append((slots, dataclasses.replace(work, arxiv_id=arxiv_id, authors=source)))
    return out


def time_align(slots, work) -> tuple[float, int]:
    """Seconds for one cold alignment, and the pairs found."""
    from researchers.matching_sources import align_authors
    from researchers.names import parse_name

    parse_name.cache_clear()
    start = time.perf_counter()
    pairs = align_authors(slots, work.authors)
    return time.perf_counter() - start, len(pairs)


def time_attach(work) -> tuple[float, int]:
    """Seconds for one cold attach (align + match, all written), rolled back; slots attached."""
    from django.db import transaction

    from researchers.matching_sources import researchers_attach_from_source
    from researchers.names import parse_name

    parse_name.cache_clear()
    with transaction.atomic():
        start = time.perf_counter()
        attached = researchers_attach_from_source(work=work)
        seconds = time.perf_counter() - start
        transaction.set_rollback(True)
    return seconds, attached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (best kept)")
    parser.add_argument("--db", default="wove_bench", help="bench database name")
    args = parser.parse_args()
    django_with_bench_db(args.db)
    load_before = os.getloadavg()[0]
    papers = load_papers()
    time_attach(papers[SIZES[0]][0][1])  # warm-up: imports, connection, unidecode's tables

    best: dict[tuple[str, int], float] = {}
    counts: dict[int, tuple[int, int]] = {}
    for _ in range(args.repeat):
        for n, pieces in papers.items():
            aligns = [time_align(slots, work) for slots, work in pieces]
            attaches = [time_attach(work) for _slots, work in pieces]
            best[("align", n)] = min(best.get(("align", n), 1e9), sum(a[0] for a in aligns) / len(pieces))
            best[("attach", n)] = min(best.get(("attach", n), 1e9), sum(a[0] for a in attaches) / len(pieces))
            counts[n] = (sum(a[1] for a in aligns), sum(a[1] for a in attaches))

    print(
        f"load average: {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; best of {args.repeat} runs"
    )
    print(
        f"{'authors':>8} {'papers':>6} {'aligned':>8} {'align s':>9} {'growth':>7} "
        f"{'align+match s':>14} {'growth':>7}"
    )
    for n in SIZES:
        align, attach = best[("align", n)], best[("attach", n)]
        print(
            f"{n:>8,} {len(papers[n]):>6} {counts[n][0]:>8,} {align:>9.4f} "
            f"{align / best[('align', SIZES[0])]:>6.1f}x "
            f"{attach:>14.4f} {attach / best[('attach', SIZES[0])]:>6.1f}x"
        )
    print("(aligned: slots paired over all papers of the size; times: per paper)")
    growth = best[("attach", SIZES[-1])] / best[("attach", SIZES[0])]
    verdict = "met" if growth <= TARGET else "MISSED"
    print(f"target: align+match of {SIZES[-1]:,} <= {TARGET:.0f} x {SIZES[0]}: {growth:.1f} x, {verdict}")


if __name__ == "__main__":
    main()
