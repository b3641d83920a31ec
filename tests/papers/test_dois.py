"""Several DOIs in one field (issue 18): split at ingest in every input format, stored as a
list in the order written, hashed so that papers with one DOI stay as they were.

The expected DOIs were read by hand from the sample files in data/arxiv/ (the ``<doi>``
element of the OAI records, the ``doi`` key of the Kaggle lines) and from
tests/fixtures/arxiv_api/.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papers.arxiv_api import parse_feed
from papers.identifiers import doi_url, split_dois
from papers.kaggle import iter_kaggle
from papers.models import Paper
from papers.oai import parse_oai_response
from papers.records import FieldTooLong, doi_field
from papers.upsert import papers_upsert
from tests.conftest import FIXTURES, SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

API_TWO_DOIS = FIXTURES / "arxiv_api" / "edited_arxivpy2016_id_list_1111.2011v2_two_dois.xml"

# The sample's ten papers whose doi field holds several DOIs, and what each holds (by hand
# from the files; 0704.0389's Kaggle value has a newline and two spaces before its third).
SEVERAL = {
    # OAI arXiv format, arxivsync_436115-5001.xml
    "0705.0020": ["10.1086/520497", "10.1088/0004-637X/704/2/1743"],
    "0705.0408": ["10.1007/s10714-007-0468-5", "10.1142/S0218271808012413"],
    "0705.0464": ["10.1063/1.2775909", "10.1063/1.3002500"],
    "0705.0477": ["10.1103/PhysRevD.76.074005", "10.1103/PhysRevD.84.039901"],
    "0705.0646": ["10.1016/j.physletb.2007.06.042", "10.1016/j.physletb.2007.11.014"],
    "0705.0786": ["10.1002/pssc.200790003", "10.1002/pssc.200673205"],
    # OAI arXivRaw format, arxivsync_47001.xml
    "0801.4125": ["10.1140/epja/i2008-10623-5", "10.1140/epja/i2008-10678-2"],
    # Kaggle lines
    "0704.0221": ["10.1007/s10714-007-0472-9", "10.1142/S0218271808012449"],
    "0704.0389": ["10.1103/PhysRevD.75.124007", "10.1103/PhysRevD.82.029901", "10.1103/PhysRevD.82.129903"],
    "0704.0471": ["10.1103/PhysRevC.76.024606", "10.1103/PhysRevC.76.039902"],
}

# content_hash of real records as the code before this change computed it (commit dfa039a,
# the whole sample harvested); the DOI each holds is shown. One DOI or none: unchanged.
HASHES_BEFORE = {
    "0704.4002": (
        "46f3af0ea08c650592e552c96969c332227dfa6cb14d20a58b8d4f9e5122b225",
        "10.1112/jtopol/jtn021",
    ),
    "0704.4001": ("283531015b4069568859cc7bdb9cf80ae741d96c6dfe346207247fe3c8f54d78", ""),
    "0801.3674": (
        "5bd2b09f69beffdb2e9a3edb045026c4da641acb97fe82fced3b2af9f9a027ec",
        "10.1103/PhysRevD.78.083502",
    ),
    "0801.4566": (
        "02b89b1d1bc45343d315f70e8f1d6a9054603c1d4363d0a0e72aadfd8c69ff53",
        "10.1088/1126-6708/2008/04/082",
    ),
    "0704.0001": (
        "2301a1a3f138ca1e5d0648e33bd1762bb8355ddec91c878c8ac59981f001da1d",
        "10.1103/PhysRevD.76.013009",
    ),
    "0704.0002": ("6e7475db8e6dbf897a73351d84fecdc4856e6ef69cfe3d41f1e46a43be923a1c", ""),
}
# The same for three papers with several DOIs, hashed from the joined string.
JOINED_HASHES_BEFORE = {
    "0705.0020": "164a033e21ae9212e1366ac76f6e4508c7563407edcb75508287990bbb40343f",
    "0801.4125": "800d4bf9c8baf92e64dbb915168a3c4e63b11f7e2950bb24bb2498e7323e8832",
    "0704.0389": "97333820499401017353a25935be04d9674b164bd9f01ebcc4cd68e7efda38a0",
}


@pytest.fixture(scope="module")
def sample_records():
    """Every record of the bundled sample, parsed by each format's parser, by arXiv id."""
    records = {}
    for path in (SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW):
        records.update({r.arxiv_id: r for r in parse_oai_response(str(path)).records})
    with open(SAMPLE_KAGGLE, "rb") as stream:
        records.update({r.arxiv_id: r for r in iter_kaggle(stream)})
    return records


