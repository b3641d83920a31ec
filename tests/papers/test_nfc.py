"""Harvested text is stored in Unicode NFC (issue 18).

The recorded arXivRaw page (data/arxiv/oai/arxivsync_47001.xml) with the title of 0801.3673,
"Variational Functionals for Excited States", edited to hold "Schrödinger", once composed
(NFC: U+00F6) and once decomposed (NFD: "o" + U+0308), must parse to the same record. Before,
the decomposed title was stored as sent: a different title, title hash and slug for the
same paper. (The recorded pages write accents as TeX, so the edit is needed.)
"""

from __future__ import annotations

import unicodedata

from papers.oai import parse_oai_response
from tests.conftest import SAMPLE_OAI_RAW

TITLE = "Variational Functionals for Excited States"
EDITED = "Variational Functionals for Schrödinger Excited States"


def _page(tmp_path, form: str):
    recorded = SAMPLE_OAI_RAW.read_text(encoding="utf-8")
    assert recorded.count(TITLE) == 1
    path = tmp_path / f"arxivsync_47001.{form.lower()}-edited.xml"
    path.write_text(recorded.replace(TITLE, unicodedata.normalize(form, EDITED)), encoding="utf-8")
    return {r.arxiv_id: r for r in parse_oai_response(str(path)).records}


def test_a_title_sent_decomposed_is_stored_composed(tmp_path):
    composed, decomposed = _page(tmp_path, "NFC"), _page(tmp_path, "NFD")

    title = decomposed["0801.3673"].title
    assert title == EDITED and len(title) == len(EDITED) == 54
    assert decomposed["0801.3673"] == composed["0801.3673"]
