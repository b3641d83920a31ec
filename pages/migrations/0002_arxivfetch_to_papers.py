"""ArxivFetch moved to papers (``papers.0007``, which kept the table and its rows): remove
it from pages' state only; the database is left alone."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("pages", "0001_initial"),
        ("papers", "0007_arxivfetch_from_pages"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ArxivFetch")],
            database_operations=[],
        ),
    ]
