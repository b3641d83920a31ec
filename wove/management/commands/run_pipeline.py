"""``manage.py run_pipeline``: run every stage after the harvest here, or send them to the workers."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from wove.pipeline import STAGE_NAMES, pipeline_run_inline, pipeline_send, pipeline_summary, result_line
from wove.progress import StageProgress


class Command(BaseCommand):
    help = (
        "Run the pipeline's stages in order (" + " → ".join(STAGE_NAMES) + ") on whatever is "
        "pending: here by default, or --send them to the workers. Re-runnable: a second run finds "
        "nothing pending."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--send", action="store_true", help="send the stages to the Celery workers")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars")

    def handle(self, *args, **options) -> None:
        if options["send"]:
            pipeline_send()
            self.stdout.write("run_pipeline: sent to the workers (see manage.py pipeline_status)")
            return
        progress = StageProgress(disabled=options["no_progress"])
        try:
            results = pipeline_run_inline(progress_for=progress)
        finally:
            progress.close()
        for stage, result in results:
            self.stdout.write(result_line(stage.name, result))
        self.stdout.write(pipeline_summary(results))
