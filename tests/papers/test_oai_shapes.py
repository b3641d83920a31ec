"""A record in another shape is not lost (issue 18): an ``<arXiv>`` or ``<arXivRaw>`` element
that lacks its namespace is read by its name and shape, through the harvest's own entry point."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papers import harvest
from papers.models import Paper
from papers.oai import parse_oai_response

OAI = Path(__file__).resolve().parent.parent / "fixtures" / "arxiv" / "oai"
PROVENANCE = Path(__file__).resolve().parent.parent / "fixtures" / "provenance"
# hepcrawl's recorded sample: 12 records, the first one's <arXiv> without xmlns (so in the
# OAI namespace); the other 11 carry arXiv's namespace.
HEPCRAWL = OAI / "hepcrawl_sample_arxiv_record.xml"


@pytest.mark.django_db
def test_an_arxiv_element_without_its_namespace_is_harvested():
    run = harvest.harvest_files(paths=[HEPCRAWL])
    assert (run.records_seen, run.records_written, run.records_skipped) == (12, 12, 0)
    # The values below are read off the file's first record by hand.
    paper = Paper.objects.get(arxiv_id="1601.03238")
    assert paper.title == "Irreversible degradation of quantum coherence under relativistic motion"
    assert list(paper.authors.values_list("name", "is_collaboration")) == [
        ("Planck Collaboration", True),
        ("Jieci Wang", False),
        ("Zehua Tian", False),
        ("Jiliang Jing", False),
        ("Heng Fan", False),
    ]
    assert paper.categories == ["quant-ph", "gr-qc", "hep-th"]
    assert paper.doi == "10.1103/PhysRevD.93.016005"
    assert paper.license == "https://creativecommons.org/licenses/by/3.0/"
    assert paper.comments == "6 pages, 4 figures, conference paper"
    assert paper.submitted_at == datetime(2016, 1, 13, tzinfo=UTC) and paper.submitted_day_precision
    assert paper.oai_datestamp == date(2016, 1, 14)
    assert paper.authors_source == "arXiv"
    assert paper.abstract.startswith("We study the dynamics of quantum coherence under Unruh thermal noise")


def test_an_arxivraw_element_without_its_namespace_is_read_as_arxivraw():
    # The real arXivRaw record of 0801.3673 (provenance fixture, v2 added) with the
    # xmlns of its <arXivRaw> removed here, so it too falls in the OAI namespace.
    xml = (PROVENANCE / "edited_arXivRaw_0801.3673_v2.xml").read_bytes()
    page = parse_oai_response(xml.replace(b" xmlns='http://arxiv.org/OAI/arXivRaw/'", b""))
    assert page.errors == []
    [record] = page.records
    assert (record.arxiv_id, record.source, record.title) == (
        "0801.3673",
        "arXivRaw",
        "Variational Functionals for Excited States",
    )
    assert record.submitter == "N. C. Bacalis"
    assert [(v.version, v.size_kb) for v in record.versions] == [(1, 121), (2, 122)]


def test_an_element_of_another_shape_is_still_refused():
    # The same record with its <arXivRaw> renamed <arXiv> and no namespace: an arXiv-format
    # record always has <created>, this one has none, so it is not read as one.
    xml = (PROVENANCE / "edited_arXivRaw_0801.3673_v2.xml").read_bytes()
    xml = xml.replace(b" xmlns='http://arxiv.org/OAI/arXivRaw/'", b"")
    xml = xml.replace(b"<arXivRaw ", b"<arXiv ").replace(b"</arXivRaw>", b"</arXiv>")
    page = parse_oai_response(xml)
    assert page.records == []
    [error] = page.errors
    assert error.identifier == "0801.3673"
    assert "unsupported metadata format" in error.reason
