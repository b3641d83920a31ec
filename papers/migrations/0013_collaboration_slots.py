"""Classify stored author slots again (issue 19) and write their collaborations."""

from django.db import migrations

from papers.collaborations import CollaborationModels, collaborations_backfill


def forward(apps, schema_editor):
    collaborations_backfill(
        models=CollaborationModels(
            collaboration=apps.get_model("papers", "Collaboration"),
            paper_collaboration=apps.get_model("papers", "PaperCollaboration"),
            paper_author=apps.get_model("papers", "PaperAuthor"),
        )
    )


class Migration(migrations.Migration):
    dependencies = [("papers", "0012_collaborations")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
