"""``manage.py match_affiliations``: link author slots to ROR institutions from affiliation strings."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from institutions import services
from institutions.summaries import summaries_refresh
from papers.models import PaperAuthor


class Command(BaseCommand):
    help = (
        "Match the arXiv affiliation strings of author slots to loaded ROR institutions "
        "(ambiguous strings stay unmatched). Re-runnable: a second run changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=2000)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options) -> None:
        total = None if options["no_progress"] else PaperAuthor.objects.exclude(affiliations=[]).count()
        bar = tqdm(
            total=total, unit="slot", disable=options["no_progress"] or None, desc="match", leave=False
        )
        try:
            result = services.affiliations_match(batch_size=options["batch_size"], progress=bar.update)
        finally:
            bar.close()
        self.stdout.write(str(result))
        refreshed = summaries_refresh()
        if refreshed:
            self.stdout.write(f"institution summaries: {refreshed} refreshed")
