"""Pipeline throughput from an empty database: every stage's rate, from the real entry point.

    .venv/bin/python bench/pipeline_throughput.py [--papers 10000 --papers 100000] [--overlap]
        [--db wove_pipeline]

For each ``--papers`` N (issue 29): a synthetic corpus of N papers is written as arXiv's Kaggle
metadata snapshot (``generate_corpus --kaggle``, not timed), the bench database is emptied
and migrated, then, timed one after another in this process as the inline pipeline runs them:
the harvest (``harvest_arxiv --kaggle``) and every pipeline stage (affiliations, authors,
search index when ``SEARCH_INDEX_DIR`` is set, signing, embeddings, summaries, archive facts,
digests); with ``--overlap``, as the workers run them: the embeddings and the archive facts
after them in a forked process beside the rest (``wove.pipeline.pipeline_signature``). Per
stage it prints the work done (the stage's own counts), wall seconds, the rate,
the peak memory of this process and its children during the stage (PostgreSQL's own is not
counted),
the machine's busy cores during it (this process, PostgreSQL and anything else; 2.0 is both
cores), and, where one is measured in the same run, the ratio to the stage's floor:

- signing: a bare ed25519 loop (``cryptography``) over as many 32-byte digests as the stage
  made signatures;
- embeddings: today's model before issue 29 (all-MiniLM-L6-v2 in PyTorch, ``minilm``) on 256
  of the corpus's papers, reported as how many times faster the configured model is.

The ingest floor (COPY and the search vector) and the matching floor (one researcher per
name) have their own benches (``bench/harvest_ingest.py``, ``bench/matching_speed.py``).
Last, the time all of arXiv (2.5 M papers, 3.7 M versions, 7.5 M author slots) would take at
the largest N's rates (with ``--overlap`` also the harvest plus the longer branch), and each
stage's rate at the largest N over its rate at the smallest
(issue 29 asks for at least 0.8: nothing grows faster than the work).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import tempfile
import threading
import time
from pathlib import Path

from _setup import django_with_bench_db

ARXIV = {"papers": 2_500_000, "versions": 3_700_000, "slots": 7_500_000}


class PeakRss:
    """Peak memory (MB) of this process and the children it starts (signing's forked
    processes) while the ``with`` block runs: the resident set from /proc/self/status every
    50 ms alone, or with children the sum of each one's proportional set (``Pss`` in
    /proc/<pid>/smaps_rollup: forked pages shared with this process counted once) every
    second (the kernel walks every page table for it: every 50 ms took a tenth of the
    machine). Children already running (``--overlap``'s other branch) are not counted."""

    def __enter__(self):
        self._before = set(self._children())
        self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())

    def _watch(self):
        for tick in itertools.count(1):
            if self._stop.wait(0.05):
                return
            self.peak = max(self.peak, self._rss(children=tick % 20 == 0))

    def _rss(self, *, children: bool = True) -> float:
        children = children and [pid for pid in self._children() if pid not in self._before]
        if not children:
            return self._field("/proc/self/status", "VmRSS:")
        return sum(self._field(f"/proc/{pid}/smaps_rollup", "Pss:") for pid in ["self", *children])

    @staticmethod
    def _children() -> list[str]:
        pids = []
        for task in Path("/proc/self/task").iterdir():
            with contextlib.suppress(OSError):  # the thread ended meanwhile
                pids += (task / "children").read_text().split()
        return pids

    @staticmethod
    def _field(path: str, name: str) -> float:
        try:
            with open(path) as status:
                for line in status:
                    if line.startswith(name):
                        return int(line.split()[1]) / 1024
        except OSError:  # a child that ended meanwhile
            pass
        return 0.0


class MachineCpu:
    """Busy cores of the whole machine (this process, PostgreSQL, anything else) while the
    ``with`` block runs, from /proc/stat's first line: 2.0 is both cores busy."""

    def __enter__(self):
        self._busy, self._total = self._read()
        return self

    def __exit__(self, *exc):
        busy, total = self._read()
        self.cores = (busy - self._busy) / max(1, total - self._total) * (os.cpu_count() or 1)

    @staticmethod
    def _read() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle and iowait
        return sum(fields) - idle, sum(fields)


def empty_database(connection) -> None:
    """Drop and recreate the bench database, migrated, as a new operator starts."""
    connection.close()
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=False)


def signing_floor(signatures: int) -> float:
    """Signatures per second of a bare ed25519 loop over ``signatures`` 32-byte digests."""
    import hashlib

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    digests = [hashlib.sha256(str(i).encode()).digest() for i in range(max(1, signatures))]
    started = time.perf_counter()
    for digest in digests:
        key.sign(digest)
    return len(digests) / (time.perf_counter() - started)


