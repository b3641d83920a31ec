"""``manage.py harvest_arxiv``: harvest arXiv metadata by OAI-PMH, from files, or from Kaggle."""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from papers import harvest
from papers.bulk import HarvestBusy
from papers.models import HarvestRun
from papers.oai import OaiClient, OaiError, OaiResponseError
from papers.signals import harvest_finished
from wove.progress import StageProgress


def _day(value: str) -> date:
    """An OAI-PMH ``from``/``until`` as a day: ``YYYY-MM-DD``, or a UTC timestamp such as
    ``2024-03-05T00:00:00Z`` truncated to its day (arXiv's Identify declares day granularity,
    and a second-granularity value is a ``badArgument``: BUGS.md OAI-03). Truncating, not
    rounding up, loses no record stamped later that day."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a day (YYYY-MM-DD) or timestamp: {value!r}") from exc
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date()


class Command(BaseCommand):
    help = (
        "Harvest arXiv metadata: from the OAI-PMH endpoint (incremental by default), from "
        "recorded responses (--file), or from the Kaggle arXiv dataset (--kaggle)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from",
            dest="from_date",
            type=_day,
            help="OAI-PMH from (YYYY-MM-DD; a timestamp is cut to its day)",
        )
        parser.add_argument(
            "--until",
            dest="until_date",
            type=_day,
            help="OAI-PMH until (YYYY-MM-DD; a timestamp is cut to its day)",
        )
        parser.add_argument(
            "--set", dest="set_spec", default="", help="OAI-PMH set spec, e.g. cs or physics:hep-th"
        )
        parser.add_argument(
            "--metadata-prefix",
            default=settings.ARXIV_OAI_DEFAULT_PREFIX,
            choices=["arXiv", "arXivRaw"],
            help="OAI-PMH metadataPrefix (default %(default)s)",
        )
        parser.add_argument(
            "--file", nargs="+", dest="files", metavar="PATH", help="recorded OAI-PMH responses"
        )
        parser.add_argument(
            "--bulk",
            action="store_true",
            help="with --file or --kaggle, for large or initial loads: drop the secondary indexes "
            "for the load and rebuild them once at the end (--file: parse in a second process); "
            "--kaggle does this by itself when the snapshot has more lines than the archive papers",
        )
        parser.add_argument("--kaggle", metavar="FILE", help="Kaggle arxiv-metadata-oai-snapshot JSON Lines")
        parser.add_argument("--endpoint", default=settings.ARXIV_OAI_ENDPOINT, help="OAI-PMH base URL")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--no-pipeline",
            action="store_true",
            help="only harvest: do not start the next stages (matching, signing, embedding, ...) "
            "when it ends; by default they go to the workers, or run here when no worker answers",
        )

    def handle(self, *args, **options) -> None:
        if options["bulk"] and not (options["files"] or options["kaggle"]):
            raise CommandError("--bulk applies to recorded responses (--file) or a snapshot (--kaggle) only")
        bar = tqdm(unit="rec", disable=options["no_progress"] or None, desc="harvest", leave=False)
        try:
            if not bar.disable and (options["files"] or options["kaggle"]):
                bar.total = (
                    harvest.records_in_files(options["files"], b"<record>")
                    if options["files"]
                    else harvest.records_in_files([options["kaggle"]], b"\n")
                )
                bar.refresh()
            if options["files"]:
                run = harvest.harvest_files(paths=options["files"], progress=bar.update, bulk=options["bulk"])
            elif options["kaggle"]:
                run = harvest.harvest_kaggle(
                    path=options["kaggle"], progress=bar.update, bulk=True if options["bulk"] else None
                )
            else:
                client = OaiClient(
                    options["endpoint"],
                    min_interval=settings.ARXIV_OAI_MIN_INTERVAL,
                    timeout=settings.ARXIV_OAI_TIMEOUT,
                    user_agent=settings.WOVE_USER_AGENT,
                )
                with client:
                    run = harvest.harvest_oai(
                        client=client,
                        metadata_prefix=options["metadata_prefix"],
                        from_date=options["from_date"],
                        until_date=options["until_date"],
                        set_spec=options["set_spec"],
                        progress=bar.update,
                    )
        except (OaiError, OaiResponseError, HarvestBusy) as exc:
            raise CommandError(str(exc)) from exc
        except FileNotFoundError as exc:
            raise CommandError(f"no such file: {exc.filename}") from exc
        finally:
            bar.close()
        self.stdout.write(
            f"harvest run {run.pk} {run.status}: {run.records_seen} records seen, "
            f"{run.records_written} papers written, {run.records_deleted} deleted, "
            f"{run.records_skipped} skipped ({run.pages} pages)"
        )
        if options["no_pipeline"]:
            return
        progress = StageProgress(disabled=options["no_progress"])
        try:
            responses = harvest_finished.send(sender=HarvestRun, run=run, inline=None, progress_for=progress)
        except Exception as exc:
            # The harvest is stored; the stage's run row says failed, and the next sweep or
            # `run_pipeline` does the rest.
            raise CommandError(
                f"harvest run {run.pk} is stored, but a pipeline stage failed: {type(exc).__name__}: {exc} "
                "(see manage.py pipeline_status; manage.py run_pipeline tries again)"
            ) from exc
        finally:
            progress.close()
        for _receiver, lines in responses:
            for line in lines or ():
                self.stdout.write(line)
