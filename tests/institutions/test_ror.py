"""ROR IDs (forms, check digits) and reading ROR records of schema v1 and v2."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from institutions.ror import (
    InvalidRecord,
    InvalidRorId,
    is_ror_id,
    iter_json_values,
    iter_raw_records,
    iter_records,
    normalize_ror_id,
    parse_record,
    ror_checksum,
)

from .conftest import ROR_DUMP, ROR_FIXTURES


@pytest.mark.parametrize(
    "value",
    [
        "https://ror.org/03yrm5c26",
        "http://ror.org/03yrm5c26",
        "ror.org/03yrm5c26",
        "03yrm5c26",
        " 03YRM5C26 ",
        "https://ror.org/03yrm5c26/",
    ],
)
def test_ror_id_forms_normalise_to_the_bare_id(value):
    assert normalize_ror_id(value) == "03yrm5c26"


def test_ror_checksum_by_hand():
    # "3yrm5c" in Crockford base32 is 3*32^5 + 30*32^4 + 24*32^3 + 20*32^2 + 5*32 + 12
    # = 132,927,660; 132,927,660 * 100 mod 97 = 72; 98 - 72 = 26.
    assert ror_checksum("3yrm5c") == "26"
    assert ror_checksum("42nb2s") == "44"  # MIT, https://ror.org/042nb2s44


@pytest.mark.parametrize(
    "value",
    [
        "03yrm5c27",  # wrong check digits
        "13yrm5c26",  # must start with 0
        "03yrm5c2",  # too short
        "03yrl5c26",  # "l" is not in Crockford base32
        "https://example.org/03yrm5c26",
        "",
    ],
)
def test_invalid_ror_ids_are_refused(value):
    with pytest.raises(InvalidRorId):
        normalize_ror_id(value)
    assert not is_ror_id(value)


def test_every_shipped_record_has_a_valid_id():
    records = json.loads(ROR_DUMP.read_text())
    assert len(records) == 40
    assert all(is_ror_id(r["id"]) for r in records)


def test_v2_inactive_record_with_successor():
    record = parse_record(json.loads((ROR_FIXTURES / "records_v2" / "00wh4bp03.json").read_text()))
    assert record.ror_id == "00wh4bp03"
    assert record.name == "Université Montpellier 2"
    assert record.status == "inactive"
    assert [(r.type, r.ror_id, r.label) for r in record.relationships] == [
        ("successor", "051escj72", "Université de Montpellier")
    ]
    assert sorted(n.value for n in record.names if n.kind == "alias") == [
        "Montpellier 2 University",
        "Montpellier II University",
        "Université de Montpellier II",
    ]
    assert {(n.value, n.lang) for n in record.names if n.kind == "label"} == {
        ("University of Montpellier 2", "en"),
        ("Université Montpellier 2", "fr"),
    }
    assert (record.city, record.country_code, record.country_name) == ("Montpellier", "FR", "France")
    assert record.external_ids["isni"] == {"preferred": "0000 0001 2097 0141", "all": ["0000 0001 2097 0141"]}
    assert record.external_ids["wikidata"]["all"] == ["Q902688"]
    assert record.types == ["education"]
    assert record.established == 1970
    assert str(record.last_modified) == "2024-07-11"


def test_v2_record_links_and_acronym_typed_as_label():
    record = parse_record(json.loads((ROR_FIXTURES / "records_v2" / "01ggx4157.json").read_text()))
    assert record.name == "European Organization for Nuclear Research"
    # ROR types CERN as a French label, not an acronym, in this record.
    assert ("CERN", "label", "fr") in {(n.value, n.kind, n.lang) for n in record.names}
    assert record.website == "https://home.web.cern.ch"
    assert record.wikipedia_url == "https://en.wikipedia.org/wiki/CERN"
    assert record.country_code == "CH"


def test_v1_record_reads_into_the_same_shape():
    record = parse_record(json.loads((ROR_FIXTURES / "records_v1" / "01ggx4157.json").read_text()))
    assert record.ror_id == "01ggx4157"
    assert record.schema_version == "1.0"
    assert record.last_modified is None
    assert record.name == "European Organization for Nuclear Research"
    assert [n.value for n in record.names if n.kind == "acronym"] == ["CERN"]
    assert {(n.value, n.lang) for n in record.names if n.kind == "label" and n.lang} == {
        ("Europäische Organisation für Kernforschung", "de"),
        ("Organisation européenne pour la recherche nucléaire", "fr"),
    }
    assert record.types == ["facility", "funder"]
    assert (record.city, record.country_code) == ("Geneva", "CH")
    assert record.external_ids["grid"] == {"preferred": "grid.9132.9", "all": ["grid.9132.9"]}
    assert record.external_ids["fundref"]["preferred"] == "100012470"
    assert {(r.type, r.ror_id) for r in record.relationships} == {
        ("child", "012fftw39"),
        ("related", "01t0a1151"),
    }
    assert record.website == "https://home.web.cern.ch"


def test_v1_tokyo_aliases_in_japanese_scripts():
    record = parse_record(json.loads((ROR_FIXTURES / "records_v1" / "057zh3y96.json").read_text()))
    assert record.name == "The University of Tokyo"
    assert "Tōkyō Daigaku" in {n.value for n in record.names if n.kind == "alias"}


def test_unreadable_records_raise():
    with pytest.raises(InvalidRecord):
        parse_record(
            {"id": "https://ror.org/05c22rx27", "names": [{"value": "Mila", "types": ["ror_display"]}]}
        )
    with pytest.raises(InvalidRecord):
        parse_record("not a record")


def test_streaming_reader_matches_json_load_with_tiny_chunks():
    expected = json.loads(ROR_DUMP.read_text())
    with ROR_DUMP.open() as stream:
        streamed = list(iter_json_values(stream, chunk_size=997))
    assert streamed == expected


def test_reader_accepts_a_single_record_and_a_zip(tmp_path):
    single = list(iter_raw_records(ROR_FIXTURES / "records_v2" / "051escj72.json"))
    assert [r["id"] for r in single] == ["https://ror.org/051escj72"]
    archive = tmp_path / "v1.99-2026-01-01-ror-data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(ROR_DUMP, "v1.99-2026-01-01-ror-data_schema_v2.json")
        zf.writestr("v1.99-2026-01-01-ror-data.json", "[]")  # the v1 file is ignored
    assert len(list(iter_raw_records(archive))) == 40


def test_bad_records_in_a_dump_are_skipped_and_reported():
    errors: list[str] = []
    records = list(iter_records([ROR_FIXTURES / "edited_dump_with_bad_records.json"], errors=errors))
    assert [r.ror_id for r in records] == ["05c22rx21"]
    assert len(errors) == 3
    assert any("check digits" in e for e in errors)


def test_empty_array_and_whitespace():
    assert list(iter_json_values(io.StringIO("  [ ]  "))) == []
    assert list(iter_json_values(io.StringIO(""))) == []


def test_only_http_links_are_kept():
    data = json.loads((ROR_FIXTURES / "records_v2" / "01ggx4157.json").read_text())
    data["links"] = [
        {"type": "website", "value": "javascript:alert(1)"},
        {"type": "website", "value": "https://home.web.cern.ch"},
    ]
    record = parse_record(data)
    assert (record.website, record.links, record.wikipedia_url) == (
        "https://home.web.cern.ch",
        ["https://home.web.cern.ch"],
        "",
    )
