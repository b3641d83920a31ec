"""Full-text search folds accents (issue 32: "Grunberg" found nothing, "Grünberg" 5 papers).

``wove_search_fold(text)`` (the table of papers.search_fold, written out here as it stood)
is created first; the generated ``search_vector`` is then rebuilt over it: PostgreSQL drops
and re-adds the column, rewriting the table and rebuilding its GIN index (minutes at a
million papers; the bulk of the migration)."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

FOLD_FUNCTION = "CREATE OR REPLACE FUNCTION wove_search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$ SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(translate($1, 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåçèéêëìíîïðñòóôõöøùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƀƁƂƃƆƇƈƉƊƋƌƍƐƑƒƓƔƖƗƘƙƚƛƜƝƞƟƠơƤƥƫƬƭƮƯưƱƲƳƴƵƶƿǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǤǥǦǧǨǩǪǫǬǭǰǴǵǷǸǹǺǻǾǿȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȜȝȞȟȠȡȤȥȦȧȨȩȪȫȬȭȮȯȰȱȲȳȴȵȶȷȺȻȼȽȾȿɀɃɄɆɇɈɉɊɋɌɍɎɏ', 'AAAAAACEEEEIIIIDNOOOOOOUUUUYaaaaaaceeeeiiiidnoooooouuuuyyAaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnOoOoOoRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzsbBBbOCcDDDddEFfGGIIKkllWNnOOoPptTtTUuYVYyZzwAaIiOoUuUuUuUuUuAaAaGgGgKkOoOojGgWNnAaOoAaAaEeEeIiIiOoOoRrRrUuUuSsTtYyHhNdZzAaEeOoOoOoOoYylntjACcLTszBUEeJjqqRrYy'), 'Æ', 'AE'), 'æ', 'ae'), 'ß', 'ss'), 'Œ', 'OE'), 'œ', 'oe'), 'Þ', 'Th'), 'þ', 'th'), 'Ĳ', 'IJ'), 'ĳ', 'ij') $fold$"


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0014_arxivfetch_incomplete"),
    ]

    operations = [
        migrations.RunSQL(FOLD_FUNCTION, reverse_sql=migrations.RunSQL.noop),
        migrations.RemoveIndex(model_name="paper", name="paper_search_gin"),
        # Django cannot alter a generated column's expression: remove it and add it again.
        migrations.RemoveField(model_name="paper", name="search_vector"),
        migrations.AddField(
            model_name="paper",
            name="search_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.CombinedSearchVector(
                    django.contrib.postgres.search.CombinedSearchVector(
                        django.contrib.postgres.search.SearchVector(
                            models.Func(
                                models.F("title"),
                                function="wove_search_fold",
                                output_field=models.TextField(),
                            ),
                            config="english",
                            weight="A",
                        ),
                        "||",
                        django.contrib.postgres.search.SearchVector(
                            models.Func(
                                models.F("authors_text"),
                                function="wove_search_fold",
                                output_field=models.TextField(),
                            ),
                            config="english",
                            weight="B",
                        ),
                        django.contrib.postgres.search.SearchConfig("english"),
                    ),
                    "||",
                    django.contrib.postgres.search.SearchVector(
                        models.Func(
                            models.F("abstract"), function="wove_search_fold", output_field=models.TextField()
                        ),
                        config="english",
                        weight="C",
                    ),
                    django.contrib.postgres.search.SearchConfig("english"),
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="paper",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="paper_search_gin"),
        ),
    ]
