"""Readers' lists and charts (issue 21): /institutions and /researchers styled as the rest
(the search page's rows and form), counts with a thousands separator, and the researcher
page's years chart one bar per year with its counts as text."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from researchers.selectors import YearBar, years_layout

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def test_researcher_list_is_styled_and_separates_thousands(client):
    from researchers.models import Researcher

    Researcher.objects.bulk_create(
        [
            Researcher(display_name=f"Reader {n:04d}", slug=f"reader-{n:04d}", paper_count=1)
            for n in range(1233)
        ]
    )
    Researcher.objects.create(display_name="Prolific Author", slug="prolific-author", paper_count=1234)
    html = client.get("/researchers").content.decode()
    assert "1,234 researchers, most papers first." in _text(html)
    assert '<ol class="entity-list researcher-list">' in html
    assert '<form class="search-form list-search"' in html
    first = html.split('<li class="entity-item">', 2)[1]
    assert "Prolific Author" in first and '<span class="badge">1,234 papers</span>' in first
    assert "page 1 of 25" in _text(html)


def test_institution_list_is_styled_and_separates_thousands(client):
    from institutions.models import Institution

    Institution.objects.bulk_create(
        [
            Institution(ror_id=f"0{n:06d}{n % 100:02d}", name=f"Institute {n:04d}", slug=f"institute-{n:04d}")
            for n in range(1200)
        ]
    )
    html = client.get("/institutions").content.decode()
    assert "1,200 institutions." in _text(html)
    assert '<ul class="entity-list institution-list">' in html
    assert '<form class="search-form list-search"' in html
    assert 'class="filters"' not in html  # the search sidebar's stacked form, before


def test_years_chart_has_a_bar_and_counts_per_year():
    bars = years_layout([[2006, 2, 1234], [2008, 4, 0]])
    assert bars == [YearBar(2006, 2, 1234, 50.0), YearBar(2007, 0, 0, 0.0), YearBar(2008, 4, 0, 100.0)]
    html = render_to_string("researchers/includes/years.html", {"years": bars})
    rows = [_text(row) for row in html.split("<li>")[1:]]
    assert rows == ["2006: 2 papers · 1,234 citations", "2007: 0 papers", "2008: 4 papers"]
    assert html.count('class="bar-fill" width=') == 2  # the empty year has its track only
    assert '<rect class="bar-fill" width="100.0"' in html
    assert 'aria-labelledby="years-h"' in html
