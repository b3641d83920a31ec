"""GIN pending lists kept at 256 kB on the name-variants and folded-names indexes (issue 28).

ALTER INDEX ... SET, not a rebuild (see papers 0018); the trigram index exists only where
pg_trgm could be installed (0003), hence IF EXISTS.
"""

import django.contrib.postgres.indexes
from django.db import migrations

INDEXES = ("researcher_variants_gin", "researcher_names_trgm")


class Migration(migrations.Migration):
    dependencies = [("researchers", "0015_summary_log_through")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    [f"ALTER INDEX IF EXISTS {name} SET (gin_pending_list_limit = 256)" for name in INDEXES],
                    [f"ALTER INDEX IF EXISTS {name} RESET (gin_pending_list_limit)" for name in INDEXES],
                )
            ],
            state_operations=[
                migrations.RemoveIndex(model_name="researcher", name="researcher_variants_gin"),
                migrations.AddIndex(
                    model_name="researcher",
                    index=django.contrib.postgres.indexes.GinIndex(
                        fields=["name_variants"], gin_pending_list_limit=256, name="researcher_variants_gin"
                    ),
                ),
            ],
        )
    ]
