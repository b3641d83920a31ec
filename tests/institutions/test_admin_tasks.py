"""Admin pages, the Celery task run in-process, and the institution page's query count."""

from __future__ import annotations

from institutions.models import AuthorAffiliation
from institutions.tasks import link_ror_ids, match_affiliations
from papers.models import Paper, PaperAuthor


def test_admin_lists_and_shows_institutions(admin_client, ror_registry):
    response = admin_client.get("/admin/institutions/institution/?q=CNRS")
    assert response.status_code == 200
    assert "Centre National de la Recherche Scientifique" in response.content.decode()
    cnrs = ror_registry["02feahw73"]
    assert admin_client.get(f"/admin/institutions/institution/{cnrs.pk}/change/").status_code == 200
    assert admin_client.get("/admin/institutions/authoraffiliation/").status_code == 200


def test_tasks_match_and_link(ror_registry):
    paper = Paper.objects.create(arxiv_id="0704.0463", slug="p", title="Debris disk")
    slot = PaperAuthor.objects.create(
        paper=paper, position=3, name="M. C. Wyatt", affiliations=["University of Cambridge, U.K."]
    )
    assert match_affiliations.apply(args=[[slot.pk]]).get() == {
        "slots": 1, "strings": 1, "matched": 1, "created": 1, "updated": 0, "removed": 0,
    }  # fmt: skip
    assert match_affiliations.apply(args=[[slot.pk]]).get()["created"] == 0
    assert link_ror_ids.apply(args=[[[slot.pk, "https://ror.org/013meh722"]]]).get() == {
        "created": 0, "updated": 1, "unknown": 0,
    }  # fmt: skip
    assert AuthorAffiliation.objects.get(slot=slot).source == "openalex"


def test_institution_page_query_count_is_flat(visitor, ror_registry, django_assert_max_num_queries):
    cnrs = ror_registry["02feahw73"]  # ~1,000 relationships
    with django_assert_max_num_queries(12):
        response = visitor.get(cnrs.get_absolute_url())
    assert response.status_code == 200
    assert "Includes (1019)" in response.content.decode()