def model_rate(backend: str | None, texts: list[str]) -> float | None:
    """Papers per second of ``backend``'s model alone (no database) on ``texts``, in batches
    of 64 as the stage passes them; None when it cannot load.

    Measured in a forked child, so that this process never holds a compiled model: OpenVINO's
    CPU threads do not survive a fork, so the next size's embeddings' branch, forked from here,
    ran the model on one core (193-199 papers/s against 364-368, a ``/tmp`` probe), and
    compiling it again in the child waits for ever."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_model_rate_child, args=(backend, texts, results))
    child.start()
    rate = results.get()
    child.join()
    return rate


def _model_rate_child(backend: str | None, texts: list[str], results) -> None:
    """:func:`model_rate`'s measurement, in the child; the rate (or None) put on ``results``."""
    from semantic.embedders import get_embedder

    model = get_embedder(backend)
    if model is None:
        results.put(None)
        return
    model.embed_passages(texts[:32])
    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        model.embed_passages(texts[start : start + 64])
    results.put(len(texts) / (time.perf_counter() - started))


def time_stage(stage) -> dict:
    """Run one pipeline stage here, timed: ``{"work", "unit", "seconds", "peak_mb", "cores",
    "result"}`` (work in the stage's own unit; signatures for signing)."""
    with PeakRss() as rss, MachineCpu() as cpu:
        started = time.perf_counter()
        result = stage.run(trigger="bench")
        seconds = time.perf_counter() - started
    key = stage.done or {"affiliations": "slots"}.get(stage.name, "")
    work = result.get(key) if key else None
    unit = stage.backlog().unit if key else ""
    if stage.name == "signing":
        work, unit = (
            result.get("records_created", 0) * 3 + result.get("authorships_recorded", 0),
            "signatures",
        )
    return {
        "work": work if isinstance(work, int | float) else None,
        "unit": unit,
        "seconds": seconds,
        "peak_mb": rss.peak,
        "cores": cpu.cores,
        "result": result,
    }


def _run_branch(stages, results) -> None:
    """In a forked child: each ``(label, stage)`` of ``stages`` timed; the figures, by label,
    put on ``results`` (a queue)."""
    from django.db import connections

    try:
        results.put({label: time_stage(stage) for label, stage in stages})
    finally:
        connections.close_all()


def run_side_by_side(pipeline) -> dict[str, dict]:
    """The stages as the workers run them (``--overlap``): the main chain here and, at the same
    time, the branch beside it (embeddings, then the archive facts again, labelled "(beside)")
    in a forked process, as a worker's second process would. Each stage's figures as
    :func:`time_stage` (busy cores are the whole machine's: both branches), plus
    ``_overlap``: the wall seconds of each branch and of the two together."""
    import multiprocessing

    from django.db import connections

    beside = [
        (f"{stage.name} (beside)" if stage.name in pipeline.AFTER_BESIDE else stage.name, stage)
        for stage in pipeline.beside_branch()
    ]
    connections.close_all()  # the child must not share this process's connection
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    started = time.perf_counter()
    child = context.Process(target=_run_branch, args=(beside, results))
    child.start()
    figures = {stage.name: time_stage(stage) for stage in pipeline.STAGES if not stage.beside}
    main_seconds = time.perf_counter() - started
    branch = results.get()  # blocks until the branch is done
    child.join()
    figures.update(branch)
    figures["_overlap"] = {
        "main": main_seconds,
        "beside": sum(f["seconds"] for f in branch.values()),
        "wall": time.perf_counter() - started,
    }
    return figures


def run_once(connection, papers: int, seed: int, *, overlap: bool = False) -> dict[str, dict]:
    """Empty database, snapshot harvest, every stage (one after another, or ``overlap``: as
    :func:`run_side_by_side`): ``{stage: {"work", "unit", "seconds", "rate", "peak_mb",
    "floor"}}``."""
    from django.db import connection as db

    from corpus.snapshot import corpus_write_kaggle
    from papers.harvest import harvest_kaggle
    from papers.models import Paper, PaperAuthor, PaperVersion
    from semantic import services
    from wove import pipeline

    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="wove-pipeline-") as tmp:
        snapshot = Path(tmp) / "snapshot.json"
        written = corpus_write_kaggle(snapshot, papers=papers, seed=seed)
        empty_database(connection)  # no ROR registry: the snapshot format has no affiliations
        with PeakRss() as rss, MachineCpu() as cpu:
            started = time.perf_counter()
            run = harvest_kaggle(path=snapshot)
            seconds = time.perf_counter() - started
        figures["harvest"] = {
            "work": run.records_written,
            "unit": "papers",
            "seconds": seconds,
            "peak_mb": rss.peak,
            "cores": cpu.cores,
        }
        assert run.records_written == written, (run.records_written, written)
    counts = {
        "papers": Paper.objects.count(),
        "versions": PaperVersion.objects.count(),
        "slots": PaperAuthor.objects.count(),
    }
    if overlap:
        figures.update(run_side_by_side(pipeline))
    else:
        for stage in pipeline.STAGES:
            figures[stage.name] = time_stage(stage)
    signing = figures["signing"]
    if signing["work"]:
        signing["floor"] = signing_floor(int(signing["work"]))
    texts = [
        services.paper_text(title=t, abstract=a)
        for t, a in Paper.objects.order_by("pk").values_list("title", "abstract")[:288]
    ]
    if figures["embeddings"]["work"]:
        # Model against model on the same texts; the stage's own rate adds reading the papers
        # and writing the vectors.
        figures["embeddings"]["baseline"] = model_rate("minilm", texts[32:])
        figures["embeddings"]["model"] = model_rate(None, texts[32:])
        figures["embeddings"]["texts"] = len(texts[32:])
    figures["_counts"] = counts
    db.close()
    return figures


