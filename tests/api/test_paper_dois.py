"""The API's ``dois`` (every DOI, in arXiv's order) and ``doi`` (the first), issue 18.

On the real sample loaded by tests/api/conftest.py; the DOIs read by hand from the files:
0704.0389 (Kaggle line: a Phys. Rev. D article and two errata), 0801.4125 (OAI arXivRaw),
0704.0001 (one DOI), 0704.0002 (none).
"""

from __future__ import annotations

THREE = ["10.1103/PhysRevD.75.124007", "10.1103/PhysRevD.82.029901", "10.1103/PhysRevD.82.129903"]


def test_detail_gives_every_doi_and_the_first_as_doi(api):
    body = api.get("/api/v1/papers/0704.0389").json()
    assert body["dois"] == THREE
    assert body["doi"] == "10.1103/PhysRevD.75.124007"
    assert body["arxiv_doi"] == "10.48550/arXiv.0704.0389"
    raw = api.get("/api/v1/papers/0801.4125").json()
    assert (raw["doi"], raw["dois"]) == (
        "10.1140/epja/i2008-10623-5",
        ["10.1140/epja/i2008-10623-5", "10.1140/epja/i2008-10678-2"],
    )


def test_one_doi_or_none(api):
    one = api.get("/api/v1/papers/0704.0001").json()
    assert (one["doi"], one["dois"]) == ("10.1103/PhysRevD.76.013009", ["10.1103/PhysRevD.76.013009"])
    none = api.get("/api/v1/papers/0704.0002").json()
    assert (none["doi"], none["dois"]) == ("", [])


def test_list_items_carry_dois_too(api):
    body = api.post("/api/v1/papers/batch", {"ids": ["0704.0389"]}, content_type="application/json").json()
    paper = body["results"][0]["paper"]
    assert (paper["doi"], paper["dois"]) == ("10.1103/PhysRevD.75.124007", THREE)


def test_schema_documents_doi_as_the_first_of_dois(api):
    schemas = api.get("/api/v1/openapi.json").json()["components"]["schemas"]
    fields = schemas["PaperOut"]["properties"]
    assert fields["doi"]["description"].startswith("The first of `dois`")
    assert fields["dois"]["type"] == "array"
    assert fields["dois"]["items"]["type"] == "string"
