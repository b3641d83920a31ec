"""Loading ROR records: upsert on ROR ID, no-op reloads, newer data in place, v1 and v2."""

from __future__ import annotations

import zipfile

from django.core.management import call_command

from institutions.models import Institution, InstitutionName, InstitutionRelationship
from institutions.services import institutions_load

from .conftest import ROR_DUMP, ROR_FIXTURES

V2 = ROR_FIXTURES / "records_v2"
V1 = ROR_FIXTURES / "records_v1"


def test_dump_loads_40_institutions_with_names_and_relationships(db):
    result = institutions_load(paths=[ROR_DUMP])
    assert (result.seen, result.created, result.skipped) == (40, 40, 0)
    mit = Institution.objects.get(ror_id="042nb2s44")
    assert mit.name == "Massachusetts Institute of Technology"
    assert mit.slug == "massachusetts-institute-of-technology"
    assert (mit.city, mit.country_code, mit.country_name) == ("Cambridge", "US", "United States")
    assert mit.website == "https://web.mit.edu"
    assert mit.ror_url == "https://ror.org/042nb2s44"
    assert sorted(mit.names.values_list("kind", "value")) == [
        ("acronym", "MIT"),
        ("label", "Instituto Tecnológico de Massachusetts"),
        ("label", "Massachusetts Institute of Technology"),
        ("ror_display", "Massachusetts Institute of Technology"),
    ]
    assert mit.external_id("grid") == "grid.116068.8"
    mpi = Institution.objects.get(ror_id="04fq9j139")
    assert mpi.related_ror_ids("parent") == ["01hhn8329"]
    # CNRS lists ~1,000 children: all kept.
    assert (
        InstitutionRelationship.objects.filter(institution__ror_id="02feahw73", type="child").count() == 1019
    )


def test_reloading_unchanged_data_writes_nothing(db):
    institutions_load(paths=[ROR_DUMP])
    before = dict(Institution.objects.values_list("ror_id", "modified_at"))
    name_ids = set(InstitutionName.objects.values_list("pk", flat=True))
    result = institutions_load(paths=[ROR_DUMP])
    assert (result.created, result.updated, result.unchanged) == (0, 0, 40)
    assert dict(Institution.objects.values_list("ror_id", "modified_at")) == before
    assert set(InstitutionName.objects.values_list("pk", flat=True)) == name_ids


def test_newer_record_updates_in_place_and_older_one_is_kept_out(db):
    institutions_load(paths=[V2 / "00wh4bp03.json"])
    pk = Institution.objects.get(ror_id="00wh4bp03").pk
    result = institutions_load(paths=[ROR_FIXTURES / "edited_00wh4bp03_newer_with_acronym.json"])
    assert result.updated == 1
    updated = Institution.objects.get(ror_id="00wh4bp03")
    assert updated.pk == pk
    assert str(updated.record_modified) == "2025-03-01"
    assert list(updated.names.filter(kind="acronym").values_list("value", flat=True)) == ["UM2"]
    # An older record (2023-04-12, edited to say active) never overwrites the newer one.
    result = institutions_load(paths=[ROR_FIXTURES / "edited_00wh4bp03_older_active.json"])
    assert (result.updated, result.stale) == (0, 1)
    assert Institution.objects.get(ror_id="00wh4bp03").status == "inactive"


def test_v1_records_load_and_v2_supersedes_them(db):
    result = institutions_load(paths=sorted(V1.glob("*.json")))
    assert result.created == 5
    cern = Institution.objects.get(ror_id="01ggx4157")
    assert cern.schema_version == "1.0"
    assert list(cern.names.filter(kind="acronym").values_list("value", flat=True)) == ["CERN"]
    assert cern.external_id("grid") == "grid.9132.9"
    result = institutions_load(paths=[V2 / "01ggx4157.json"])
    assert result.updated == 1
    cern.refresh_from_db()
    assert cern.schema_version == "2.1"
    assert str(cern.record_modified) == "2026-06-23"
    # Reloading the undated v1 record does not undo the dated v2 one.
    assert institutions_load(paths=[V1 / "01ggx4157.json"]).stale == 1


def test_zip_dump_and_bad_records(db, tmp_path):
    archive = tmp_path / "ror-data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(ROR_DUMP, "v1.99-ror-data_schema_v2.json")
    assert institutions_load(paths=[archive]).created == 40
    result = institutions_load(paths=[ROR_FIXTURES / "edited_dump_with_bad_records.json"])
    assert (result.seen, result.unchanged, result.skipped) == (4, 1, 3)


def test_load_ror_command_prints_one_summary_line(db, capsys):
    call_command("load_ror", "--file", str(ROR_DUMP), "--no-progress")
    assert capsys.readouterr().out.strip() == (
        "40 ROR records seen: 40 created, 0 updated, 0 unchanged, 0 older than stored (kept), 0 skipped"
    )
