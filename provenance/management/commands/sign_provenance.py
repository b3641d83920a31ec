"""``manage.py sign_provenance``: sign the canonical records and events of new or changed papers."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from provenance import services, signing


class Command(BaseCommand):
    help = (
        "Sign new and changed papers: canonical records, receipts, record_created and graph_snapshot events."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=500, help="papers per transaction")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options) -> None:
        total = signing.papers_to_sign().count()
        bar = tqdm(
            total=total, unit="paper", desc="sign", disable=options["no_progress"] or None, leave=False
        )
        try:
            result = services.records_sign(batch_size=options["batch_size"], progress=bar.update)
        finally:
            bar.close()
        self.stdout.write(f"sign_provenance: {result.summary()}")
