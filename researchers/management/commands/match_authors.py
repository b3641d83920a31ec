"""``manage.py match_authors``: attach every unmatched author slot to a researcher."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from researchers import services
from researchers.summaries import summaries_refresh


class Command(BaseCommand):
    help = (
        "Match author slots to researchers, newest papers first: through Semantic Scholar / "
        "OpenAlex when RESEARCHER_SOURCES enables them, else on local evidence. Re-runnable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--source",
            action="append",
            dest="sources",
            choices=["semantic_scholar", "openalex"],
            help="registry to consult (repeatable; default settings.RESEARCHER_SOURCES)",
        )
        parser.add_argument("--local-only", action="store_true", help="consult no registry")
        parser.add_argument("--limit", type=int, help="at most this many author slots")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options) -> None:
        sources = [] if options["local_only"] else (options["sources"] or settings.RESEARCHER_SOURCES)
        total = services.unmatched_slots().count()
        bar = tqdm(
            total=total, unit="slot", disable=options["no_progress"] or None, desc="match", leave=False
        )
        try:
            summary = services.researchers_match_authors(
                sources=sources, limit=options["limit"], progress=bar.update
            )
        finally:
            bar.close()
        self.stdout.write(summary.line())
        refreshed = summaries_refresh()
        if refreshed:
            self.stdout.write(f"researcher summaries: {refreshed} refreshed")