def report(papers: int, figures: dict[str, dict]) -> None:
    counts = figures["_counts"]
    print(
        f"\n{papers:,} papers ({counts['versions']:,} versions, {counts['slots']:,} author slots); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'stage':<22} {'work':>12} {'unit':<12} {'s':>8} {'rate/s':>10} {'peak MB':>8} {'cores':>6}  floor"
    )
    for name, f in figures.items():
        if name.startswith("_"):
            continue
        rate = f["work"] / f["seconds"] if f["work"] and f["seconds"] else None
        f["rate"] = rate
        floor = ""
        if f.get("floor") and rate:
            floor = f"{rate / f['floor']:.2f} x bare ed25519 ({f['floor']:,.0f}/s)"
        if f.get("baseline") and f.get("model"):
            floor = (
                f"model alone {f['model']:.0f} papers/s = {f['model'] / f['baseline']:.2f} x the "
                f"PyTorch model ({f['baseline']:.1f} papers/s) on the same {f['texts']} papers"
            )
        work = f"{f['work']:,}" if f["work"] is not None else "-"
        print(
            f"{name:<22} {work:>12} {f['unit']:<12} {f['seconds']:>8.1f} "
            f"{(f'{rate:,.0f}' if rate else '-'):>10} {f['peak_mb']:>8.0f} {f.get('cores', 0):>6.2f}  {floor}"
        )
    if overlap := figures.get("_overlap"):
        print(
            f"side by side: the chain {overlap['main']:.1f} s, the embeddings' branch "
            f"{overlap['beside']:.1f} s, both {overlap['wall']:.1f} s (after the harvest)"
        )


def extrapolate(figures: dict[str, dict]) -> None:
    """Print the time all of arXiv would take at these rates (stages with a rate); with the
    branches side by side, the harvest plus the longer branch."""
    counts = figures["_counts"]
    share = ARXIV["papers"] / max(1, counts["papers"])  # the stages' work scales with the papers
    total = 0.0
    print("\nall of arXiv at these rates (2.5 M papers, 3.7 M versions, 7.5 M slots):")
    for name, f in figures.items():
        if name.startswith("_") or not f.get("work") or not f["seconds"]:
            continue
        seconds = f["seconds"] * share
        total += seconds
        print(f"  {name:<22} {seconds / 3600:>6.2f} h")
    overlap = figures.get("_overlap")
    if not overlap:
        print(f"  {'total, one after another':<22} {total / 3600:>6.2f} h")
    else:  # each stage above slowed by the other branch: their sum is not a time
        side = figures["harvest"]["seconds"] + overlap["wall"]
        print(
            f"  {'total, side by side':<22} {side * share / 3600:>6.2f} h "
            f"(harvest, then the chain {overlap['main'] * share / 3600:.2f} h beside the "
            f"embeddings' branch {overlap['beside'] * share / 3600:.2f} h)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, action="append", help="corpus sizes (10000 and 100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default="wove_pipeline", help="bench database (emptied each run)")
    parser.add_argument(
        "--overlap",
        action="store_true",
        help="run the embeddings' branch beside the chain, as the workers do (else one after another)",
    )
    args = parser.parse_args()
    sizes = sorted(args.papers or [10_000, 100_000])
    print(f"cores: {os.cpu_count()}, load average before {os.getloadavg()[0]:.2f}")
    connection = django_with_bench_db(args.db)
    from django.conf import settings

    settings.PIPELINE_INLINE_DEFER = []  # every stage here, embeddings included
    index_on = bool(settings.SEARCH_INDEX_DIR)
    runs = {}
    for papers in sizes:
        if index_on:  # a copy of its own, never the development one, nor the last size's
            settings.SEARCH_INDEX_DIR = tempfile.mkdtemp(prefix="wove-pipeline-index-")
        runs[papers] = run_once(connection, papers, args.seed, overlap=args.overlap)
        report(papers, runs[papers])
    extrapolate(runs[sizes[-1]])
    if len(sizes) > 1:
        small, large = runs[sizes[0]], runs[sizes[-1]]
        print(f"\nrate at {sizes[-1]:,} / rate at {sizes[0]:,} (issue 29: at least 0.8):")
        for name, f in large.items():
            if not name.startswith("_") and f.get("rate") and small[name].get("rate"):
                print(f"  {name:<22} {f['rate'] / small[name]['rate']:.2f}")


if __name__ == "__main__":
    main()
