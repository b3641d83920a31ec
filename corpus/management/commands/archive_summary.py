"""``manage.py archive_summary``: one line of counts for the archive."""

from django.core.management.base import BaseCommand

from institutions.models import Institution
from papers.models import Paper, PaperAuthor
from provenance.models import Record
from researchers.models import Researcher


class Command(BaseCommand):
    help = "Print one summary line: papers, author slots, researchers, institutions, signed records."

    def handle(self, *args, **options) -> None:
        parts = [
            f"{Paper.objects.filter(deleted=False).count()} papers",
            f"{PaperAuthor.objects.count()} author slots",
            # Records an editor merged away are not people any more.
            f"{Researcher.objects.filter(merged_into__isnull=True).count()} researchers",
            f"{Institution.objects.count()} institutions",
            f"{Record.objects.count()} signed records",
        ]
        self.stdout.write("wovepaper: " + ", ".join(parts))
