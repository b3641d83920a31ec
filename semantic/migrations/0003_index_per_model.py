"""One partial HNSW index per model instead of one over every model's vectors (issue 29).

A new model's vectors then never go into the graph searches walk, and a large backlog is
written without an index and indexed once after. Forward: each stored model gets its index
(built over its rows now: seconds for the sample, minutes for millions of vectors), then the
old index goes. Backward: the old index is built again and the per-model ones dropped.
Nothing happens where the database has no pgvector column.
"""

from django.db import migrations


def per_model(apps, schema_editor):
    from semantic.schema import model_index_create, vector_column_exists

    alias = schema_editor.connection.alias
    if not vector_column_exists(using=alias):
        return
    models = (
        apps.get_model("semantic", "PaperEmbedding")
        .objects.using(alias)
        .values_list("model", flat=True)
        .distinct()
    )
    for model in sorted(models):
        model_index_create(model, using=alias)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS semantic_embedding_hnsw")


def one_index(apps, schema_editor):
    from semantic.schema import LEGACY_INDEX, TABLE, model_indexes_drop_except, vector_column_exists

    alias = schema_editor.connection.alias
    if not vector_column_exists(using=alias):
        return
    model_indexes_drop_except("", using=alias)  # every per-model index
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {LEGACY_INDEX} ON {TABLE} USING hnsw (embedding vector_cosine_ops)"
        )


class Migration(migrations.Migration):
    dependencies = [("semantic", "0002_embedding_per_model")]

    operations = [migrations.RunPython(per_model, one_index)]
