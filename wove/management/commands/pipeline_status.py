"""``manage.py pipeline_status``: each stage's last run, backlog and last error."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from wove.pipeline import format_age, format_counts, pipeline_status
from wove.replicas import describe_replica, replica_status


class Command(BaseCommand):
    help = (
        "Per pipeline stage: the last run (start, end, outcome, counts), what waits and since "
        "when, the rate of its latest run that worked and the time to empty its backlog at that "
        "rate, the last error; each read replica's lag; FAILING marks a stage whose last three "
        "runs failed. Exit status 1 when a stage is failing (for monitoring)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--errors", action="store_true", help="print each stage's last error in full")

    def handle(self, *args, **options) -> None:
        rows = pipeline_status()
        header = ("stage", "queue", "last run", "outcome", "waiting", "oldest", "rate", "empty in", "")
        table = [header]
        for row in rows:
            when = "-"
            if row.started_at:
                end = f"{row.finished_at:%H:%M:%S}" if row.finished_at else "…"
                when = f"{row.started_at:%Y-%m-%d %H:%M:%S}–{end}"
            table.append(
                (
                    row.name,
                    row.queue,
                    when,
                    row.outcome or "never run",
                    row.waiting,
                    format_age(row.oldest_age),
                    row.rate_text,
                    format_age(row.eta),
                    "FAILING" if row.failing else "",
                )
            )
        widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
        for r in table:
            self.stdout.write("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
        for row in rows:
            if row.counts:
                self.stdout.write(f"{row.name} last counts: {format_counts(row.counts)}")
            if row.last_error:
                error = row.last_error if options["errors"] else row.last_error.splitlines()[0][:200]
                when = f" at {row.last_error_at:%Y-%m-%d %H:%M:%S}" if row.last_error_at else ""
                self.stdout.write(f"{row.name} last error{when}: {error}")
        for replica in replica_status():
            self.stdout.write(f"read replica {replica.alias} ({replica.host}): {describe_replica(replica)}")
        failing = [row.name for row in rows if row.failing]
        waiting = sum(
            row.backlog.waiting or 0 for row in rows if row.backlog and row.backlog.unit == "papers"
        )
        self.stdout.write(
            f"pipeline_status: {len(rows)} stages, {waiting:,} paper-stages waiting, "
            + (f"FAILING: {', '.join(failing)}" if failing else "none failing")
        )
        if failing:
            raise SystemExit(1)
