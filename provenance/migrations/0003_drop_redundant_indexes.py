"""Drop three indexes that others already cover (signing writes every index of every row).

- ``record_body_prefix_idx``: ``pith_body varchar_pattern_ops``, identical to the ``_like``
  index Django makes for the unique ``pith_body`` (the short forms' LIKE 'X%' uses that one).
- The ``record_id`` index of events and its ``_like`` copy: ``event_record_idx`` (record,
  created_at) and ``event_chain_unique`` (record, target, prev_event) lead with the column;
  no query compares record ids with LIKE.
- The ``paper_id`` index of records: ``record_paper_idx`` (paper, source_version,
  created_at) leads with it.

Only the indexes are dropped (``SeparateDatabaseAndState``): Django's own AlterField would
also drop and re-add both foreign keys, re-validating every row of the tables.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0005_public_count_index"),
        ("provenance", "0002_alter_record_created_at"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="record", name="record_body_prefix_idx"),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="record",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="provenance.record",
                    ),
                ),
                migrations.AlterField(
                    model_name="record",
                    name="paper",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="pith_records",
                        to="papers.paper",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "provenance_event_record_id_8aa2030c"',
                    'CREATE INDEX "provenance_event_record_id_8aa2030c" ON "provenance_event" ("record_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "provenance_event_record_id_8aa2030c_like"',
                    'CREATE INDEX "provenance_event_record_id_8aa2030c_like" ON "provenance_event" '
                    '("record_id" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "provenance_record_paper_id_1b157806"',
                    'CREATE INDEX "provenance_record_paper_id_1b157806" ON "provenance_record" ("paper_id")',
                ),
            ],
        ),
    ]
