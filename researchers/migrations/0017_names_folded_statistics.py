"""Planner statistics of ``names_folded`` sampled ten times finer (issue 28).

The name search (``names_folded LIKE '%word%'``, :meth:`ResearcherQuerySet.name_contains`)
is ordered by paper count. PostgreSQL estimates how many names hold a word from the column's
histogram, one entry per 1 % of rows at the default statistics target of 100. At a million
papers (964,953 researchers) it took "lewis" (232 names) for 9,677 and walked the paper-count
index past 136,000 rows for 25 of them (156 ms), and took "wang" (7,804) for rare enough to
read and sort every match (53 ms). With 1,000 histogram entries it chose the trigram index
for the first (1.8 ms) and the paper-count index for the second (8 ms). A name in no
histogram entry is still taken for 0.2 % of rows ("lumsden", 35 names: 1,877, 113 ms), so
the API's list reads a search's matching ids first (researchers.selectors.researchers_named);
the site's list, tab counts and suggestions gain what the finer histogram gives. ANALYZE
samples 300,000 rows instead of 30,000: 3.5 s at that size.
See https://www.postgresql.org/docs/15/planner-stats.html and ALTER TABLE ... SET STATISTICS.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("researchers", "0016_gin_pending_list_limit")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE researchers_researcher ALTER COLUMN names_folded SET STATISTICS 1000",
            "ALTER TABLE researchers_researcher ALTER COLUMN names_folded SET STATISTICS -1",
        )
    ]
