"""Accent folding for full-text search (issue 32): "Grunberg" finds "Grünberg".

PostgreSQL's ``english`` configuration keeps accents (``grünberg`` and ``grunberg`` are two
lexemes), and the ``unaccent`` extension is not in every server this archive runs on (the
embedded PostgreSQL ships only pgvector). So the search vector is built over
``wove_search_fold(text)``, an IMMUTABLE SQL function of ``translate`` and ``replace``
(papers migration 0015), and query text is folded here in Python by the same table before
``websearch_to_tsquery``. The table: every letter of Latin-1 Supplement, Latin Extended-A and
-B that ``unidecode`` reads as one ASCII letter, plus the ligatures and letters read as two
(``ß`` → ``ss``, ``æ`` → ``ae``, ``œ`` → ``oe``, ``þ`` → ``th``, ``ĳ`` → ``ij``). A test checks
that this module and the database function agree.
"""

from __future__ import annotations

import unicodedata

FOLD_FROM = (
    "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝàáâãäåçèéêëìíîïðñòóô"
    "õöøùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦ"
    "ħĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝ"
    "ŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƀƁƂƃƆƇƈƉƊƋƌƍƐƑ"
    "ƒƓƔƖƗƘƙƚƛƜƝƞƟƠơƤƥƫƬƭƮƯưƱƲƳƴƵƶƿǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟ"
    "ǠǡǤǥǦǧǨǩǪǫǬǭǰǴǵǷǸǹǺǻǾǿȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘș"
    "ȚțȜȝȞȟȠȡȤȥȦȧȨȩȪȫȬȭȮȯȰȱȲȳȴȵȶȷȺȻȼȽȾȿɀɃɄɆɇɈɉɊɋɌɍɎɏ"
)
FOLD_TO = (
    "AAAAAACEEEEIIIIDNOOOOOOUUUUYaaaaaaceeeeiiiidnooo"
    "ooouuuuyyAaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhH"
    "hIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnOoOoOoRrRrRrSsSs"
    "SsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzsbBBbOCcDDDddEF"
    "fGGIIKkllWNnOOoPptTtTUuYVYyZzwAaIiOoUuUuUuUuUuAa"
    "AaGgGgKkOoOojGgWNnAaOoAaAaEeEeIiIiOoOoRrRrUuUuSs"
    "TtYyHhNdZzAaEeOoOoOoOoYylntjACcLTszBUEeJjqqRrYy"
)
FOLD_MULTI = (
    ("Æ", "AE"),
    ("æ", "ae"),
    ("ß", "ss"),
    ("Œ", "OE"),
    ("œ", "oe"),
    ("Þ", "Th"),
    ("þ", "th"),
    ("Ĳ", "IJ"),
    ("ĳ", "ij"),
)

_TABLE = str.maketrans({**dict(zip(FOLD_FROM, FOLD_TO, strict=True)), **dict(FOLD_MULTI)})


def search_fold(text: str) -> str:
    """``text`` (NFC) with accented Latin letters folded to ASCII as the search vector's
    ``wove_search_fold`` folds them: ``"Grünberg, Łódź, Straße"`` gives ``"Grunberg, Lodz,
    Strasse"``. Other characters (Greek, CJK, punctuation, ``×``) are left as they are."""
    return unicodedata.normalize("NFC", text).translate(_TABLE)


def fold_function_sql() -> str:
    """The ``CREATE OR REPLACE FUNCTION wove_search_fold(text)`` statement for this table
    (IMMUTABLE and PARALLEL SAFE, so a generated column may use it).

    ASCII text is returned as it is, untouched by ``translate``: PostgreSQL's ``translate``
    looks each character up in the 380-letter table one by one, which made the function 0.5
    ms a paper, ten times the ``to_tsvector`` it feeds and most of a harvest's database time
    (issue 29); most titles and abstracts are ASCII (TeX accents are written as commands),
    and ``octet_length = length`` (UTF-8 bytes against characters) tells them apart in one
    pass. The result is the same for every text (papers migration 0017)."""
    body = f"translate($1, {_literal(FOLD_FROM)}, {_literal(FOLD_TO)})"
    for old, new in FOLD_MULTI:
        body = f"replace({body}, {_literal(old)}, {_literal(new)})"
    body = f"CASE WHEN octet_length($1) = length($1) THEN $1 ELSE {body} END"
    return (
        "CREATE OR REPLACE FUNCTION wove_search_fold(text) RETURNS text "
        f"LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fold$ SELECT {body} $fold$"
    )


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
