"""GIN pending lists kept at 256 kB on the papers' search and category indexes (issue 28).

ALTER INDEX ... SET, not a rebuild: the option applies to the next insert, and rebuilding the
search index of millions of papers would hold the table for minutes. The state is Django's
usual RemoveIndex/AddIndex pair, so that models and migrations agree.
"""

import django.contrib.postgres.indexes
from django.db import migrations

INDEXES = ("paper_categories_gin", "paper_search_gin")


class Migration(migrations.Migration):
    dependencies = [("papers", "0017_search_fold_ascii")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    [f"ALTER INDEX IF EXISTS {name} SET (gin_pending_list_limit = 256)" for name in INDEXES],
                    [f"ALTER INDEX IF EXISTS {name} RESET (gin_pending_list_limit)" for name in INDEXES],
                )
            ],
            state_operations=[
                migrations.RemoveIndex(model_name="paper", name="paper_categories_gin"),
                migrations.RemoveIndex(model_name="paper", name="paper_search_gin"),
                migrations.AddIndex(
                    model_name="paper",
                    index=django.contrib.postgres.indexes.GinIndex(
                        fields=["categories"], gin_pending_list_limit=256, name="paper_categories_gin"
                    ),
                ),
                migrations.AddIndex(
                    model_name="paper",
                    index=django.contrib.postgres.indexes.GinIndex(
                        fields=["search_vector"], gin_pending_list_limit=256, name="paper_search_gin"
                    ),
                ),
            ],
        )
    ]
