"""Five moments of arXiv 0801.3674 as OAI messages in both formats, for the tests of
message order (issue 18).

No recording holds one paper at several moments, so they are built here from two recorded
records by small, named edits: the real arXivRaw record in
``tests/fixtures/arxiv/oai/edited_arXivRaw_ListRecords_page1.xml`` (v1-v4, datestamp
2008-11-26) and the real arXiv-format record of ``edited_arXiv_0704.4001_as_0801.3674.xml``
(same datestamp).
"""

from __future__ import annotations

import re
from pathlib import Path

from papers.oai import parse_oai_response
from papers.records import ArxivRecord

OAI = Path(__file__).resolve().parent / "fixtures" / "arxiv" / "oai"


def _record_xml(path: Path, arxiv_id: str) -> tuple[str, str]:
    """The page's prolog up to its list element, and the one ``<record>`` of ``arxiv_id``."""
    text = path.read_text(encoding="utf-8")
    start = text.index("<record>", text.index(f"oai:arXiv.org:{arxiv_id}<") - 200)
    end = text.index("</record>", start) + len("</record>")
    head = text[: text.index("<record>")]
    return head, text[start:end]


def _page(head: str, record: str) -> ArxivRecord:
    tail = "</GetRecord></OAI-PMH>" if "<GetRecord>" in head else "</ListRecords></OAI-PMH>"
    page = parse_oai_response((head + record + tail).encode("utf-8"))
    assert page.errors == []
    [parsed] = page.records
    return parsed


def _edit(record: str, *pairs: tuple[str, str]) -> str:
    for pattern, replacement in pairs:
        record, count = re.subn(pattern, replacement, record, flags=re.DOTALL)
        assert count == 1, pattern
    return record


def _messages() -> dict[str, ArxivRecord]:
    raw_head, raw = _record_xml(OAI / "edited_arXivRaw_ListRecords_page1.xml", "0801.3674")
    arx_head, arx = _record_xml(OAI / "edited_arXiv_0704.4001_as_0801.3674.xml", "0801.3674")
    no_refs = (r"<journal-ref>.*?</journal-ref><doi>.*?</doi>", "")
    return {
        # arXivRaw as of 2008-02-05: v1 and v2 only, no journal-ref or DOI yet, other comments.
        "raw v2": _page(
            raw_head,
            _edit(
                raw,
                (r"<datestamp>2008-11-26<", "<datestamp>2008-02-05<"),
                (r"<version version='v3'>.*</version>(?=<title>)", ""),
                (r"<comments>.*?</comments>", "<comments>12 pages, 4 figures</comments>"),
                no_refs,
            ),
        ),
        # arXivRaw as of 2008-03-20: v1-v3, a longer title, still no journal-ref.
        "raw v3": _page(
            raw_head,
            _edit(
                raw,
                (r"<datestamp>2008-11-26<", "<datestamp>2008-03-20<"),
                (r"<version version='v4'>.*</version>(?=<title>)", ""),
                (r"Inflation Model</title>", "Inflation Model: Preheating</title>"),
                no_refs,
            ),
        ),
        "raw v4": _page(raw_head, raw),  # the real record
        # The arXiv format as of 2008-02-05: the original datestamp's day after, two authors.
        "arXiv v2": _page(
            arx_head,
            _edit(
                arx,
                (r"<datestamp>2008-11-26<", "<datestamp>2008-02-05<"),
                (r"<author><keyname>Torroba</keyname>.*?</author>", ""),
            ),
        ),
        "arXiv v4": _page(arx_head, arx),  # the fixture as it is
    }


# By name: "raw v2", "raw v3", "raw v4" (arXivRaw as of 2008-02-05, 2008-03-20, 2008-11-26),
# "arXiv v2", "arXiv v4" (the arXiv format as of 2008-02-05 and 2008-11-26).
MESSAGES = _messages()
