"""Researchers API on the matched sample: list, search, profile, papers, co-authors, lookup, merges."""

from __future__ import annotations

import re

import pytest

from tests.api.conftest import assert_count_capped
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db


def _id(name: str) -> int:
    from researchers.models import Researcher

    return Researcher.objects.get(display_name=name, merged_into=None).pk


def test_name_search_finds_strominger(api):
    body = api.get("/api/v1/researchers", {"q": "strominger"}).json()
    assert body["count"] == 1
    only = body["items"][0]
    assert only["name"] == "Andrew Strominger"
    assert only["paper_count"] == 1  # 0801.4566, "Chiral Gravity in Three Dimensions"
    assert only["url"] == f"http://testserver/researchers/{only['id']}-andrew-strominger"


def test_name_search_matches_variants(api):
    # "C. Balazs" (0705.0431) and "C. Balázs" (0704.0001) are one researcher.
    body = api.get("/api/v1/researchers", {"q": "C. Balazs"}).json()
    assert [r["name"] for r in body["items"]] == ["C. Balázs"]
    assert body["items"][0]["name_variants"] == ["C. Balazs", "C. Balázs"]


def test_list_most_papers_first(api):
    body = api.get("/api/v1/researchers", {"size": 3}).json()
    # Damien Chablat signs 8 sample papers, more than anyone else.
    assert body["items"][0]["name"] == "Damien Chablat"
    assert body["items"][0]["paper_count"] == 8
    counts = [r["paper_count"] for r in body["items"]]
    assert counts == sorted(counts, reverse=True)


def test_profile_of_strominger(api):
    body = api.get(f"/api/v1/researchers/{_id('Andrew Strominger')}").json()
    # Third and last of three authors, all three matched: position known.
    assert body["positions"] == {"first": 0, "middle": 0, "last": 1, "known_papers": 1, "total_papers": 1}
    assert body["fields"] == [{"code": "hep-th", "name": "High Energy Physics - Theory", "count": 1}]
    assert body["merged_into"] is None and body["requested_id"] == body["id"]
    assert body["external_ids"] == [] and body["orcid"] is None


def test_profile_of_balazs_first_author_twice(api):
    body = api.get(f"/api/v1/researchers/{_id('C. Balázs')}").json()
    assert body["paper_count"] == 2
    assert body["positions"]["first"] == 2
    assert body["fields"] == [{"code": "hep-ph", "name": "High Energy Physics - Phenomenology", "count": 2}]


def test_papers_and_coauthors(api):
    rid = _id("Andrew Strominger")
    papers = api.get(f"/api/v1/researchers/{rid}/papers").json()
    assert [p["arxiv_id"] for p in papers["items"]] == ["0801.4566"]
    coauthors = api.get(f"/api/v1/researchers/{rid}/coauthors").json()
    assert [(c["researcher"]["name"], c["shared_papers"]) for c in coauthors["items"]] == [
        ("Wei Li", 1),
        ("Wei Song", 1),
    ]
    balazs = api.get(f"/api/v1/researchers/{_id('C. Balázs')}/papers", {"sort": "oldest"}).json()
    assert [p["arxiv_id"] for p in balazs["items"]] == ["0704.0001", "0705.0431"]


def test_merged_away_id_answers_with_the_survivor(api):
    from researchers.models import Researcher

    survivor = _id("Andrew Strominger")
    other = _id("Wei Song")
    Researcher.objects.filter(pk=other).update(merged_into=survivor)
    response = api.get(f"/api/v1/researchers/{other}")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == survivor and body["name"] == "Andrew Strominger"
    assert body["requested_id"] == other
    assert body["merged_into"] == survivor
    # Merged-away records leave the list.
    names = [r["name"] for r in api.get("/api/v1/researchers", {"q": "Wei Song"}).json()["items"]]
    assert "Wei Song" not in names


