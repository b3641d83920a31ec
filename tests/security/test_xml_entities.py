"""Harvested XML cannot read local files (XXE) or blow up memory (entity expansion): the
OAI-PMH and arXiv API parsers neither resolve external entities nor expand without bound."""

from __future__ import annotations

import pytest

from papers.arxiv_api import ArxivApiError, parse_feed
from papers.oai import parse_oai_response

RECORD = (
    b"<record><header><identifier>oai:arXiv.org:0801.3673</identifier><datestamp>2008-01-25</datestamp>"
    b"</header><metadata><arXivRaw xmlns='http://arxiv.org/OAI/arXivRaw/'><id>0801.3673</id>"
    b"<title>T &xxe; end</title><categories>hep-th</categories></arXivRaw></metadata></record>"
)
LAUGHS = b"<!ENTITY xxe '&a9;'><!ENTITY a0 'lol'>" + b"".join(
    b"<!ENTITY a%d '%s'>" % (i, b"&a%d;" % (i - 1) * 10) for i in range(1, 10)
)


def _oai(dtd: bytes, record: bytes = RECORD) -> bytes:
    return (
        b"<?xml version='1.0'?><!DOCTYPE OAI-PMH [" + dtd + b"]>"
        b"<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'><ListRecords>"
        + record
        + b"</ListRecords></OAI-PMH>"
    )


def test_oai_external_entity_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    page = parse_oai_response(_oai(b'<!ENTITY xxe SYSTEM "file://%s">' % str(secret).encode()))
    assert [r.title for r in page.records] == ["T &xxe; end"]  # kept as written, not resolved
    assert "TOP-SECRET" not in repr(page)


def test_oai_billion_laughs_is_one_bad_record_not_a_blow_up():
    other = RECORD.replace(b"0801.3673", b"0801.3674").replace(b"&xxe;", b"fine")
    page = parse_oai_response(_oai(LAUGHS, RECORD + other))
    assert [r.arxiv_id for r in page.records] == ["0801.3674"]
    assert [e.identifier for e in page.errors] == ["0801.3673"]
    assert "amplification" in page.errors[0].reason


def _atom(dtd: bytes) -> bytes:
    return (
        b"<?xml version='1.0'?><!DOCTYPE feed [" + dtd + b"]><feed xmlns='http://www.w3.org/2005/Atom'>"
        b"<entry><id>http://arxiv.org/abs/0801.3673v1</id><title>T &xxe; end</title>"
        b"<category term='hep-th'/></entry></feed>"
    )


def test_arxiv_api_external_entity_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    records = parse_feed(_atom(b'<!ENTITY xxe SYSTEM "file://%s">' % str(secret).encode()))
    assert "TOP-SECRET" not in repr(records)


def test_arxiv_api_billion_laughs_is_refused():
    with pytest.raises(ArxivApiError, match="amplification"):
        parse_feed(_atom(LAUGHS))
