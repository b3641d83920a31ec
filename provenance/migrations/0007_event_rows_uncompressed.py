"""Keep events of up to a page uncompressed (issue 29): ``toast_tuple_target`` 8160 bytes.

From about 2 kB (PostgreSQL's default target) a row's largest values are compressed with
pglz, so every ``graph_snapshot`` event (title, author slots, abstract excerpt: 1.7 kB of
JSON on average) was compressed as signing wrote it: 0.8 of the 2.6 s that ``COPY`` took for
20,000 papers' events (a replay of signing's own lines into copies of the table). Stored as
they are, those rows take about a quarter more space; rows past a page (a 3,000-author
paper's snapshot) are still compressed and moved out of line.
https://www.postgresql.org/docs/15/sql-createtable.html#RELOPTION-TOAST-TUPLE-TARGET
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("provenance", "0006_drop_key_indexes"),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE provenance_event SET (toast_tuple_target = 8160)",
            "ALTER TABLE provenance_event RESET (toast_tuple_target)",
        ),
    ]
