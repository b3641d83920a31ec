"""Provenance bundle/state of a paper and the search across kinds."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_bundle_and_state_of_a_signed_paper(api):
    from provenance.verify import verify_bundle

    detail = api.get("/api/v1/papers/0704.0001").json()
    response = api.get("/api/v1/papers/arXiv:0704.0001v1/provenance/bundle")
    assert response.status_code == 200
    bundle = response.json()
    assert bundle["pith_number"] == detail["provenance"]["pith_number"]
    # The current record is the latest version's (v2 of two).
    assert bundle["source"] == {"kind": "arxiv", "id": "0704.0001", "version": 2}
    assert verify_bundle(bundle).ok
    state = api.get("/api/v1/papers/0704.0001/provenance/state").json()
    assert state["pith_number"] == bundle["pith_number"]
    assert state["state_sha256"] == bundle["state"]["state_sha256"]
    assert (state["event_count"], state["valid_event_count"]) == (2, 2)  # record_created, graph_snapshot


def test_unsigned_unknown_and_deleted(api):
    response = api.get("/api/v1/papers/0704.0002/provenance/bundle")
    assert response.status_code == 404
    assert response.json()["detail"] == "0704.0002 has no signed provenance record yet."
    assert api.get("/api/v1/papers/0704.9999/provenance/state").status_code == 404
    assert api.get("/api/v1/papers/0801.3674/provenance/state").status_code == 410


def test_search_across_kinds(api):
    body = api.get("/api/v1/search", {"q": "caltech"}).json()
    assert body["institutions"]["count"] == 1
    assert body["institutions"]["items"][0]["ror_id"] == "05dxps055"
    assert body["researchers"]["count"] == 0
    body = api.get("/api/v1/search", {"q": "strominger", "kinds": ["researchers", "papers"]}).json()
    assert body["institutions"] is None
    assert [r["name"] for r in body["researchers"]["items"]] == ["Andrew Strominger"]
    # Author names are in the papers' search vector (weight B) when the column exists.
    assert "0801.4566" in [p["arxiv_id"] for p in body["papers"]["items"]] or body["papers"]["count"] == 0
    body = api.get("/api/v1/search", {"q": "chiral gravity", "kinds": "papers", "limit": 1}).json()
    assert body["papers"]["items"][0]["arxiv_id"] == "0801.4566"
    assert api.get("/api/v1/search").status_code == 422


def test_search_query_count(api, django_assert_num_queries):
    with django_assert_num_queries(6):  # count + hits, for each of three kinds
        api.get("/api/v1/search", {"q": "gravity"})
