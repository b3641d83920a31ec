"""Semantic Scholar and OpenAlex: clients and source matching on replayed real responses."""

import json
from pathlib import Path

import httpx
import pytest
import yaml

from papers.models import Paper, PaperAuthor
from researchers.clients import openalex, semanticscholar
from researchers.clients.base import SourceClient, SourceUnavailable
from researchers.models import Authorship, ExternalIdentity, MatchMethod, Researcher
from researchers.records import SourceAuthor, SourceWork
from researchers.selectors import position_counts
from researchers.services import researchers_match_authors
from researchers.summary_reads import identity_sources_many
from tests.conftest import FIXTURES

S2 = FIXTURES / "semanticscholar"
OA = FIXTURES / "openalex"
S2_URL = "https://api.semanticscholar.org/graph/v1"
OA_URL = "https://api.openalex.org"


def cassette_body(path: Path, index: int = 0):
    """The JSON body of one recorded interaction (2023 cassettes keep it under ``content``)."""
    response = yaml.safe_load(path.read_text())["interactions"][index]["response"]
    return json.loads(response.get("content") or response["body"]["string"])


def search_papers() -> dict[str, dict]:
    """The recorded arXiv-venue search: paper objects keyed by arXiv id (89 of the 100)."""
    data = cassette_body(S2 / "test_search_paper_venue_arxiv_2023.yaml")["data"]
    return {p["externalIds"]["ArXiv"]: p for p in data if p["externalIds"].get("ArXiv")}


class Recorder:
    def __init__(self, handler):
        self.handler = handler
        self.requests: list[httpx.Request] = []

    def __call__(self, request):
        self.requests.append(request)
        return self.handler(request)


def s2_replay(request: httpx.Request) -> httpx.Response:
    """Answers POST /paper/batch from the recorded search results (the same paper objects)."""
    papers = search_papers()
    ids = json.loads(request.content)["ids"]
    return httpx.Response(200, json=[papers.get(i.removeprefix("arXiv:")) for i in ids])


def oa_replay(request: httpx.Request) -> httpx.Response:
    """Answers the DOI filter with the recorded work W3188841554 when its DOI is asked for."""
    work = json.loads((OA / "W3188841554.json").read_text())
    wanted = request.url.params["filter"].removeprefix("doi:").split("|")
    results = [work] if "10.48550/arxiv.2108.04680" in wanted else []
    return httpx.Response(200, json={"meta": {"count": len(results)}, "results": results})


def no_sleep(seconds):
    pass


def test_parse_openalex_work():
    work = openalex.parse_work(json.loads((OA / "W3188841554.json").read_text()))
    assert (work.arxiv_id, work.cited_by_count) == ("2108.04680", 2)
    assert [(a.position, a.name, a.author_id, a.orcid) for a in work.authors] == [
        (1, "Jonathan C. Roberts", "A5009341822", "0000-0001-7718-3181"),
        (2, "Joseph Mearman", "A5017898742", None),
        (3, "Peter Butcher", "A5032473237", "0000-0002-3361-627X"),
        (4, "Hayder Mahdi Abdullah Al-Maneea", "A5040558747", "0000-0002-9841-1486"),
        (5, "Panagiotis D. Ritsos", "A5065371627", "0000-0001-9308-3885"),
    ]
    assert work.authors[1].alt_names == ["J. W. Mearman"]
    assert work.authors[0].affiliations == ["Bangor University"]


def test_parse_semantic_scholar_author_batch_and_authors():
    assert [a["name"] for a in cassette_body(S2 / "test_get_authors.yaml")] == [
        "E. Dijkstra",
        "D. Parnas",
        "I. Sommerville",
    ]
    first = cassette_body(S2 / "test_get_paper_authors.yaml")["data"][0]
    author = semanticscholar.parse_author(1, first)
    assert (author.author_id, author.name, author.other_ids) == (
        "2259683",
        "E. Duflo",
        {"dblp": "Esther Duflo"},
    )


