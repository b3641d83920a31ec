"""Paper embeddings; the pgvector column and HNSW index only where the extension is available."""

import django.db.models.deletion
from django.db import migrations, models


def add_vector_column(apps, schema_editor):
    from semantic.schema import ensure_vector_schema

    ensure_vector_schema(using=schema_editor.connection.alias)


def drop_vector_column(apps, schema_editor):
    # The table is dropped by the CreateModel reversal; the extension may serve others: kept.
    pass


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("papers", "0002_load_taxonomy"),
    ]

    operations = [
        migrations.CreateModel(
            name="PaperEmbedding",
            fields=[
                (
                    "paper",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="embedding",
                        serialize=False,
                        to="papers.paper",
                    ),
                ),
                ("model", models.CharField(help_text="Embedding model that produced the vector", max_length=100)),
                ("text_hash", models.CharField(help_text="sha256(model + embedded text), hex", max_length=64)),
                ("embedded_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name": "paper embedding"},
        ),
        migrations.RunPython(add_vector_column, drop_vector_column),
    ]
