"""wove_search_fold returns ASCII text as it is (issue 29): the same result for every text, in a
tenth of the time for the ASCII titles and abstracts that are most of arXiv.

PostgreSQL's ``translate`` looks each character of the text up in the 380-letter table, 0.5
ms a paper: ten times the ``to_tsvector`` it feeds, and most of a harvest's database time.
The stored search vectors stay as they are (the function's results do not change), so no
table is rewritten. The statement is written out here as it stands (papers.search_fold
builds it); the reverse is 0015's.
"""

import importlib

from django.db import migrations

BEFORE = importlib.import_module("papers.migrations.0015_search_vector_folded").FOLD_FUNCTION

FOLD_FUNCTION = "CREATE OR REPLACE FUNCTION wove_search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$ SELECT CASE WHEN octet_length($1) = length($1) THEN $1 ELSE replace(replace(replace(replace(replace(replace(replace(replace(replace(translate($1, 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåçèéêëìíîïðñòóôõöøùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƀƁƂƃƆƇƈƉƊƋƌƍƐƑƒƓƔƖƗƘƙƚƛƜƝƞƟƠơƤƥƫƬƭƮƯưƱƲƳƴƵƶƿǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǤǥǦǧǨǩǪǫǬǭǰǴǵǷǸǹǺǻǾǿȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȜȝȞȟȠȡȤȥȦȧȨȩȪȫȬȭȮȯȰȱȲȳȴȵȶȷȺȻȼȽȾȿɀɃɄɆɇɈɉɊɋɌɍɎɏ', 'AAAAAACEEEEIIIIDNOOOOOOUUUUYaaaaaaceeeeiiiidnoooooouuuuyyAaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnOoOoOoRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzsbBBbOCcDDDddEFfGGIIKkllWNnOOoPptTtTUuYVYyZzwAaIiOoUuUuUuUuUuAaAaGgGgKkOoOojGgWNnAaOoAaAaEeEeIiIiOoOoRrRrUuUuSsTtYyHhNdZzAaEeOoOoOoOoYylntjACcLTszBUEeJjqqRrYy'), 'Æ', 'AE'), 'æ', 'ae'), 'ß', 'ss'), 'Œ', 'OE'), 'œ', 'oe'), 'Þ', 'Th'), 'þ', 'th'), 'Ĳ', 'IJ'), 'ĳ', 'ij') END $fold$"


class Migration(migrations.Migration):
    dependencies = [("papers", "0016_search_change")]

    operations = [migrations.RunSQL(FOLD_FUNCTION, reverse_sql=BEFORE)]