@pytest.mark.django_db
def test_openalex_match_attaches_orcids_and_ids():
    # arXiv 2108.04680 as arXiv lists its authors (full names; OpenAlex's raw names are initials).
    paper = Paper.objects.create(
        arxiv_id="2108.04680", slug="x", title="Vis for visualisation", categories=["cs.HC"]
    )
    arxiv_names = [
        ("Roberts", "Jonathan C."),
        ("Mearman", "Joseph W."),
        ("Butcher", "Peter W. S."),
        ("Al-Maneea", "Hayder M."),
        ("Ritsos", "Panagiotis D."),
    ]
    for i, (key, fore) in enumerate(arxiv_names, start=1):
        PaperAuthor.objects.create(paper=paper, position=i, name=f"{fore} {key}", keyname=key, forenames=fore)
    recorder = Recorder(oa_replay)
    transport = httpx.MockTransport(recorder)

    def fetch(source, ids):
        return openalex.fetch_works(
            openalex.OpenAlexClient(OA_URL, mailto="ops@example.org", transport=transport, sleep=no_sleep),
            ids,
        )

    summary = researchers_match_authors(sources=["openalex"], fetch=fetch)
    assert summary.matched_by_source == 5 and summary.matched_locally == 0
    assert recorder.requests[0].url.params["mailto"] == "ops@example.org"
    rows = [
        (a.slot.position, a.researcher.display_name, a.researcher.orcid, a.method)
        for a in Authorship.objects.filter(paper=paper)
        .select_related("slot", "researcher")
        .order_by("slot__position")
    ]
    # Display names: the fuller of arXiv's and OpenAlex's spellings.
    assert rows == [
        (1, "Jonathan C. Roberts", "0000-0001-7718-3181", MatchMethod.EXTERNAL_ID),
        (2, "Joseph W. Mearman", None, MatchMethod.EXTERNAL_ID),
        (3, "Peter W. S. Butcher", "0000-0002-3361-627X", MatchMethod.EXTERNAL_ID),
        (4, "Hayder Mahdi Abdullah Al-Maneea", "0000-0002-9841-1486", MatchMethod.EXTERNAL_ID),
        (5, "Panagiotis D. Ritsos", "0000-0001-9308-3885", MatchMethod.EXTERNAL_ID),
    ]
    paper.refresh_from_db()
    assert paper.cited_by_count == 2
    mearman = Researcher.objects.get(identities__source="openalex", identities__external_id="A5017898742")
    assert identity_sources_many([mearman.pk]) == {mearman.pk: ["OpenAlex"]}
    ritsos = Researcher.objects.get(orcid="0000-0001-9308-3885")
    assert [(b.label, b.count) for b in position_counts(ritsos)[0]] == [("last author", 1)]

    # Re-running changes nothing.
    before = Researcher.objects.count()
    assert researchers_match_authors(sources=["openalex"], fetch=fetch).matched_by_source == 0
    assert Researcher.objects.count() == before
    assert Researcher.objects.filter(authorships__paper=paper).distinct().count() == 5
    # A later paper naming him "P. D. Ritsos" attaches to him through his ORCID iD.
    later = Paper.objects.create(arxiv_id="2109.00001", slug="y", title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=later, position=1, name="P. D. Ritsos", keyname="Ritsos", forenames="P. D."
    )
    author = SourceAuthor(1, "Panagiotis D. Ritsos", "A5065371627", "0000-0001-9308-3885")
    researchers_match_authors(
        sources=["openalex"], fetch=lambda s, ids: [SourceWork("openalex", "2109.00001", [author])]
    )
    attached = Authorship.objects.get(slot__paper=later)
    assert (attached.researcher, attached.method) == (ritsos, MatchMethod.ORCID)
    ritsos.refresh_from_db()
    assert ritsos.paper_count == 2


@pytest.mark.django_db
def test_two_orcids_never_share_a_researcher():
    paper = Paper.objects.create(arxiv_id="2108.04680", slug="x", title="t", categories=["cs.HC"])
    PaperAuthor.objects.create(
        paper=paper, position=1, name="Jonathan C. Roberts", keyname="Roberts", forenames="Jonathan C."
    )
    # An earlier record holds Roberts' OpenAlex id with a different ORCID iD (a source mix-up).
    other = Researcher.objects.create(
        display_name="Jonathan Roberts", slug="jonathan-roberts", orcid="0000-0002-5250-9277"
    )
    ExternalIdentity.objects.create(researcher=other, source="openalex", external_id="A5009341822")
    work = openalex.parse_work(json.loads((OA / "W3188841554.json").read_text()))
    researchers_match_authors(sources=["openalex"], fetch=lambda s, ids: [work])
    attached = Authorship.objects.get(slot__paper=paper, slot__position=1).researcher
    assert attached != other and attached.orcid == "0000-0001-7718-3181"
    other.refresh_from_db()
    assert other.orcid == "0000-0002-5250-9277"


