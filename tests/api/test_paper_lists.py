"""The API's paper lists, written without the schema's validation (issue 28: ``paper_out`` and
``page_out``), are exactly what ninja's own path gives (validate through ``PaperOut`` /
``PaperPage``, dump, render): the same keys, order, types and bytes, on the real sample."""

from __future__ import annotations

import pytest
from django.conf import settings

from pages.paper_api import RENDERER
from papers.models import Paper
from papers.schemas import PaperOut, PaperPage, paper_out
from wove.pagination import PageMeta, page_out

pytestmark = pytest.mark.django_db


def _bytes(data: dict) -> bytes:
    # The renderer gives text; the response holds it as UTF-8.
    return RENDERER.render(None, data, response_status=200).encode()


def test_every_sample_paper_comes_out_of_the_schema_unchanged(api):
    papers = list(Paper.objects.filter(deleted=False).select_related("primary_category"))
    assert len(papers) == 2_800
    for paper in papers:
        written = paper_out(paper, settings.SITE_URL)
        validated = PaperOut.model_validate(paper).model_dump()
        assert written == validated, paper.arxiv_id
        assert _bytes(written) == _bytes(validated), paper.arxiv_id


def test_a_page_keeps_the_schemas_order_and_defaults():
    meta = {"size": 20, "count": 67, "pages": 4, "page": 1, "next": "http://testserver/api/v1/papers?page=2"}
    written = page_out(meta, [])
    validated = PaperPage.model_validate({**meta, "items": []}).model_dump()
    assert list(written) == [*PageMeta.model_fields, "items"] == list(validated)
    assert written == validated
    assert (written["listed"], written["count_capped"], written["next_cursor"]) == (None, False, None)


def _as_ninja_writes(body: dict) -> bytes:
    """ninja's own path for a page: the listed papers (model instances, in order) and the meta
    validated through PaperPage, dumped and rendered."""
    by_id = Paper.objects.in_bulk([item["arxiv_id"] for item in body["items"]], field_name="arxiv_id")
    meta = {key: value for key, value in body.items() if key != "items"}
    items = [by_id[item["arxiv_id"]] for item in body["items"]]
    return _bytes(PaperPage.model_validate({**meta, "items": items}).model_dump())


@pytest.mark.parametrize(
    "query",
    [
        {"q": "dark matter"},
        {"q": "dark matter", "page": 2, "size": 5},
        {"q": "graphene", "sort": "newest"},
        {"category": "hep-th", "sort": "cited"},
        {"sort": "oldest", "size": 3},
        {"q": "no such words anywhere xyzzy"},
    ],
)
def test_list_pages_are_what_the_schema_dumps(api, query):
    response = api.get("/api/v1/papers", query)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.content == _as_ninja_writes(response.json())


def test_a_cursor_page_and_a_hand_checked_item(api):
    first = api.get("/api/v1/papers", {"sort": "oldest", "size": 2}).json()
    # physics/0112006 (December 2001), which the tests' sample adds, is its oldest paper.
    assert first["items"][0]["arxiv_id"] == "physics/0112006"
    assert first["items"][0]["url"].startswith("http://testserver/papers/physics/0112006")
    following = api.get("/api/v1/papers", {"sort": "oldest", "size": 2, "cursor": first["next_cursor"]})
    body = following.json()
    assert body["count"] is None and len(body["items"]) == 2
    assert following.content == _as_ninja_writes(body)
