"""Every example link on the pages that teach URL forms answers (issue 32: llms.txt and the
404 page named /papers/astro-ph/9901001 and /institutions/03yrm5c26, /developers batched
physics/0112006, none of them in the bundled sample, and /pith/2008:<body> was a 404).

The links are collected from the rendered pages, never listed by hand: llms.txt and the 404
page's Markdown (every backticked path and Markdown link), the 404 page, /developers and
/api/docs (every href and src, and every URL in /developers' code examples), the OpenAPI
document /api/docs loads (its description's links, and the batch example "Try it out"
sends). Each must answer 200, or a redirect (301, 302) to a page that answers 200.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.conf import settings
from django.core.management import call_command

from papers.examples import url_examples_forget

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_examples():
    url_examples_forget()
    yield
    url_examples_forget()


@pytest.fixture
def matched_sample(sample_papers):
    """The sample as ``make demo`` leaves it (ROR loaded, affiliations and authors matched),
    with the newest paper, 0801.4672, signed (the examples name its pith number)."""
    from papers.models import Paper
    from provenance.services import records_sign

    call_command("load_ror", "--no-progress", "--file", "data/ror/ror_records_v2.json", verbosity=0)
    call_command("match_affiliations", "--no-progress")
    call_command("match_authors", "--no-progress")
    records_sign(paper_ids=[Paper.objects.get(arxiv_id="0801.4672").pk])


def _site_path(url: str) -> str | None:
    """``url`` as a path on this site, or ``None`` for another site or a pattern."""
    url = html.unescape(url)
    if url.startswith(settings.SITE_URL):
        url = url[len(settings.SITE_URL) :] or "/"
    if not url.startswith("/") or url.startswith("//") or "<" in url or url.startswith("/static/"):
        return None
    return url


def _markdown_links(text: str) -> set[str]:
    # A path written after "POST" is an endpoint to post to (the batch), not a link to follow.
    found = re.findall(r"(?<!POST )`([^`\s]+)`", text) + re.findall(r"\]\(([^)\s]+)\)", text)
    return {path for path in map(_site_path, found) if path}


def _html_links(page: str) -> set[str]:
    main = page.split("<main", 1)[-1].split("</main>", 1)[0]
    return {path for path in map(_site_path, re.findall(r'(?:href|src)="([^"]+)"', main)) if path}


def _code_calls(page: str) -> list[tuple[str, str, str]]:
    """``(method, path, body)`` of each call in the page's code examples (curl and httpx)."""
    calls = []
    for block in re.findall(r"<code[^>]*>(.*?)</code>", page, flags=re.S):
        code = html.unescape(block)
        body = re.search(r"-d '([^']*)'", code)
        for url in re.findall(re.escape(settings.SITE_URL) + r"[^'\"\s]*", code):
            method = "POST" if "-X POST" in code else "GET"
            calls.append((method, _site_path(url), body.group(1) if body and method == "POST" else ""))
    return calls


def _answers(client, path: str) -> None:
    response = client.get(path, follow=True)
    assert response.status_code == 200, (path, response.status_code)
    chain = response.redirect_chain
    assert all(status in (301, 302) for _url, status in chain), (path, chain)


def _collect(client) -> dict[str, set[str]]:
    links = {}
    links["llms.txt"] = _markdown_links(client.get("/llms.txt").content.decode())
    links["404.md"] = _markdown_links(
        client.get("/no-such-page", HTTP_ACCEPT="text/markdown").content.decode()
    )
    links["404"] = _html_links(client.get("/no-such-page").content.decode())
    developers = client.get("/developers").content.decode()
    links["developers"] = _html_links(developers)
    docs = client.get("/api/docs").content.decode()
    links["api-docs"] = _html_links(docs) | set(re.findall(r'"url": "(/[^"]+)"', docs))
    schema = client.get("/api/v1/openapi.json").json()
    links["openapi"] = _markdown_links(schema["info"]["description"])
    return links


