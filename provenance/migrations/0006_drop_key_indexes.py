"""Drop the signing-key indexes of records and events (issue 29): one key signs nearly every
row, so no read goes by key (bundles read their keys by the key's own id), and a key is never
deleted (PROTECT's check would be the one scan). Signing wrote both indexes for every row.

Only the indexes are dropped (``SeparateDatabaseAndState``), as in 0003: Django's own
AlterField would also drop and re-add both foreign keys, re-validating every row.
"""

import django.db.models.deletion
from django.db import migrations, models

_DROPPED = (
    ("provenance_event_key_id_3e2e23e7", "provenance_event"),
    ("provenance_record_key_id_8e9b3e72", "provenance_record"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0005_drop_unused_like_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name=model_name,
                    name="key",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name=related_name,
                        to="provenance.publickey",
                    ),
                )
                for model_name, related_name in (("event", "events"), ("record", "records"))
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{name}"', f'CREATE INDEX "{name}" ON "{table}" ("key_id")'
                )
                for name, table in _DROPPED
            ],
        ),
    ]
