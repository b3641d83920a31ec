"""Paper.content_asof and authors_asof (issue 18): the as-of day of the message that last set
a paper's content and its authors, so an older message replayed later changes nothing.

Stored papers get the best day known for them: their OAI datestamp, else their updated day
(what papers.upsert.record_asof gives a Kaggle line or an API entry).
"""

from django.db import migrations, models

BACKFILL = (
    "UPDATE papers_paper SET content_asof = COALESCE(oai_datestamp, updated_date),"
    " authors_asof = COALESCE(oai_datestamp, updated_date)"
)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0010_harvestrun_last_complete_datestamp"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="authors_asof",
            field=models.DateField(
                blank=True,
                help_text="As-of day of the message that last set the authors (issue 18)",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="paper",
            name="content_asof",
            field=models.DateField(
                blank=True,
                help_text="As-of day of the message that last set the content (issue 18)",
                null=True,
            ),
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop, elidable=True),
    ]
