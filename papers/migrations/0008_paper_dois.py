"""A paper's DOIs become a list (issue 18): ``Paper.dois`` replaces the one ``doi`` string.

arXiv's doi field may hold several DOIs (an article and its errata) separated by spaces;
the string was stored joined. The column is added, each stored string split by
``papers.identifiers.split_dois`` (the one split ingest uses), and the old column dropped
(``Paper.doi`` is now a property giving the first DOI). Reversible: the reverse joins the
list with spaces again, as arXiv writes it.
"""

from django.contrib.postgres.fields import ArrayField
from django.db import migrations, models

from papers.identifiers import split_dois

BATCH = 2000
# One DOI that split_dois keeps as it is (no separator, no prefix): nearly every stored
# value, converted by one statement; only the others go through Python.
_SINGLE_DOI = r"^10\.[0-9.]+/[^\s,;]+$"
OLD_MAX_LENGTH = 200  # the dropped column's width


def split_stored_dois(apps, schema_editor):
    """Fill ``dois`` from each row's ``doi`` string, in the order written."""
    Paper = apps.get_model("papers", "Paper")
    db = schema_editor.connection.alias
    with schema_editor.connection.cursor() as cursor:
        # Deferred foreign-key checks queued by these updates would block the DROP COLUMN
        # that follows in the same transaction ("pending trigger events").
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("UPDATE papers_paper SET dois = ARRAY[doi] WHERE doi ~ %s", [_SINGLE_DOI])
    rest = Paper.objects.using(db).exclude(doi="").filter(dois=[]).only("pk", "doi")
    for paper in rest.iterator(chunk_size=BATCH):
        paper.dois = split_dois(paper.doi)
        Paper.objects.using(db).filter(pk=paper.pk).update(dois=paper.dois)


def join_dois(apps, schema_editor):
    """Undo :func:`split_stored_dois`: ``doi`` is the DOIs joined by one space, as arXiv
    writes them (whole DOIs only, as many as fit the old column's 200 characters)."""
    Paper = apps.get_model("papers", "Paper")
    db = schema_editor.connection.alias
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("UPDATE papers_paper SET doi = dois[1] WHERE cardinality(dois) = 1")
    for paper in Paper.objects.using(db).filter(dois__len__gt=1).only("pk", "dois").iterator(chunk_size=BATCH):
        joined = paper.dois[0][:OLD_MAX_LENGTH]
        for doi in paper.dois[1:]:
            if len(joined) + 1 + len(doi) > OLD_MAX_LENGTH:
                break
            joined += " " + doi
        Paper.objects.using(db).filter(pk=paper.pk).update(doi=joined)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0007_arxivfetch_from_pages"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="dois",
            field=ArrayField(
                base_field=models.CharField(max_length=200),
                blank=True,
                default=list,
                help_text="The journal DOIs arXiv lists for the paper (an article and its errata), in its order",
                size=None,
            ),
        ),
        migrations.RunPython(split_stored_dois, join_dois),
        migrations.RemoveField(
            model_name="paper",
            name="doi",
        ),
    ]
