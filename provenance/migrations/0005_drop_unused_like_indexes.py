"""Drop the three ``varchar_pattern_ops`` copies Django makes for a unique or primary-key
``CharField`` where no query compares with LIKE (signing writes every index of every row;
issue 29):

- ``content_sha256`` of events and ``canonical_sha256`` of records: looked up whole
  (``=``, ``IN``); the admin's search is ``icontains`` (``UPPER(...) LIKE``), which no btree
  serves.
- ``pith_number`` of records: the one ``startswith`` on it (``record_resolve``) comes with
  ``pith_body =``, read through ``pith_body``'s unique index. ``pith_body``'s own copy stays:
  the short forms (``pith:L5Y4YBEW``) are ``LIKE 'L5Y4YBEW%'`` on it.

The unique indexes and primary keys stay. Django does not record these copies in its state
(they come with the field), so only the database changes, and a reverse makes them again.
"""

from django.db import migrations

_DROPPED = (
    ("provenance_event_content_sha256_c750175b_like", "provenance_event", "content_sha256"),
    ("provenance_record_canonical_sha256_3a285681_like", "provenance_record", "canonical_sha256"),
    ("provenance_record_pith_number_8acb6907_like", "provenance_record", "pith_number"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0004_authorship_signing"),
    ]

    operations = [
        migrations.RunSQL(
            f'DROP INDEX IF EXISTS "{name}"',
            f'CREATE INDEX "{name}" ON "{table}" ("{column}" varchar_pattern_ops)',
        )
        for name, table, column in _DROPPED
    ]