def test_lookup_by_orcid_semantic_scholar_openalex(api):
    from researchers.models import ExternalIdentity, Researcher
    from researchers.services import researcher_set_orcid

    rid = _id("Andrew Strominger")
    researcher = Researcher.objects.get(pk=rid)
    # The ORCID iD from the seed researcher page (check digit valid).
    researcher_set_orcid(researcher=researcher, orcid="https://orcid.org/0000-0002-5250-9277")
    ExternalIdentity.objects.create(researcher=researcher, source="semantic_scholar", external_id="2270251")
    ExternalIdentity.objects.create(researcher=researcher, source="openalex", external_id="A5023888391")
    for params in (
        {"orcid": "0000-0002-5250-9277"},
        {"orcid": "https://orcid.org/0000-0002-5250-9277"},
        {"semantic_scholar": "2270251"},
        {"openalex": "https://openalex.org/a5023888391"},
    ):
        response = api.get("/api/v1/researchers/lookup", params)
        assert response.status_code == 200, params
        assert response.json()["id"] == rid
    body = api.get(f"/api/v1/researchers/{rid}").json()
    assert body["orcid_url"] == "https://orcid.org/0000-0002-5250-9277"
    assert {(e["source"], e["url"]) for e in body["external_ids"]} == {
        ("semantic_scholar", "https://www.semanticscholar.org/author/2270251"),
        ("openalex", "https://openalex.org/A5023888391"),
    }


def test_lookup_errors(api):
    response = api.get("/api/v1/researchers/lookup")
    assert response.status_code == 400 and response.json()["code"] == "bad_request"
    response = api.get("/api/v1/researchers/lookup", {"orcid": "0000-0002-5250-9278"})  # bad check digit
    assert response.status_code == 400
    response = api.get("/api/v1/researchers/lookup", {"semantic_scholar": "999999999999"})
    assert response.status_code == 404
    assert api.get("/api/v1/researchers/999999999").status_code == 404


def test_list_query_counts(api, django_assert_num_queries):
    with django_assert_num_queries(3):  # the kept facts (none counted yet), page, COUNT
        counted = api.get("/api/v1/researchers", {"size": 100}).json()
    # Once the pipeline has counted the archive (issue 28): the facts give the count.
    from pages.facts import archive_facts_refresh

    archive_facts_refresh()
    with django_assert_num_queries(2):  # the facts, the page
        kept = api.get("/api/v1/researchers", {"size": 100}).json()
    assert kept["count"] == counted["count"] > 100 and kept["pages"] == counted["pages"]
    rid = _id("C. Balázs")
    # resolve, page (the whole list: no COUNT), the page's authorships (issue 20: why each is his)
    with django_assert_num_queries(3):
        api.get(f"/api/v1/researchers/{rid}/papers", {"size": 100})
    with django_assert_num_queries(2):  # resolve, page (whole list)
        api.get(f"/api/v1/researchers/{rid}/coauthors", {"size": 100})


def _walk(api, url: str) -> list[dict]:
    items, cursor = [], None
    while True:
        body = api.get(url, {"size": 3, **({"cursor": cursor} if cursor else {})}).json()
        items += body["items"]
        cursor = body["next_cursor"]
        if not cursor:
            return items


def test_cursor_paging_of_papers_and_coauthors_matches_one_page(api):
    rid = _id("Damien Chablat")
    for path in (f"/api/v1/researchers/{rid}/papers", f"/api/v1/researchers/{rid}/coauthors"):
        whole = api.get(path, {"size": 100}).json()["items"]
        assert _walk(api, path) == whole
    assert len(api.get(f"/api/v1/researchers/{rid}/papers").json()["items"]) == 8


def test_a_loeb_is_found_alike_by_both_endpoints_and_the_search_page(api):
    """Issue 32: the API's name search took "A. Loeb" as one substring and found no one,
    while the search page's Researchers tab, matching each word, found Abraham Loeb (0705.0987,
    "Imprint of Distortions in the Oort Cloud on the CMB Anisotropies", and two more)."""
    listed = api.get("/api/v1/researchers", {"q": "A. Loeb"}).json()
    searched = api.get("/api/v1/search", {"q": "A. Loeb", "kinds": "researchers"}).json()["researchers"]
    page = api.get("/search", {"q": "A. Loeb", "type": "researchers"})
    assert page.status_code == 200
    on_page = [r.display_name for r in page.context["page"].object_list]
    assert "Abraham Loeb" in [r["name"] for r in listed["items"]]
    assert "Abraham Loeb" in [r["name"] for r in searched["items"]]
    assert "Abraham Loeb" in on_page
    assert listed["count"] == searched["count"] == page.context["counts"]["researchers"] == len(on_page)
    assert [r["name"] for r in listed["items"]] == [r["name"] for r in searched["items"]] == on_page


