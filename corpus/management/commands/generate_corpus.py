"""``manage.py generate_corpus``: write a synthetic arXiv-shaped corpus for scale work."""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from tqdm import tqdm

from corpus import snapshot, synthetic
from institutions import summaries as institution_summaries
from pages.facts import archive_facts_refresh
from researchers import summaries as researcher_summaries

# A new corpus's researcher summaries, computed this many batches at once: each batch waits
# mostly on PostgreSQL's reads, so a second connection keeps the second core busy.
SUMMARY_WORKERS = min(4, os.cpu_count() or 1)


class Command(BaseCommand):
    help = (
        "Generate N synthetic papers shaped like the bundled sample (names, co-authors, "
        "categories, dates, versions, ROR affiliations), with researchers and authorships. "
        "Deterministic with --seed; for an archive without that corpus (use its own database)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--papers", type=int, required=True, help="number of papers")
        parser.add_argument("--seed", type=int, default=1, help="random seed (default %(default)s)")
        parser.add_argument(
            "--batch-size", type=int, default=synthetic.BATCH_SIZE, help="papers per transaction"
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--kaggle",
            metavar="PATH",
            help="write the corpus as a Kaggle metadata snapshot (JSON Lines) at PATH instead of "
            "into the database, for `harvest_arxiv --kaggle PATH` (the same papers as the same "
            "--papers and --seed would store; no affiliations: the format has none)",
        )

    def handle(self, *args, **options) -> None:
        if options["papers"] < 0 or options["batch_size"] < 1:
            raise CommandError("--papers must be >= 0 and --batch-size >= 1")
        bar = tqdm(
            total=options["papers"], unit="paper", disable=options["no_progress"] or None, desc="generate"
        )
        if options["kaggle"]:
            started = time.perf_counter()
            try:
                written = snapshot.corpus_write_kaggle(
                    Path(options["kaggle"]),
                    papers=options["papers"],
                    seed=options["seed"],
                    progress=bar.update,
                )
            finally:
                bar.close()
            elapsed = time.perf_counter() - started
            self.stdout.write(
                f"wovepaper: {written:,} papers written to {options['kaggle']} as a Kaggle snapshot "
                f"in {elapsed:.1f} s ({written / max(elapsed, 1e-9):,.0f} papers/s)"
            )
            return
        _require_migrated()
        try:
            summary = synthetic.corpus_generate(
                papers=options["papers"],
                seed=options["seed"],
                batch_size=options["batch_size"],
                progress=bar.update,
            )
        except (synthetic.CorpusExists, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        finally:
            bar.close()
        self.stdout.write("wovepaper: " + summary.line())
        # What matching does after a run: busy researchers' and large institutions' pages
        # read kept aggregates.
        started = time.perf_counter()
        researchers = researcher_summaries.summaries_refresh(workers=SUMMARY_WORKERS)
        institutions = institution_summaries.summaries_refresh()
        archive_facts_refresh()
        elapsed = time.perf_counter() - started
        self.stdout.write(
            f"page summaries: {researchers} researchers, {institutions} institutions, "
            f"archive facts in {elapsed:.1f} s"
        )


def _require_migrated() -> None:
    """Raise ``CommandError`` naming the fix when the database lacks migrations (an empty
    database gave a traceback about a missing ``papers_category`` table)."""
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        raise CommandError(
            f"the database {connection.settings_dict['NAME']} lacks {len(plan)} migration(s): "
            "run `manage.py migrate` on it first"
        )
