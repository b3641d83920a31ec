"""The researcher page lists the researcher's institutions with the years seen."""

import pytest
from django.core.management import call_command

from papers.models import PaperAuthor

pytestmark = pytest.mark.django_db


def test_researcher_page_shows_institution_and_years(sample_papers, client):
    call_command("load_ror", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    call_command("match_affiliations", "--no-progress")
    call_command("match_authors", "--no-progress")
    # 0704.0191: Virnau, Mirny, Kardar, all at MIT (affiliation strings in the arXiv record).
    slot = PaperAuthor.objects.select_related("authorship__researcher").get(
        paper__arxiv_id="0704.0191", position=1
    )
    researcher = slot.authorship.researcher
    html = client.get(researcher.get_absolute_url()).content.decode()
    assert "Massachusetts Institute of Technology" in html
    assert "2007 · 1 paper" in html


def test_researcher_page_links_exports_and_feed(sample_papers, client):
    call_command("match_authors", "--no-progress")
    slot = PaperAuthor.objects.select_related("authorship__researcher").get(
        paper__arxiv_id="0704.0191", position=1
    )
    pk = slot.authorship.researcher.pk
    html = client.get(slot.authorship.researcher.get_absolute_url()).content.decode()
    for href in (
        f"/researchers/{pk}/export.bib",
        f"/researchers/{pk}/export.ris",
        f"/rss/researchers/{pk}.xml",
    ):
        assert f'href="{href}"' in html
        assert client.get(href).status_code == 200
