"""Every page kind through the validators readers' tools run: axe-core (no serious or critical
violation) at 1280 and 390 px wide, and the Nu Html Checker (no error) on the HTML each sends.

One walk per module: the real sample is harvested and matched once, Debian's Chromium visits
each page kind at both widths as a visitor, a signed-in reader or an editor, saves a
screenshot and the HTML it was sent under ``var/test-artifacts/pages/``, and runs axe-core
4.12 (bundled in ``axe-playwright-python``; nothing is downloaded). The tests then read the
walk's findings, one test per page kind and width, and the Nu Html Checker (``vnu.jar`` from
npm ``vnu-jar``, installed by ``make install``) reads every saved page in one batch.

A new page kind is one more :class:`PageKind` in :data:`PAGE_KINDS`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client, override_settings
from pytest_django.live_server_helper import LiveServer

from accounts.services import follow_create
from curation.claims import claim_decide, researcher_claim
from curation.proposals import merge_propose
from institutions.models import AuthorAffiliation, Institution, InstitutionName
from papers import harvest
from papers.affiliations import normalize
from papers.models import Collaboration, Paper
from provenance.models import Record
from provenance.services import records_sign
from researchers.models import Authorship, Researcher
from researchers.services import researchers_match_authors
from tests.conftest import (
    ARTIFACT_DIRS_WRITTEN,
    PAGE_ARTIFACTS,
    ROOT,
    SAMPLE_KAGGLE,
    SAMPLE_OAI_ARXIV,
    SAMPLE_OAI_RAW,
    seeded_restore,
)
from tests.site.conftest import site_pages

# django_db (rolled back per test, never flushed): it makes pytest-django create the test
# database; the module's data is committed once by the ``site`` fixture.
pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PAGES_DIR = PAGE_ARTIFACTS
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
# axe-core's impact levels that fail a page; "moderate" and "minor" are reported by the
# walk's artefacts only.
FAILING_IMPACTS = {"serious", "critical"}
COLLABORATION_FILE = ROOT / "tests" / "fixtures" / "arxiv" / "oai" / "edited_arXivRaw_collaboration_forms.xml"


@dataclass(frozen=True)
class PageKind:
    """One kind of page the site serves.

    ``path`` is a path, or a function of the walk's records (a dict: ``paper``,
    ``researcher``, ``institution``, ``collaboration``, ``pith``, ``pair``) giving one.
    ``persona`` is who visits: ``visitor`` (anonymous), ``reader`` (signed in, following a
    researcher), ``owner`` (signed in, owner of a claimed record: ``claim`` is its claim's id)
    or ``editor`` (staff in the Editors group). ``status`` is the expected HTTP
    status; ``ready`` a CSS selector to wait for on pages that draw themselves with script.
    """

    name: str
    path: str | Callable[[dict], str]
    persona: str = "visitor"
    status: int = 200
    ready: str = ""  # a selector to wait for: the page draws itself with script

    def url_path(self, records: dict) -> str:
        return self.path(records) if callable(self.path) else self.path


PAGE_KINDS = [
    PageKind("home", "/"),
    PageKind("search-papers", "/search?q=black+hole"),
    PageKind("search-researchers", "/search?q=strominger&type=researchers"),
    PageKind("search-institutions", "/search?q=tokyo&type=institutions"),
    PageKind("paper", lambda r: r["paper"].get_absolute_url()),
    # MathML (issue 32): a root in the title (0705.0889); display math sized by \biggl( with
    # a \qquad (0705.0456); an author's units and relations (0705.0987).
    PageKind("paper-math-title", lambda r: r["math"]["0705.0889"].get_absolute_url()),
    PageKind("paper-math-abstract", lambda r: r["math"]["0705.0456"].get_absolute_url()),
    PageKind("paper-math-macros", lambda r: r["math"]["0705.0987"].get_absolute_url()),
    PageKind("paper-authors", lambda r: r["paper"].get_absolute_url() + "/authors"),
    PageKind("researcher", lambda r: r["researcher"].get_absolute_url()),
    PageKind("institution", lambda r: r["institution"].get_absolute_url()),
    PageKind("collaboration", lambda r: r["collaboration"].get_absolute_url()),
    PageKind("papers-list", "/papers/"),
    PageKind("researchers-list", "/researchers"),
    PageKind("institutions-list", "/institutions"),
    PageKind("not-found", "/papers/2401.10241", status=404),
    PageKind("pith", lambda r: f"/pith/{r['pith']}"),
    PageKind("about", "/about"),
    PageKind("developers", "/developers"),
    PageKind("api-docs", "/api/docs", ready=".opblock"),
    PageKind("sign-in", "/accounts/login/"),
    PageKind("sign-up", "/accounts/signup/"),
    PageKind("following", "/accounts/following", persona="reader"),
    # Issue 31: the owner of a claimed record (one sharing a name block with another
    # record's unconfirmed link, so "papers that may be yours" lists it).
    PageKind("claims", "/accounts/claims/", persona="owner"),
    PageKind("owner-papers", lambda r: f"/accounts/claims/{r['claim']}/papers", persona="owner"),
    PageKind("owner-take", lambda r: f"/accounts/claims/{r['claim']}/take", persona="owner"),
    PageKind("owner-merge", lambda r: f"/accounts/claims/{r['claim']}/merge", persona="owner"),
    PageKind("merge", lambda r: "/admin/curation/merge/?ids={},{}".format(*r["pair"]), persona="editor"),
    PageKind("same-name-queue", "/admin/curation/queue/", persona="editor"),
    PageKind("unconfirmed-review", "/admin/curation/unconfirmed/", persona="editor"),
    PageKind("merge-proposals", "/admin/curation/proposals/", persona="editor"),
    PageKind("merge-proposal", lambda r: f"/admin/curation/proposals/{r['proposal']}/", persona="editor"),
]


def _sample_records(signing_key: Path) -> dict:
    """Harvest and match the real sample, link one institution, sign one paper; return the
    records the page kinds name."""
    site_pages()
    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW, COLLABORATION_FILE])
    harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
    researchers_match_authors(sources=[])
    paper = Paper.objects.get(arxiv_id="0801.4566")
    tokyo = Institution.objects.create(
        ror_id="057zh3y96", name="The University of Tokyo", country_code="JP", country_name="Japan",
        city="Tokyo",
    )  # fmt: skip
    for kind, value in (("ror_display", "The University of Tokyo"), ("acronym", "UTokyo")):
        InstitutionName.objects.create(institution=tokyo, kind=kind, value=value, normalized=normalize(value))
    AuthorAffiliation.objects.create(
        slot=paper.authors.get(position=1), institution=tokyo, source="string-match", confidence=0.9
    )
    with override_settings(PROVENANCE_SIGNING_KEY_FILE=str(signing_key), PROVENANCE_KEY_ID=""):
        records_sign(paper_ids=[paper.pk])

    def holder(arxiv_id: str, position: int) -> int:
        slot = Authorship.objects.get(slot__paper__arxiv_id=arxiv_id, slot__position=position)
        return slot.researcher_id

    math = ("0705.0889", "0705.0456", "0705.0987")
    return {
        "paper": paper,
        "math": {p.arxiv_id: p for p in Paper.objects.filter(arxiv_id__in=math)},
        # Damien Chablat: 8 papers, a network of 4 with Stéphane Caro on the left (tests/researchers).
        "researcher": Researcher.objects.get(pk=holder("0705.0856", 3)),
        "institution": tokyo,
        "collaboration": Collaboration.objects.get(key="cms"),
        "pith": Record.objects.filter(source_id=paper.arxiv_id).order_by("-pk").first().pith_body,
        # Lucas A. Cieza and Lucas Cieza: two records of one astronomer (tests/curation).
        "pair": (holder("0801.4572", 1), holder("0801.4403", 1)),
    }


def _personas(records: dict, signing_key: Path) -> dict[str, str]:
    """Signed-in users and their session ids: ``{"reader", "owner", "editor": sessionid}``;
    the owner's claim and merge proposal ids go into ``records["claim"]`` and
    ``records["proposal"]``."""
    users = get_user_model().objects
    reader = users.create_user("reader", "reader@example.org", "pw-reader-123")
    follow_create(user_id=reader.pk, target=Researcher.objects.order_by("-paper_count", "pk").first())
    editor = users.create_user("editor", "editor@example.org", "pw-editor-123", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    owner = users.create_user("owner", "owner@example.org", "pw-owner-123")
    guess = Authorship.objects.filter(unconfirmed=True).order_by("pk").first()
    owned = Authorship.objects.filter(block=guess.block).exclude(researcher_id=guess.researcher_id).first()
    with override_settings(PROVENANCE_SIGNING_KEY_FILE=str(signing_key), PROVENANCE_KEY_ID=""):
        claim = researcher_claim(
            user=owner, researcher_id=owned.researcher_id, verified_orcid=None, evidence="My publication list"
        )
        claim_decide(claim_id=claim.pk, editor=editor, approve=True, reason="The list matches")
    # ...who proposes the record holding the guess as theirs too (an editor's queue item).
    proposal = merge_propose(
        user=owner, claim_id=claim.pk, other_id=guess.researcher_id, evidence="Same initials, same papers"
    )
    records["claim"], records["proposal"] = claim.pk, proposal.pk
    sessions = {}
    for name, user in (("reader", reader), ("owner", owner), ("editor", editor)):
        client = Client()
        client.force_login(user)
        sessions[name] = client.cookies["sessionid"].value
    return sessions


def _visit(page, kind: PageKind, url: str, width: str) -> dict:
    """Open ``url``, save its screenshot (and at desktop width its HTML as sent), run axe-core."""
    response = page.goto(url)
    if kind.ready:
        page.wait_for_selector(kind.ready)
    if width == "desktop":
        (PAGES_DIR / f"{kind.name}.html").write_bytes(response.body())
    page.screenshot(path=str(PAGES_DIR / f"{kind.name}-{width}.png"), full_page=True)
    results = Axe().run(page)
    return {"status": response.status, "url": page.url, "violations": results.response["violations"]}


@dataclass
class Site:
    """The walk's data and a way in: ``records`` (see :class:`PageKind`), ``sessions``
    (persona: session id), ``url`` (the live server's root)."""

    records: dict
    sessions: dict[str, str]
    url: str

    def context(self, browser, width: str, persona: str = "visitor"):
        """A browser context ``width`` wide (a key of :data:`WIDTHS`), signed in as ``persona``."""
        w, h = WIDTHS[width]
        context = browser.new_context(viewport={"width": w, "height": h})
        if persona in self.sessions:
            context.add_cookies([{"name": "sessionid", "value": self.sessions[persona], "url": self.url}])
        return context


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker, tmp_path_factory):
    """The real sample, matched, with the personas, served by a live server of the module's
    own; committed (the server reads it from its own connection) and flushed when the
    module ends, as a transactional test's teardown does.

    Not pytest-django's ``live_server``: a test using it gets a flush after each test, which
    would empty the tables between this module's tests."""
    assert connection.settings_dict["NAME"].startswith("test_"), "not the test database"
    with django_db_blocker.unblock():
        # What the migrations seeded (arXiv's taxonomy, the CMS pages...), put back after the
        # flush: pytest-django runs this module among the rolled-back tests, which read it.
        seeded = connection.creation.serialize_db_to_string()
        server = LiveServer("localhost:0")
        try:
            key = tmp_path_factory.mktemp("keys") / "provenance-ed25519.pem"
            records = _sample_records(key)
            yield Site(records=records, sessions=_personas(records, key), url=server.url)
        finally:
            server.stop()
            # As a serialized rollback does: no post_migrate rows, the seeded ones come back.
            seeded_restore(seeded)


@pytest.fixture(scope="module")
def walk(browser, site):
    """Every page kind at both widths: ``{(kind name, width): {"status", "url", "violations"}}``;
    screenshots, the HTML and every axe finding (``axe.json``) under :data:`PAGES_DIR`."""
    if PAGES_DIR.exists():
        shutil.rmtree(PAGES_DIR)
    PAGES_DIR.mkdir(parents=True)
    ARTIFACT_DIRS_WRITTEN.append(PAGES_DIR)
    found: dict[tuple[str, str], dict] = {}
    for width in WIDTHS:
        for persona in ("visitor", "reader", "owner", "editor"):
            context = site.context(browser, width, persona)
            page = context.new_page()
            for kind in PAGE_KINDS:
                if kind.persona == persona:
                    url = site.url + kind.url_path(site.records)
                    found[kind.name, width] = _visit(page, kind, url, width)
            context.close()
    (PAGES_DIR / "axe.json").write_text(
        json.dumps({f"{name}-{width}": seen for (name, width), seen in found.items()}, indent=1)
    )
    return found


def _report(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        lines += [
            f"    {', '.join(map(str, node['target']))}: {node['html'][:160]}" for node in violation["nodes"]
        ]
    return "\n".join(lines)


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("kind", PAGE_KINDS, ids=lambda kind: kind.name)
def test_axe_finds_no_serious_violation(walk, kind, width):
    seen = walk[kind.name, width]
    assert seen["status"] == kind.status, seen["url"]
    failing = [v for v in seen["violations"] if v["impact"] in FAILING_IMPACTS]
    assert not failing, f"{seen['url']} at {WIDTHS[width][0]} px:\n{_report(failing)}"


@pytest.fixture(scope="module")
def nu_messages(walk) -> dict[str, list[dict]]:
    """The Nu Html Checker's errors on every saved page, one batch: ``{kind name: [message]}``."""
    java = shutil.which("java")
    if not java:
        pytest.skip("no java on PATH: the Nu Html Checker (vnu.jar) needs a Java runtime")
    if not VNU_JAR.exists():
        pytest.skip(f"{VNU_JAR} missing: `make install` installs npm vnu-jar (package.json)")
    files = sorted(PAGES_DIR.glob("*.html"))
    run = subprocess.run(
        [java, "-jar", str(VNU_JAR), "--format", "json", "--exit-zero-always", *map(str, files)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    messages: dict[str, list[dict]] = {path.stem: [] for path in files}
    for message in json.loads(run.stderr)["messages"]:
        if message["type"] == "error" or message.get("subType") == "fatal":
            messages[Path(message["url"].removeprefix("file:")).stem].append(message)
    return messages


@pytest.mark.parametrize("kind", PAGE_KINDS, ids=lambda kind: kind.name)
def test_nu_html_checker_finds_no_error(nu_messages, kind):
    errors = nu_messages[kind.name]
    report = "\n".join(f"line {m.get('lastLine')}: {m['message']} [{m.get('extract', '')!r}]" for m in errors)
    assert not errors, f"{kind.name}.html:\n{report}"


@pytest.mark.parametrize("persona", ["visitor", "reader"])
def test_phone_navigation_keeps_search(browser, site, persona):
    """At 390 px the header's navigation still offers Search, and every one of its links lies
    inside the screen, on a page with the header's search box and on the search page (which
    has none in the header); signed out ("Sign in") and in ("Following")."""
    context = site.context(browser, "phone", persona)
    page = context.new_page()
    try:
        for path in ("/papers/", "/search?q=black+hole"):
            page.goto(site.url + path)
            nav = page.get_by_role("navigation", name="Main")
            assert nav.get_by_role("link", name="Search", exact=True).is_visible(), path
            boxes = {link.inner_text(): link.bounding_box() for link in nav.get_by_role("link").all()}
            assert len(boxes) == 5  # About gives way below 480 px
            outside = {
                name: box for name, box in boxes.items() if box["x"] < 0 or box["x"] + box["width"] > 390
            }
            assert not outside, path
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    finally:
        context.close()


LABEL_BOXES = """() => {
  const svg = document.querySelector('.network-svg');
  const view = svg.viewBox.baseVal;
  return [view.x, view.width, [...svg.querySelectorAll('.net-label')].map(t => {
    const b = t.getBBox();
    return [t.textContent, b.x, b.x + b.width];
  })];
}"""


@pytest.mark.parametrize("width", list(WIDTHS))
def test_network_labels_are_drawn_whole(browser, site, width):
    """Every co-author label of the network lies inside the picture's viewBox (the live site
    cut "Stéphane Caron" to "éphane Caro" at the left edge)."""
    context = site.context(browser, width)
    page = context.new_page()
    try:
        page.goto(site.url + site.records["researcher"].get_absolute_url())
        left, span, labels = page.evaluate(LABEL_BOXES)
        assert [text for text, _lo, _hi in labels] == [
            "Philippe Wenger", "Jorge Angeles", "Emilie Bouyer", "Stéphane Caro",
        ]  # fmt: skip
        outside = [
            (text, round(lo, 1), round(hi, 1)) for text, lo, hi in labels if lo < left or hi > left + span
        ]
        assert not outside, f"viewBox x from {left} to {left + span}: {outside}"
    finally:
        context.close()
