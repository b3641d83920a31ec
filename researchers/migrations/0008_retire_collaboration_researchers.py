"""Remove the researchers made from collaboration and junk slots (issue 19); their ids stay
as RetiredResearcher tombstones so the old URLs answer 301 or 410."""

from django.db import migrations

from researchers.retire import RetireModels, collaboration_researchers_retire


def forward(apps, schema_editor):
    collaboration_researchers_retire(
        models=RetireModels(
            researcher=apps.get_model("researchers", "Researcher"),
            authorship=apps.get_model("researchers", "Authorship"),
            retired=apps.get_model("researchers", "RetiredResearcher"),
            paper_collaboration=apps.get_model("papers", "PaperCollaboration"),
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0007_retired_researcher"),
        ("papers", "0013_collaboration_slots"),
        # Follows and digest notes point at researchers: their models must be known to
        # the deletion's cascade.
        ("accounts", "0001_initial"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