def test_lookup_by_orcid_in_real_records_forms(api):
    """Issue 32: ``http://www.orcid.org/<iD>`` (as real records write it), ``https://www.``
    and ``orcid.org/`` without a scheme find the researcher; ORCID's public test record
    0000-0002-1825-0097 (Josiah Carberry) is the iD."""
    from researchers.models import Researcher
    from researchers.services import researcher_set_orcid

    rid = _id("Andrew Strominger")
    researcher_set_orcid(researcher=Researcher.objects.get(pk=rid), orcid="0000-0002-1825-0097")
    for form in (
        "0000-0002-1825-0097",
        "http://www.orcid.org/0000-0002-1825-0097",
        "https://www.orcid.org/0000-0002-1825-0097",
        "www.orcid.org/0000-0002-1825-0097",
        "orcid.org/0000-0002-1825-0097",
        "HTTP://WWW.ORCID.ORG/0000-0002-1825-0097/",
    ):
        response = api.get("/api/v1/researchers/lookup", {"orcid": form})
        assert response.status_code == 200, form
        assert response.json()["id"] == rid and response.json()["orcid"] == "0000-0002-1825-0097"


def test_the_last_author_of_0705_0239_is_h_o_back_without_et_al(api):
    """0705.0239 ("Pulse-Shape discrimination with the Counting Test Facility") writes its
    author as keyname "al.", forenames "H. O. Back et": the researcher was "H. O. Back et al."."""
    (slot,) = api.get("/api/v1/papers/0705.0239").json()["author_slots"]
    assert (slot["name"], slot["researcher"]["name"]) == ("H. O. Back", "H. O. Back")
    names = [r["name"] for r in api.get("/api/v1/researchers", {"q": "Back", "size": 100}).json()["items"]]
    assert "H. O. Back" in names and not [n for n in names if "et al" in n]


def test_the_readme_lookup_example_is_a_404_naming_the_normalised_orcid(api):
    """The README's example iD (ORCID's test record, Josiah Carberry) as it is written there:
    the 404 echoed the raw input ("No researcher has orcid http://www.orcid.org/...")."""
    from researchers.models import ExternalIdentity, Researcher

    readme = (ROOT / "README.md").read_text()
    (url,) = re.findall(r"http://127\.0\.0\.1:8000(/api/v1/researchers/lookup\?orcid=[^'\s]+)", readme)
    assert url == "/api/v1/researchers/lookup?orcid=http://www.orcid.org/0000-0002-1825-0097"
    # Matched locally as `make demo` does, no researcher of the sample has an ORCID iD (its
    # records carry none; iDs come from the registries of RESEARCHER_SOURCES): the README says so.
    assert not Researcher.objects.filter(orcid__isnull=False).exists()
    assert not ExternalIdentity.objects.filter(source="orcid").exists()
    response = api.get(url)
    assert response.status_code == 404
    assert response.json()["detail"] == "No researcher has orcid 0000-0002-1825-0097."
    assert "no researcher of the bundled sample has an ORCID iD" in " ".join(readme.split())


@pytest.mark.parametrize(
    "orcid",
    [
        "٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X",  # Arabic-Indic digits of 0000-0002-1694-233X (its check digit holds)
        "۰۰۰۰-۰۰۰۲-۱۸۲۵-۰۰۹۷",  # Extended Arabic-Indic (Persian) digits of Carberry's iD
        "００００-０００２-１８２５-００９７",  # full-width digits
        "https://orcid.org/٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X",
    ],
)
def test_lookup_by_orcid_in_other_digits_is_a_bad_request(api, orcid):
    response = api.get("/api/v1/researchers/lookup", {"orcid": orcid})
    assert response.status_code == 400  # was 404: the iD passed validation
    body = response.json()
    assert body["code"] == "bad_request" and body["detail"].startswith("not an ORCID iD:")


def test_a_name_search_count_stops_at_the_cap_and_says_so(api, monkeypatch):
    # "li" starts a word of many sample names (Wei Li, Cheng-Li, Lin, ...): counted to the end at a million
    # papers it took seconds (issue 28), so a name search counts as far as the papers' do.
    from researchers import api as researchers_api

    path = "/api/v1/researchers"
    assert_count_capped(api, monkeypatch, path, "li", researchers_api, "NAME_COUNT_CAP", "id")
    # Under the cap, and without a query, counts stay exact.
    assert api.get("/api/v1/researchers", {"q": "Chablat"}).json()["count_capped"] is False
    assert api.get("/api/v1/researchers", {"size": 5}).json()["count_capped"] is False


