"""Load arXiv's category taxonomy (data/arxiv/taxonomy) into Category."""

from django.db import migrations


def load(apps, schema_editor):
    from papers.taxonomy import load_taxonomy

    load_taxonomy(apps.get_model("papers", "Category"))


class Migration(migrations.Migration):
    dependencies = [("papers", "0001_initial")]

    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
