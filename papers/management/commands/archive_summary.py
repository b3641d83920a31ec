"""``manage.py archive_summary``: one line of counts for the archive."""

from django.apps import apps
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Print one summary line: papers, authorships, researchers, institutions, signed records."

    def handle(self, *args, **options) -> None:
        from papers.models import Paper, PaperAuthor

        parts = [
            f"{Paper.objects.filter(deleted=False).count()} papers",
            f"{PaperAuthor.objects.count()} author slots",
        ]
        # Later stages add their own counts when their models exist.
        for label, model_name in (
            ("researchers", "researchers.Researcher"),
            ("institutions", "institutions.Institution"),
            ("signed records", "provenance.ProvenanceRecord"),
        ):
            try:
                model = apps.get_model(model_name)
            except LookupError:
                continue
            parts.append(f"{model.objects.count()} {label}")
        self.stdout.write("wovepaper: " + ", ".join(parts))