@pytest.mark.parametrize("sort", ["papers", "name"])
def test_a_name_search_read_from_its_matching_ids_lists_what_the_name_search_orders(api, sort):
    # Issue 28: a search with at most NAME_COUNT_CAP matches is answered from their ids
    # (researchers.selectors.researchers_named), not by the name search walking an index.
    from researchers.api import RESEARCHER_ORDERS
    from researchers.selectors import researchers_matching, researchers_named

    keys = RESEARCHER_ORDERS[sort]
    ordered = researchers_matching("li").annotate(**{k.name: k.expression for k in keys})
    expected = list(
        ordered.order_by(*[f"-{k.name}" if k.descending else k.name for k in keys]).values_list(
            "pk", flat=True
        )
    )
    assert len(expected) > 10
    named = researchers_named("li", cap=len(expected))
    assert (named.count, named.capped) == (len(expected), False)
    assert sorted(named.researchers.values_list("pk", flat=True)) == sorted(expected)
    assert researchers_named("li", cap=len(expected) - 1).capped is True
    if sort == "papers":
        # Narrowed for the first n by paper count, ties kept whole: the same first n.
        order = [f"-{k.name}" if k.descending else k.name for k in keys]
        for n in range(1, len(expected) + 2):
            narrowed = named.most_papers(n).annotate(**{k.name: k.expression for k in keys}).order_by(*order)
            assert list(narrowed.values_list("pk", flat=True)[:n]) == expected[:n]
        assert named.most_papers(1).count() < len(expected)
    # The API's pages, then its cursors, walk the same order.
    pages = [
        api.get("/api/v1/researchers", {"q": "li", "sort": sort, "size": 4, "page": n}).json()
        for n in (1, 2, 3)
    ]
    assert [item["id"] for page in pages for item in page["items"]] == expected[:12]
    assert pages[0]["count"] == len(expected) and pages[0]["count_capped"] is False
    walked, cursor = [], None
    while True:
        body = api.get(
            "/api/v1/researchers",
            {"q": "li", "sort": sort, "size": 4, **({"cursor": cursor} if cursor else {})},
        ).json()
        walked += [item["id"] for item in body["items"]]
        if not (cursor := body.get("next_cursor")):
            break
    assert walked == expected


def test_a_name_search_known_to_pass_the_cap_is_not_read_again(api):
    # Once a search has passed the cap, the same search within a few minutes does not read
    # its ids again.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from researchers.selectors import researchers_named

    assert researchers_named("li", cap=3).capped is True
    with CaptureQueriesContext(connection) as ctx:
        again = researchers_named("LI", cap=3)  # folded as the search folds it
    assert (again.count, again.capped, ctx.captured_queries) == (3, True, [])
    assert researchers_named("li", cap=100_000).capped is False  # another cap, read afresh


def test_a_common_name_keeps_its_matches_for_the_next_search(api, monkeypatch):
    # A name search with at least NAME_ROWS_KEPT matches (here 5) keeps their ids and paper
    # counts a few minutes: the same search does not read them again ("Xu" at a million
    # papers: 2,658 names, 20-35 ms on every search). One with fewer reads them each time.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from researchers import selectors
    from researchers.selectors import researchers_matching, researchers_named

    monkeypatch.setattr(selectors, "NAME_ROWS_KEPT", 5)
    expected = sorted(researchers_matching("li").values_list("pk", "paper_count"))
    assert len(expected) >= 5
    first = researchers_named("li", cap=100_000)
    with CaptureQueriesContext(connection) as ctx:
        again = researchers_named("Li", cap=100_000)
    assert ctx.captured_queries == []
    assert (again.count, again.capped, sorted(again.papers_by_id)) == (len(expected), False, expected)
    assert sorted(first.papers_by_id) == expected
    monkeypatch.setattr(selectors, "NAME_ROWS_KEPT", 100_000)
    with CaptureQueriesContext(connection) as ctx:
        researchers_named("lo", cap=100_000)
        researchers_named("lo", cap=100_000)
    assert len(ctx.captured_queries) == 2


@pytest.mark.parametrize("q", ["...", "  -  ", "O'Brien \"\\", "Müller%_"])
def test_a_name_search_of_odd_text_answers_as_the_name_search_counts(api, q):
    # Punctuation only finds no one; quotes, a backslash and LIKE's own wildcards are text.
    from researchers.selectors import researchers_matching

    body = api.get("/api/v1/researchers", {"q": q}).json()
    assert (body["count"], body["count_capped"]) == (researchers_matching(q).count(), False)
    assert len(body["items"]) == min(body["count"], body["size"])
    if q in ("...", "  -  "):
        assert body["count"] == 0 and body["items"] == []