def test_every_example_link_answers(client, matched_sample):
    links = _collect(client)
    every = set().union(*links.values())
    for path in sorted(every):
        _answers(client, path)
    # The examples are records of this sample, chosen when the pages render.
    assert "/papers/0801.4672" in links["404"]
    assert "/institutions/00cvxb145" in links["llms.txt"]  # University of Washington, first with authors
    assert {"/pith/pith:2008:CADIYJYGP7JF2GVOYFIMI5U7BT", "/pith/2008:CADIYJYGP7JF2GVOYFIMI5U7BT"} <= links[
        "llms.txt"
    ]
    assert "/pith/pith:2008:CADIYJYGP7JF2GVOYFIMI5U7BT" in links["404"]
    text = " ".join(client.get(u).content.decode() for u in ("/llms.txt", "/no-such-page", "/developers"))
    for dead in ("astro-ph/9901001", "03yrm5c26", "physics/0112006", "2401.10241"):
        assert dead not in text


def test_developers_calls_answer_with_records_held(client, matched_sample):
    developers = client.get("/developers").content.decode()
    calls = _code_calls(developers)
    assert ("GET", "/api/v1/papers/arXiv:0801.4672v1", "") in calls
    assert ("GET", "/api/v1/researchers?q=Damien+Chablat", "") in calls  # the most papers in the sample
    for method, path, body in calls:
        if method == "GET":
            _answers(client, path)
            continue
        answer = client.post(path, data=body, content_type="application/json")
        assert answer.status_code == 200, (path, answer.content)
        # The batch example: the newest paper, and the oldest (the sample has no old-style id).
        assert json.loads(body) == {"ids": ["0801.4672", "0704.0001"]}
        assert answer.json()["unknown"] == []
    researchers = client.get("/api/v1/researchers?q=Damien+Chablat").json()
    assert [(r["name"], r["paper_count"]) for r in researchers["items"]] == [("Damien Chablat", 8)]


def test_api_docs_try_it_out_sends_papers_held(client, matched_sample):
    schema = client.get("/api/v1/openapi.json").json()
    ids = schema["components"]["schemas"]["BatchIn"]["properties"]["ids"]["examples"][0]
    assert ids == ["0801.4672", "0704.0001"]
    answer = client.post("/api/v1/papers/batch", data={"ids": ids}, content_type="application/json")
    assert answer.json()["found"] == 2
    ror = schema["components"]["schemas"]["InstitutionRef"]["properties"]["ror_id"]["examples"]
    assert ror == ["00cvxb145"]


def test_an_empty_archive_shows_patterns_and_no_dead_link(client):
    links = _collect(client)
    for path in sorted(set().union(*links.values())):
        _answers(client, path)
    llms = client.get("/llms.txt").content.decode()
    assert "and so does the old-style form (`/papers/<archive>/<number>`)." in llms
    assert "a ROR ID or a name all resolve" in llms
    developers = html.unescape(client.get("/developers").content.decode())
    assert "curl -s 'http://127.0.0.1:8000/api/v1/papers/arXiv:<arxiv-id>v1'" in developers
    assert '"ids": ["<arxiv-id>", "<another-arxiv-id>"]' in developers
    assert "/api/v1/researchers?q=<name>'" in developers


def test_the_pith_number_resolves_with_and_without_its_scheme(client, matched_sample):
    from provenance.models import Record

    record = Record.objects.get(source_id="0801.4672")
    assert record.pith_number == "pith:2008:CADIYJYGP7JF2GVOYFIMI5U7BT"
    for ref in (record.pith_number, "2008:CADIYJYGP7JF2GVOYFIMI5U7BT", "2008:cadiyjygp7jf2gvoyfimi5u7bt"):
        response = client.get(f"/pith/{ref}")
        assert (response.status_code, response["Location"]) == (302, "/pith/CADIYJYGP7JF2GVOYFIMI5U7BT")
    assert client.get("/pith/2007:CADIYJYGP7JF2GVOYFIMI5U7BT").status_code == 404  # another year
    bundle = client.get("/pith/2008:CADIYJYGP7JF2GVOYFIMI5U7BT/bundle.json")
    assert bundle.status_code == 200 and bundle.json()["bundle_type"] == "pith_open_graph_bundle"
