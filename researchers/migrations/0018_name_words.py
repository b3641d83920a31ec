"""The name-word index (issue 28, :mod:`researchers.name_index`): two tables kept by
statement-level triggers on the researchers' table, filled here from every listed researcher,
and a trigram index on the distinct words where pg_trgm exists (as migration 0003 does for
``names_folded``). At 2.5 million papers (2.4 million researchers) the fill writes about ten
million rows.
"""

import django.db.models.deletion
import pgtrigger.compiler
import pgtrigger.migrations
from django.db import migrations, models

from wove.statistics import GIN_PENDING_LIST_KB
from wove.trigram import trigram_index


# researchers.name_index.FILL_ALL when written: every listed researcher's words.
FILL = """
WITH added AS (
    INSERT INTO researchers_nameword (researcher_id, word, paper_count)
    SELECT DISTINCT r.id, w.word, r.paper_count FROM researchers_researcher r
    CROSS JOIN LATERAL regexp_split_to_table(r.names_folded, ' ') AS w(word)
    WHERE r.merged_into_id IS NULL AND r.paper_count > 0 AND w.word NOT IN ('', '|')
    RETURNING word
)
INSERT INTO researchers_nametoken (word) SELECT DISTINCT word FROM added ORDER BY word
ON CONFLICT DO NOTHING
"""


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0017_names_folded_statistics"),
    ]

    operations = [
        migrations.CreateModel(
            name="NameToken",
            fields=[
                ("word", models.TextField(primary_key=True, serialize=False)),
            ],
        ),
        migrations.CreateModel(
            name="NameWord",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "researcher", "word", blank=True, editable=False, primary_key=True, serialize=False
                    ),
                ),
                (
                    "researcher",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="researchers.researcher",
                    ),
                ),
                ("word", models.TextField()),
                ("paper_count", models.PositiveIntegerField()),
            ],
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="researcher",
            trigger=pgtrigger.compiler.Trigger(
                name="researcher_names_insert",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func="WITH added AS (INSERT INTO researchers_nameword (researcher_id, word, paper_count) SELECT DISTINCT r.id, w.word, r.paper_count FROM new_rows r CROSS JOIN LATERAL regexp_split_to_table(r.names_folded, ' ') AS w(word) WHERE r.merged_into_id IS NULL AND r.paper_count > 0 AND w.word NOT IN ('', '|') RETURNING word) INSERT INTO researchers_nametoken (word) SELECT DISTINCT word FROM added ORDER BY word ON CONFLICT DO NOTHING; RETURN NULL;",
                    hash="2d8234829aafe62771e3af38365a6e8f99b3736e",
                    level="STATEMENT",
                    operation="INSERT",
                    pgid="pgtrigger_researcher_names_insert_91aef",
                    referencing="REFERENCING NEW TABLE AS new_rows ",
                    table="researchers_researcher",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="researcher",
            trigger=pgtrigger.compiler.Trigger(
                name="researcher_names_update",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func="DELETE FROM researchers_nameword w USING (SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (o.names_folded, o.paper_count, o.merged_into_id) IS DISTINCT FROM (n.names_folded, n.paper_count, n.merged_into_id)) x WHERE w.researcher_id = x.id; WITH added AS (INSERT INTO researchers_nameword (researcher_id, word, paper_count) SELECT DISTINCT r.id, w.word, r.paper_count FROM (SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (o.names_folded, o.paper_count, o.merged_into_id) IS DISTINCT FROM (n.names_folded, n.paper_count, n.merged_into_id)) r CROSS JOIN LATERAL regexp_split_to_table(r.names_folded, ' ') AS w(word) WHERE r.merged_into_id IS NULL AND r.paper_count > 0 AND w.word NOT IN ('', '|') RETURNING word) INSERT INTO researchers_nametoken (word) SELECT DISTINCT word FROM added ORDER BY word ON CONFLICT DO NOTHING; RETURN NULL;",
                    hash="7a26013c008afe29d7aad7be8bf4f20c70b6aaa2",
                    level="STATEMENT",
                    operation="UPDATE",
                    pgid="pgtrigger_researcher_names_update_ed200",
                    referencing="REFERENCING OLD TABLE AS old_rows  NEW TABLE AS new_rows ",
                    table="researchers_researcher",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="researcher",
            trigger=pgtrigger.compiler.Trigger(
                name="researcher_names_delete",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func="DELETE FROM researchers_nameword w USING (SELECT id FROM old_rows) x WHERE w.researcher_id = x.id; RETURN NULL;",
                    hash="55a4edd45362ee94a6a5dc9663f3d866af6beb1c",
                    level="STATEMENT",
                    operation="DELETE",
                    pgid="pgtrigger_researcher_names_delete_751c6",
                    referencing="REFERENCING OLD TABLE AS old_rows ",
                    table="researchers_researcher",
                    when="AFTER",
                ),
            ),
        ),
        migrations.AddIndex(
            model_name="nameword",
            index=models.Index(
                fields=["word", "-paper_count"], include=("researcher",), name="nameword_word_idx"
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="researcher",
            trigger=pgtrigger.compiler.Trigger(
                name="researcher_names_truncate",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func="DELETE FROM researchers_nameword; RETURN NULL;",
                    hash="a1c18407b1e62db6d2b5c02e03448b1d46c38a14",
                    level="STATEMENT",
                    operation="TRUNCATE",
                    pgid="pgtrigger_researcher_names_truncate_b7f24",
                    table="researchers_researcher",
                    when="AFTER",
                ),
            ),
        ),
        # A name search reads the pending list whole: kept short (wove.statistics).
        migrations.RunPython(
            *trigram_index("nametoken_word_trgm", "researchers_nametoken", "word", pending_kb=GIN_PENDING_LIST_KB)
        ),
        migrations.RunSQL(FILL, migrations.RunSQL.noop),
        migrations.RunSQL("ANALYZE researchers_nameword, researchers_nametoken", migrations.RunSQL.noop),
    ]
