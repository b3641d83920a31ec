"""The API's institution list holds every ROR record loaded, and says where a retired one
leads (issue 32: /api/v1/institutions counted 40 where /institutions lists 38, with no
pointer from Université Paris-Sud and Université Montpellier 2 to their successors)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_retired_records_name_their_successor(client):
    call_command("load_ror", "--no-progress", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    body = client.get("/api/v1/institutions", {"size": 100}).json()
    assert body["count"] == 40
    retired = {i["name"]: i["successor_ror_id"] for i in body["items"] if i["status"] != "active"}
    active = {i["ror_id"]: i["name"] for i in body["items"] if i["status"] == "active"}
    assert set(retired) == {"Université Paris-Sud", "Université Montpellier 2"}
    # Each leads to an active record of the list (Paris-Saclay and Montpellier, by ROR).
    assert all(ror in active for ror in retired.values())
    assert sum(1 for i in body["items"] if i["successor_ror_id"] is None) == 38
    assert client.get("/api/v1/institutions", {"status": "active"}).json()["count"] == 38
