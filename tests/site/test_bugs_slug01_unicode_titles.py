"""BUGS.md SLUG-01: CJK, Cyrillic, Greek, TeX and Turkish titles give ASCII slugs; pages answer 200.

Django's ``slugify`` gives ``""`` for four of the six titles; the project's URL design
transliterates to ASCII after TeX→text. The page is ``/papers/<id>-<slug>``; the id alone or a
wrong slug answers 301 to it. The harvested page is the recorded arXivRaw page 1 with its
first record (0801.3673) copied six times, id and title edited to BUGS.md's titles.
"""

from __future__ import annotations

import re

import pytest
from django.utils.text import slugify

from papers import harvest
from papers.models import Paper
from tests.conftest import FIXTURES

PAGE = FIXTURES / "arxiv" / "oai" / "edited_arXivRaw_ListRecords_page1.xml"
TITLES = {
    "2402.01230": ("量子纠缠的拓扑相", "liang-zi-jiu-chan-de-tuo-bu-xiang"),
    "2402.01231": ("Тестовый доклад по топологии", "testovyi-doklad-po-topologii"),
    "2402.01232": ("Ω", "o"),
    "2402.01233": ("$\\mathcal{O}(n)$ bounds for sorting", "o-n-bounds-for-sorting"),
    "2402.01235": ("İstanbul ısı dalgaları", "istanbul-isi-dalgalari"),
    "2402.01234": ("∅", "2402-01234"),  # nothing to transliterate: the id, "." and "/" as "-"
}


def _edited_page(tmp_path):
    """Page 1 with only its first record, repeated with each BUGS.md id and title."""
    text = PAGE.read_text(encoding="utf-8")
    start, end = text.index("<record>"), text.index("</record>") + len("</record>")
    record = text[start:end]
    assert "<title>Variational Functionals for Excited States</title>" in record
    copies = [
        record.replace("0801.3673", arxiv_id).replace("Variational Functionals for Excited States", title)
        for arxiv_id, (title, _) in TITLES.items()
    ]
    body = text[:start] + "\n".join(copies) + text[text.index("<resumptionToken") :]
    path = tmp_path / "edited_arXivRaw_ListRecords_page1_slug01_titles.xml"
    path.write_text(body, encoding="utf-8")
    return path


def test_djangos_slugify_loses_them():
    """BUGS.md SLUG-01: what ``slugify`` gives, the failure this project must not have."""
    got = [slugify(title) for title, _ in TITLES.values()]
    assert got == ["", "", "", "mathcalon-bounds-for-sorting", "istanbul-s-dalgalar", ""]


@pytest.mark.django_db
def test_every_page_answers_200_at_an_ascii_slug(client, tmp_path):
    """BUGS.md SLUG-01 through the harvest and the paper pages."""
    harvest.harvest_files(paths=[_edited_page(tmp_path)])
    for arxiv_id, (title, slug) in TITLES.items():
        paper = Paper.objects.get(arxiv_id=arxiv_id)
        assert (paper.title, paper.slug) == (title, slug)
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", paper.slug)  # never empty, never "-…"
        page = f"/papers/{arxiv_id}-{slug}"
        assert paper.get_absolute_url() == page
        response = client.get(page)
        assert response.status_code == 200, arxiv_id
        assert title in response.content.decode() or arxiv_id == "2402.01233"  # TeX shown as text
        for other in (f"/papers/{arxiv_id}", f"/papers/{arxiv_id}-wrong-slug", f"/papers/{arxiv_id}v1"):
            moved = client.get(other)
            assert (moved.status_code, moved["Location"]) == (301, page), other
