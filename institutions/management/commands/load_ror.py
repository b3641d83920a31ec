"""``manage.py load_ror --file PATH...``: load ROR records (dump list, single record, or dump zip)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from institutions import services


class Command(BaseCommand):
    help = (
        "Load ROR registry records (schema v2 or v1) from a data dump JSON list, single-record "
        "JSON files, or the dump zip. Re-runnable: unchanged records write nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", nargs="+", dest="files", metavar="PATH", required=True)
        parser.add_argument("--batch-size", type=int, default=500)
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options) -> None:
        bar = tqdm(unit="rec", disable=options["no_progress"] or None, desc="load_ror", leave=False)
        try:
            result = services.institutions_load(
                paths=options["files"], batch_size=options["batch_size"], progress=bar.update
            )
        except FileNotFoundError as exc:
            raise CommandError(f"no such file: {exc.filename}") from exc
        except json.JSONDecodeError as exc:
            raise CommandError(f"not JSON: {exc}") from exc
        finally:
            bar.close()
        self.stdout.write(str(result))
