"""Properties of the OAI-PMH and Kaggle parsers: one malformed record (a broken XML fragment,
a control character, bytes that are not UTF-8, an oversized field) is reported by its
identifier, and every other record on the page is kept."""

from __future__ import annotations

import io
import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from papers.kaggle import iter_kaggle
from papers.oai import OaiError, OaiResponseError, parse_oai_response
from papers.records import ArxivRecord, RecordError

PROPERTY = settings(max_examples=60, deadline=None)

HEAD = (
    b"<?xml version='1.0' encoding='UTF-8'?>\n"
    b"<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'>"
    b"<responseDate>2014-01-16T10:33:29Z</responseDate>"
    b"<request verb='ListRecords' metadataPrefix='arXivRaw'>http://export.arxiv.org/oai2</request>"
    b"<ListRecords>\n"
)
TAIL = (
    b"<resumptionToken cursor='0' completeListSize='900'>496549|1001</resumptionToken>"
    b"</ListRecords></OAI-PMH>\n"
)

# What a bad record holds in place of its title: (XML bytes, why it is bad).
BAD_TITLES = {
    "fragment": b"Spins <b>unclosed",
    "mismatched tag": b"Spins</titel>",
    "control character": b"Spins \x01 and \x1b[31m",
    "NUL": b"Spins \x00",
    "bad UTF-8": b"Spins \xff\xfe\xc3(",
    "bare ampersand": b"Spins & strings",
    "oversized title": b"x" * 600_000,
    "undefined entity": b"Spins &nbsp;",
}


def _record(
    number: int, title: bytes = b"Variational Functionals for Excited States", categories: bytes = b"quant-ph"
) -> bytes:
    ident = b"0801.%04d" % number
    return (
        b"<record><header><identifier>oai:arXiv.org:" + ident + b"</identifier>"
        b"<datestamp>2008-01-25</datestamp><setSpec>physics:quant-ph</setSpec></header><metadata>"
        b"<arXivRaw xmlns='http://arxiv.org/OAI/arXivRaw/'><id>" + ident + b"</id>"
        b"<version version='v1'><date>Wed, 23 Jan 2008 21:06:41 GMT</date><size>121kb</size></version>"
        b"<title>" + title + b"</title><authors>Naoum C. Bacalis (Athens)</authors>"
        b"<categories>" + categories + b"</categories><abstract>  Functionals with local minima.</abstract>"
        b"</arXivRaw></metadata></record>\n"
    )


def _page(count: int, bad_at: int, bad: bytes, *, bad_categories: bytes = b"quant-ph") -> bytes:
    records = [
        _record(3673 + i, bad, bad_categories) if i == bad_at else _record(3673 + i) for i in range(count)
    ]
    return HEAD + b"".join(records) + TAIL


@PROPERTY
@given(
    st.integers(2, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))),
    st.sampled_from(sorted(BAD_TITLES)),
)
@example((3, 1), "fragment")  # lxml's recovery lost this record's header, so its identifier
@example((3, 1), "control character")  # recovery kept the record with the character dropped
@example((3, 1), "bad UTF-8")  # recovery kept the record with the bytes dropped
@example((3, 1), "oversized title")  # the title was cut at 5,000 characters without a word
def test_one_bad_record_is_reported_and_the_others_kept(shape, kind):
    count, bad_at = shape
    page = parse_oai_response(_page(count, bad_at, BAD_TITLES[kind]))
    bad_id = f"0801.{3673 + bad_at:04d}"
    good = [f"0801.{3673 + i:04d}" for i in range(count) if i != bad_at]
    assert [r.arxiv_id for r in page.records] == good
    assert [e.identifier for e in page.errors] == [bad_id]
    assert page.resumption_token == "496549|1001" and page.complete_list_size == 900
    assert all(r.title == "Variational Functionals for Excited States" for r in page.records)


def test_category_code_wider_than_its_column_is_reported():
    # A 40-character "category" used to reach the Category table's varchar(32) and fail the
    # whole page's write.
    page = parse_oai_response(_page(3, 2, b"Title", bad_categories=b"quant-ph " + b"q" * 40))
    assert [r.arxiv_id for r in page.records] == ["0801.3673", "0801.3674"]
    assert [(e.identifier, e.reason) for e in page.errors] == [
        ("0801.3675", "a category code is 40 characters long (limit 32)")
    ]