@pytest.mark.parametrize(
    ("field", "dois"),
    [
        ("10.1103/PhysRevD.76.013009", ["10.1103/PhysRevD.76.013009"]),
        ("10.1086/520497 10.1088/0004-637X/704/2/1743", ["10.1086/520497", "10.1088/0004-637X/704/2/1743"]),
        ("10.1063/1.2775909, 10.1063/1.3002500", ["10.1063/1.2775909", "10.1063/1.3002500"]),
        ("10.1063/1.2775909;10.1063/1.3002500", ["10.1063/1.2775909", "10.1063/1.3002500"]),
        ("doi:10.1063/1.2775909 DOI: 10.1063/1.3002500", ["10.1063/1.2775909", "10.1063/1.3002500"]),
        (
            "https://doi.org/10.1086/520497 http://dx.doi.org/10.1086/520498",
            ["10.1086/520497", "10.1086/520498"],
        ),
        # Duplicates (DOIs compare case-insensitively): the first as written wins.
        ("10.1103/PhysRevD.76.074005 10.1103/physrevd.76.074005", ["10.1103/PhysRevD.76.074005"]),
        # A registrant code with a subdivision; a trailing separator.
        ("10.1000.10/123456, ", ["10.1000.10/123456"]),
        # Wiley's SICI suffixes hold ";" and "<>": no new DOI follows, so one DOI.
        (
            "10.1002/(SICI)1097-4636(199812)43:4<438::AID-JBM12>3.0.CO;2-1",
            ["10.1002/(SICI)1097-4636(199812)43:4<438::AID-JBM12>3.0.CO;2-1"],
        ),
        # Not a DOI: kept as written, never dropped.
        ("to appear", ["to appear"]),
        ("", []),
    ],
)
def test_split_dois(field, dois):
    assert split_dois(field) == dois


_DOIS = st.builds(
    lambda registrant, suffix: f"10.{registrant}/{suffix}",
    st.from_regex(r"[0-9]{4,5}(\.[0-9]{1,3})?", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9.\-_()/:<>]{0,30}", fullmatch=True),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(_DOIS, st.sampled_from(["", "doi:", "DOI: ", "https://doi.org/"])), min_size=1, max_size=5
    ),
    st.lists(st.sampled_from([" ", ", ", ";", " ; ", "\n  ", ","]), min_size=5, max_size=5),
)
def test_split_dois_gives_back_any_joined_list(items, separators):
    """Any DOIs, prefixed or not, joined by any separators come back in order, each once."""
    field = "".join(prefix + doi + sep for (doi, prefix), sep in zip(items, separators, strict=False))
    expected: list[str] = []
    for doi, _ in items:
        if doi.casefold() not in {e.casefold() for e in expected}:
            expected.append(doi)
    assert doi_field(field) == expected


def test_doi_url_is_path_safe():
    """DOI Handbook, "DOI Name Encoding Rules for URL Presentation": %, ", #, space, ? must
    be encoded, <, > and + should; "/" and ";" stay."""
    assert doi_url("10.1088/0004-637X/704/2/1743") == "https://doi.org/10.1088/0004-637X/704/2/1743"
    assert doi_url("10.1000/456#789") == "https://doi.org/10.1000/456%23789"
    assert doi_url("10.1002/(SICI)1097-4636(199812)43:4<438::AID-JBM12>3.0.CO;2-1") == (
        "https://doi.org/10.1002/(SICI)1097-4636(199812)43:4%3C438::AID-JBM12%3E3.0.CO;2-1"
    )
    assert doi_url("10.1000/a b?c%d+e") == "https://doi.org/10.1000/a%20b%3Fc%25d%2Be"


def test_doi_field_refuses_a_doi_over_its_column():
    with pytest.raises(FieldTooLong, match="doi is 201 characters long"):
        doi_field("10.1000/" + "x" * 193)
    assert doi_field("10.1000/" + "x" * 192 + " 10.1000/y") == ["10.1000/" + "x" * 192, "10.1000/y"]


