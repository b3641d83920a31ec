"""``manage.py embed_papers``: embed papers without a current vector (idempotent)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from semantic import services
from semantic.tasks import embed_papers as embed_papers_task


class Command(BaseCommand):
    """Embed every paper whose title+abstract has no current vector; re-running is cheap."""

    help = "Embed new or changed papers' title and abstract for semantic search (pgvector)."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=64, help="papers per model call (64)")
        parser.add_argument("--limit", type=int, default=None, help="embed at most this many papers")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--background",
            action="store_true",
            help="queue the Celery task semantic.embed_papers instead of working here",
        )

    def handle(self, *args, batch_size: int, limit: int | None, no_progress: bool, background: bool, **kw):
        if background:
            embed_papers_task.delay(batch_size=batch_size)
            self.stdout.write("embed_papers: queued semantic.embed_papers for the worker")
            return
        # As the other commands: always a bar object (a disabled one is a no-op, and off when
        # stderr is not a terminal). Never test it for truth: tqdm without a total raises then.
        bar = tqdm(unit="paper", desc="embed", disable=no_progress or None, leave=False)
        try:
            result = services.embeddings_update(
                batch_size=batch_size, limit=limit, progress=bar.update, total=lambda n: _set_total(bar, n)
            )
        finally:
            bar.close()
        if not result.available:
            self.stdout.write(f"embed_papers: semantic search unavailable ({result.reason}); nothing to do")
            return
        rate = result.embedded / result.seconds if result.seconds and result.embedded else 0.0
        self.stdout.write(
            f"embed_papers: {result.embedded} embedded, {result.unchanged} already current, "
            f"{result.skipped} skipped in {result.seconds:.1f} s ({rate:.1f} papers/s) with {result.model}"
        )


def _set_total(bar, papers: int) -> None:
    # Known once the papers are read: the bar then shows a percentage and an ETA.
    bar.total = papers
    bar.refresh()
