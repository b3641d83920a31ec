"""Researcher name search reads a stored, folded column (issue #11: scale).

``researcher_names_folded(display_name, name_variants)`` is the display name and its variants
joined by `` | ``, lower-cased and accent-folded exactly as ``researchers.querysets.Folded``
does (the two translate strings below are FOLD_FROM/FOLD_TO at the time of writing).
``array_to_string`` is only STABLE in general, but for a varchar array its result depends on
its arguments alone, so the wrapper may be declared IMMUTABLE and used in a generated column.
Where the pg_trgm extension is available (not in the embedded PostgreSQL) a GIN trigram index
answers ``LIKE`` substring tests and regular expressions on the column.
"""

import researchers.querysets
from django.db import migrations, models

from wove.trigram import trigram_index

FOLD_FROM = 'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåçèéêëìíîïðñòóôõöøùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƀƁƂƃƆƇƈƉƊƋƌƍƐƑƒƓƔƖƗƘƙƚƛƜƝƞƟƠơƤƥƫƬƭƮƯưƱƲƳƴƵƶƿǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǤǥǦǧǨǩǪǫǬǭǰǴǵǷǸǹǺǻǾǿȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȜȝȞȟȠȡȤȥȦȧȨȩȪȫȬȭȮȯȰȱȲȳȴȵȶȷȺȻȼȽȾȿɀɃɄɆɇɈɉɊɋɌɍɎɏ'
FOLD_TO = 'aaaaaaceeeeiiiidnoooooouuuuyaaaaaaceeeeiiiidnoooooouuuuyyaaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiijjkkkllllllllllnnnnnnoooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzsbbbboccdddddeffggiikkllwnnoooppttttuuyvyyzzwaaiioouuuuuuuuuuaaaaggggkkoooojggwnnaaooaaaaeeeeiiiioooorrrruuuussttyyhhndzzaaeeooooooooyylntjaccltszbueejjqqrryy'

CREATE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION researcher_names_folded(display_name varchar, variants varchar[])
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT translate(lower(display_name || ' | ' || array_to_string(variants, ' | ')),
                     '{FOLD_FROM}', '{FOLD_TO}')
$$
"""


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0002_orcid_shape"),
    ]

    operations = [
        migrations.RunSQL(
            CREATE_FUNCTION, "DROP FUNCTION IF EXISTS researcher_names_folded(varchar, varchar[])"
        ),
        migrations.AddField(
            model_name="researcher",
            name="names_folded",
            field=models.GeneratedField(
                db_persist=True,
                expression=researchers.querysets.NamesFolded("display_name", "name_variants"),
                output_field=models.TextField(),
            ),
        ),
        migrations.RunPython(*trigram_index("researcher_names_trgm", "researchers_researcher", "names_folded")),
    ]
