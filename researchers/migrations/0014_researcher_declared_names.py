"""Researcher.declared_names: the names the researcher who claimed the record added (issue 31)."""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('researchers', '0013_search_log'),
    ]

    operations = [
        migrations.AddField(
            model_name='researcher',
            name='declared_names',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=300), blank=True, db_default=models.Value([], output_field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=300), size=None)), default=list, help_text='Names the researcher who claimed the record added; unioned into name_variants', size=None),
        ),
    ]
