"""HarvestRun keeps the last complete OAI datestamp beside its resumptionToken (BUGS.md OAI-01):
an expired token restarts the list from that day instead of from the window's start."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0009_canonical_categories"),
    ]

    operations = [
        migrations.AddField(
            model_name="harvestrun",
            name="last_complete_datestamp",
            field=models.DateField(
                blank=True,
                help_text="Every record of the window stamped on or before this day is written (OAI-PMH day)",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="harvestrun",
            name="datestamps_in_order",
            field=models.BooleanField(
                default=True, help_text="The pages so far came in datestamp order (no page went back a day)"
            ),
        ),
    ]