@pytest.mark.django_db
def test_semantic_scholar_batch_match_on_recorded_search():
    papers = search_papers()
    # Neural Turing Machines, arXiv 1410.5401, as arXiv lists it; and 2201.11990's first five
    # authors as arXiv spells them (Semantic Scholar abbreviates "M. Patwary", "P. LeGresley").
    ntm = Paper.objects.create(
        arxiv_id="1410.5401", slug="ntm", title="Neural Turing Machines", categories=["cs.NE"]
    )
    for i, name in enumerate(["Alex Graves", "Greg Wayne", "Ivo Danihelka"], start=1):
        first, last = name.rsplit(" ", 1)
        PaperAuthor.objects.create(paper=ntm, position=i, name=name, keyname=last, forenames=first)
    mt = Paper.objects.create(
        arxiv_id="2201.11990", slug="mt", title="Megatron-Turing NLG", categories=["cs.CL"]
    )
    for i, name in enumerate(
        ["Shaden Smith", "Mostofa Patwary", "Brandon Norick", "Patrick LeGresley", "Samyam Rajbhandari"],
        start=1,
    ):
        first, last = name.rsplit(" ", 1)
        PaperAuthor.objects.create(paper=mt, position=i, name=name, keyname=last, forenames=first)
    recorder = Recorder(s2_replay)
    sleeps: list[float] = []
    client = semanticscholar.SemanticScholarClient(
        S2_URL, api_key="k-123", transport=httpx.MockTransport(recorder), sleep=sleeps.append
    )
    summary = researchers_match_authors(
        sources=["semantic_scholar"], fetch=lambda s, ids: semanticscholar.fetch_works(client, ids)
    )
    assert summary.matched_by_source == 8
    request = recorder.requests[0]
    assert (request.method, request.url.path, request.headers["x-api-key"]) == (
        "POST",
        "/graph/v1/paper/batch",
        "k-123",
    )
    assert "authors.externalIds" in request.url.params["fields"]
    patwary = Authorship.objects.get(slot__paper=mt, slot__position=2).researcher
    assert patwary.display_name == "Mostofa Patwary"  # arXiv's spelling beats "M. Patwary"
    assert (
        patwary.identities.get().external_id == papers["2201.11990"]["authors"][1]["authorId"] == "66870756"
    )
    ntm.refresh_from_db()
    mt.refresh_from_db()
    assert (ntm.cited_by_count, mt.cited_by_count) == (2051, 476)
    assert Authorship.objects.filter(source="semantic_scholar").count() == 8


def test_client_backs_off_on_429_and_honours_rate_limit_headers():
    responses = [
        httpx.Response(429, headers={"Retry-After": "3"}),
        httpx.Response(503),
        httpx.Response(
            200, json={"ok": 1}, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "30"}
        ),
        httpx.Response(404),
    ]
    sleeps: list[float] = []
    now = [1000.0]
    client = SourceClient(
        "https://api.example.test",
        min_interval=0.0,
        backoff=2.0,
        transport=httpx.MockTransport(lambda request: responses.pop(0)),
        sleep=sleeps.append,
        clock=lambda: now[0],
    )
    assert client.request("GET", "works/x") == {"ok": 1}
    assert sleeps == [3.0, 4.0]  # Retry-After, then backoff 2 * 2**1
    assert client.request("GET", "works/y") is None  # 404
    assert sleeps[-1] == 30.0  # waited for X-RateLimit-Reset before the next request


def test_client_gives_up_after_retries():
    client = SourceClient(
        "https://api.example.test",
        min_interval=0.0,
        max_retries=2,
        transport=httpx.MockTransport(lambda request: httpx.Response(500)),
        sleep=no_sleep,
    )
    with pytest.raises(SourceUnavailable):
        client.request("GET", "works/x")
    assert client.requests_made == 3


def test_semantic_scholar_spacing_is_one_second_per_key():
    sleeps: list[float] = []
    now = [0.0]
    client = semanticscholar.SemanticScholarClient(
        S2_URL,
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=[])),
        sleep=lambda s: (sleeps.append(s), now.__setitem__(0, now[0] + s)),
        clock=lambda: now[0],
    )
    client.authors(["1"])
    client.authors(["2"])
    assert sleeps == [1.0]
