"""SavedSearch.matches_since: from when a saved search brings papers to the digest (its terms'
digest period); the searches saved so far keep theirs, when they were saved."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_saved_search"),
    ]

    operations = [
        migrations.AddField(
            model_name="savedsearch",
            name="matches_since",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.RunSQL(
            "UPDATE accounts_savedsearch SET matches_since = created_at", migrations.RunSQL.noop
        ),
    ]