def test_every_format_splits_the_sample_records(sample_records):
    """OAI arXiv, OAI arXivRaw and Kaggle: the ten several-DOI records of the sample."""
    assert {arxiv_id: sample_records[arxiv_id].dois for arxiv_id in SEVERAL} == SEVERAL
    assert sample_records["0705.0020"].source == "arXiv"
    assert sample_records["0801.4125"].source == "arXivRaw"
    assert sample_records["0704.0389"].source == "kaggle"
    several = sorted(arxiv_id for arxiv_id, record in sample_records.items() if len(record.dois) > 1)
    assert several == sorted(SEVERAL)


def test_the_arxiv_api_format_splits_too():
    """The recorded API answer for 1111.2011v2, edited to list a second DOI (no recorded
    API answer holds several)."""
    (record,) = parse_feed(API_TWO_DOIS.read_bytes())
    assert record.dois == ["10.1103/PhysRevB.85.115117", "10.1103/PhysRevB.85.119901"]


@pytest.mark.django_db
def test_stored_in_order_with_doi_the_first(sample_records):
    papers_upsert(records=[sample_records[i] for i in ("0704.0389", "0704.4002", "0704.4001")])
    paper = Paper.objects.get(arxiv_id="0704.0389")
    assert paper.dois == SEVERAL["0704.0389"]
    assert paper.doi == "10.1103/PhysRevD.75.124007"
    assert Paper.objects.get(arxiv_id="0704.4002").dois == ["10.1112/jtopol/jtn021"]
    assert Paper.objects.get(arxiv_id="0704.4001").doi == ""


@pytest.mark.django_db
def test_one_doi_hashes_exactly_as_before(sample_records):
    """Re-harvesting the sample leaves papers with one DOI (or none) unchanged: their
    content_hash is the one the code before the list computed."""
    result = papers_upsert(records=[sample_records[i] for i in HASHES_BEFORE])
    assert result.written == len(HASHES_BEFORE)
    stored = {p.arxiv_id: (p.content_hash, p.doi) for p in Paper.objects.filter(arxiv_id__in=HASHES_BEFORE)}
    assert stored == HASHES_BEFORE


@pytest.mark.django_db
def test_a_split_paper_is_rewritten_once_the_others_not(sample_records):
    """As after migration 0008 (the DOIs split, content_hash still the joined string's), a
    re-harvest writes the papers whose DOIs were split, and only those, once."""
    ids = [*HASHES_BEFORE, *JOINED_HASHES_BEFORE]
    papers_upsert(records=[sample_records[i] for i in ids])
    for arxiv_id, old_hash in JOINED_HASHES_BEFORE.items():
        assert Paper.objects.get(arxiv_id=arxiv_id).content_hash != old_hash
        Paper.objects.filter(arxiv_id=arxiv_id).update(content_hash=old_hash)

    again = papers_upsert(records=[sample_records[i] for i in ids])
    assert sorted(again.written_ids) == sorted(JOINED_HASHES_BEFORE)
    assert again.unchanged == len(HASHES_BEFORE)
    assert papers_upsert(records=[sample_records[i] for i in ids]).written == 0


@pytest.mark.django_db
def test_a_change_of_the_doi_list_is_a_change(sample_records):
    """An erratum DOI added later, or the order changed, is a new stored value."""
    record = copy.copy(sample_records["0705.0477"])
    papers_upsert(records=[record])
    record.dois = ["10.1103/PhysRevD.76.074005"]
    assert papers_upsert(records=[record]).written == 1
    record.dois = list(SEVERAL["0705.0477"])
    assert papers_upsert(records=[record]).written == 1
    record.dois = list(reversed(SEVERAL["0705.0477"]))
    assert papers_upsert(records=[record]).written == 1
    assert Paper.objects.get(arxiv_id="0705.0477").doi == "10.1103/PhysRevD.84.039901"


@pytest.mark.django_db
def test_admin_finds_a_paper_by_any_of_its_dois(sample_records, admin_client):
    papers_upsert(records=[sample_records[i] for i in ("0704.0389", "0704.0001")])
    for query in ("10.1103/PhysRevD.82.029901", "10.1103/PhysRevD.75.124007"):
        response = admin_client.get("/admin/papers/paper/", {"q": query})
        assert response.status_code == 200
        assert [p.arxiv_id for p in response.context["cl"].result_list] == ["0704.0389"]
    paper = Paper.objects.get(arxiv_id="0704.0389")
    page = admin_client.get(f"/admin/papers/paper/{paper.pk}/change/").content.decode()
    assert "10.1103/PhysRevD.75.124007, 10.1103/PhysRevD.82.029901, 10.1103/PhysRevD.82.129903" in page
