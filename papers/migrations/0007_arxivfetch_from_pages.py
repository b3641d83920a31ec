"""ArxivFetch moves from pages to papers (issue 17): the table and its rows are kept.

The model enters papers' state as it was (table ``pages_arxivfetch``), then the table is
renamed to papers' default ``papers_arxivfetch`` (an ALTER TABLE: rows, ids, indexes and the
identity sequence stay), and its content type follows so permissions granted on it stay.
``pages.0002`` then removes the model from pages' state only.
"""

from django.db import migrations, models


def move_content_type(apps, schema_editor):
    """Relabel the ``pages.arxivfetch`` content type (when one exists) as papers'."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="papers", model="arxivfetch").exists():
        ContentType.objects.using(db).filter(app_label="pages", model="arxivfetch").update(app_label="papers")


def restore_content_type(apps, schema_editor):
    """Undo :func:`move_content_type`."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="pages", model="arxivfetch").exists():
        ContentType.objects.using(db).filter(app_label="papers", model="arxivfetch").update(app_label="pages")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("pages", "0001_initial"),
        ("papers", "0006_harvestrun_deferred_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ArxivFetch",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("arxiv_id", models.CharField(max_length=64, unique=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("queued", "Queued"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("missing", "Missing"),
                                    ("failed", "Failed"),
                                ],
                                default="queued",
                                max_length=16,
                            ),
                        ),
                        ("message", models.CharField(blank=True, max_length=500)),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("requested_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={"ordering": ["-requested_at"], "db_table": "pages_arxivfetch"},
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="arxivfetch", table=None),
        migrations.RunPython(move_content_type, restore_content_type, elidable=True),
    ]
