"""Authorship.modified_at: when a link last changed, for the paper API's Last-Modified.

Existing links are given their ``created_at``, the one write time the row kept. A change made
since (issue 20's evidence backfill, an unconfirmed mark, an editor's confirmation) left no
time behind: the paper's ``modified_at`` is not the link's (a re-harvest moves it, an
editor's decision does not), and this migration's own time would claim that every link
changed today. With ``created_at`` every paper's Last-Modified stays what it was before
(those earlier changes were and are caught by the ETag, a hash of the body); from now on
every write to a link moves it.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0010_authorship_no_evidence_idx"),
    ]

    operations = [
        # Adding an auto_now column fills existing rows with the migration's time (one
        # constant, no table rewrite); the UPDATE then gives each its creation time.
        migrations.AddField(
            model_name="authorship",
            name="modified_at",
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.RunSQL(
            "UPDATE researchers_authorship SET modified_at = created_at",
            migrations.RunSQL.noop,
        ),
    ]