def test_record_cut_off_at_the_end_is_the_only_loss():
    data = _page(3, -1, b"")[: -len(TAIL)]
    page = parse_oai_response(data + _record(3700)[:150])
    assert [r.arxiv_id for r in page.records] == ["0801.3673", "0801.3674", "0801.3675"]
    assert [e.identifier for e in page.errors] == ["0801.3700"]
    assert page.recovered


def _kaggle_line(number: int, title: str = "Calculation of prompt diphoton production") -> bytes:
    return (
        json.dumps(
            {
                "id": f"0704.{number:04d}",
                "authors": "C. Balázs, E. L. Berger",
                "title": title,
                "categories": "hep-ph",
                "abstract": "A fully differential calculation.",
                "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
                "update_date": "2008-11-13",
            },
            ensure_ascii=False,
        ).encode()
        + b"\n"
    )


KAGGLE_BAD = {
    "bad UTF-8": lambda n: _kaggle_line(n).replace("Balázs".encode(), b"Bal\xe1zs"),
    "raw control character": lambda n: _kaggle_line(n, "prompt CTRL diphoton").replace(b"CTRL", b"\x01"),
    "truncated JSON": lambda n: _kaggle_line(n)[:60] + b"\n",
    "oversized title": lambda n: _kaggle_line(n, "t" * 6000),
    "not an object": lambda n: b'["0704.%04d"]\n' % n,
}


@PROPERTY
@given(
    st.integers(2, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))),
    st.sampled_from(sorted(KAGGLE_BAD)),
)
@example((3, 1), "bad UTF-8")  # was kept with U+FFFD in the author name
def test_one_bad_kaggle_line_is_reported_and_the_others_kept(shape, kind):
    count, bad_at = shape
    lines = [KAGGLE_BAD[kind](i + 1) if i == bad_at else _kaggle_line(i + 1) for i in range(count)]
    results = list(iter_kaggle(io.BytesIO(b"".join(lines))))
    assert [r.arxiv_id for r in results if isinstance(r, ArxivRecord)] == [
        f"0704.{i + 1:04d}" for i in range(count) if i != bad_at
    ]
    errors = [r for r in results if isinstance(r, RecordError)]
    assert len(errors) == 1
    if kind not in ("truncated JSON", "not an object"):
        assert errors[0].identifier == f"0704.{bad_at + 1:04d}"


@PROPERTY
@given(
    st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.sampled_from(
                [b"<", b">", b"&", b"\x00", b"\xff", b"</record>", b"<record>", b"]]>", b"'", b""]
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
@example([(0, b"\xff")])  # before the XML declaration
@example([(200, b"<record>")])  # a record start inside the envelope
def test_any_damage_gives_records_errors_or_a_named_error(edits):
    data = bytearray(_page(4, -1, b""))
    for position, insert in sorted(edits, reverse=True):
        position %= len(data)
        data[position : position + 1] = insert
    try:
        page = parse_oai_response(bytes(data))
    except (OaiError, OaiResponseError):
        return
    assert len(page.records) + len(page.errors) >= 1 or page.recovered
    assert len({r.arxiv_id for r in page.records}) == len(page.records)


@PROPERTY
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "id",
                "title",
                "authors",
                "categories",
                "versions",
                "authors_parsed",
                "update_date",
                "abstract",
                "doi",
            ]
        ),
        st.none()
        | st.booleans()
        | st.integers()
        | st.text(max_size=20)
        | st.lists(
            st.text(max_size=5)
            | st.dictionaries(st.text(max_size=8), st.text(max_size=8))
            | st.lists(st.text(max_size=5)),
            max_size=3,
        ),
    )
)
@example({"id": "0704.0001", "title": "T", "categories": "hep-th", "versions": ["v1"]})
@example(
    {
        "id": "0704.0001",
        "title": "T",
        "categories": "hep-th",
        "authors_parsed": [[None, "A"]],
        "authors": "A, B",
    }
)
@example({"id": "0704.0001", "title": ["T"], "categories": "hep-th"})
def test_any_kaggle_object_gives_a_record_or_an_error(data):
    results = list(iter_kaggle(io.BytesIO(json.dumps(data).encode() + b"\n")))
    assert len(results) == 1 and isinstance(results[0], (ArxivRecord, RecordError))
