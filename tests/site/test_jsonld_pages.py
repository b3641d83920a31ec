"""Each page's JSON-LD, read with extruct as crawlers read it, says what the page shows: the
same name, the breadcrumb trail of its ``nav``, the same identifiers (issue 21)."""

from __future__ import annotations

from urllib.parse import urljoin

import extruct
import pytest
from django.conf import settings
from lxml import html

from papers.models import Collaboration, Paper
from provenance.models import Record
from provenance.services import records_sign
from tests.site.conftest import read_as_plain_text

pytestmark = pytest.mark.django_db


class Page:
    """A page as a reader and a crawler see it: the lxml tree and the JSON-LD nodes."""

    def __init__(self, client, url: str):
        response = client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode()
        self.url = url
        self.tree = html.fromstring(text)
        blocks = extruct.extract(text, base_url=settings.SITE_URL + url, syntaxes=["json-ld"])["json-ld"]
        self.nodes = [node for block in blocks for node in block.get("@graph", [block])]

    def node(self, kind: str) -> dict:
        found = [node for node in self.nodes if node.get("@type") == kind]
        assert len(found) == 1, (kind, [n.get("@type") for n in self.nodes])
        return found[0]

    def text(self, xpath: str) -> str:
        """The text of the first element ``xpath`` finds, as plain text reads the TeX it
        sets: each ``<math>`` as its alttext, a subscript as ``_x``, a superscript as ``^x``
        (``f<sub>D</sub>`` is ``f_D``); see :func:`tests.site.conftest.read_as_plain_text`."""
        return read_as_plain_text(self.tree.xpath(xpath)[0])

    def nav_trail(self) -> list[tuple[str, str | None]]:
        """The visible breadcrumb: ``(name, absolute URL or None)`` for each step."""
        nav = self.tree.xpath("//nav[contains(@class, 'breadcrumbs')]")[0]
        steps: list[tuple[str, str | None]] = []

        def words(text: str | None) -> None:
            steps.extend((part.strip(), None) for part in (text or "").split("›") if part.strip())

        words(nav.text)
        for child in nav:
            href = child.get("href")
            steps.append(
                (child.text_content().strip(), urljoin(settings.SITE_URL + "/", href) if href else None)
            )
            words(child.tail)
        return steps

    def breadcrumb(self) -> list[tuple[str, str | None]]:
        items = sorted(self.node("BreadcrumbList")["itemListElement"], key=lambda i: i["position"])
        assert [i["position"] for i in items] == list(range(1, len(items) + 1))
        return [(i["name"], i.get("item")) for i in items]

    def assert_breadcrumb_is_the_nav(self) -> None:
        trail, crumbs = self.nav_trail(), self.breadcrumb()
        assert [name for name, _ in crumbs] == [name for name, _ in trail]
        for (_, link), (_, shown) in zip(crumbs, trail, strict=True):
            # A step shown without a link is the page itself: no item, or the page's URL.
            assert link == shown or (shown is None and link in (None, settings.SITE_URL + self.url))

    def assert_site_search_is_the_form(self) -> None:
        site = self.node("WebSite")
        target = site["potentialAction"]["target"]["urlTemplate"]
        form = self.tree.xpath("//header//form[@role='search']")[0]
        field = form.xpath(".//input[@type='search' or @type='text']")[0].get("name")
        assert (
            target
            == urljoin(settings.SITE_URL + "/", form.get("action")) + f"?{field}={{search_term_string}}"
        )
        assert site["url"] in (settings.SITE_URL, settings.SITE_URL + "/")


@pytest.mark.parametrize("url", ["/", "/papers/", "/researchers", "/institutions"])
def test_home_and_lists_send_the_site_graph_their_search_form_uses(site_sample, client, url):
    page = Page(client, url)
    page.assert_site_search_is_the_form()
    assert page.node("Organization")["name"] == page.node("WebSite")["name"] == "wovepaper"


def test_paper_page_name_trail_and_identifiers(site_sample, client):
    # 0704.0629 (CLEO): a journal DOI besides arXiv's, primary category hep-ex.
    paper = Paper.objects.get(arxiv_id="0704.0629")
    page = Page(client, paper.get_absolute_url())
    article = page.node("ScholarlyArticle")
    assert article["name"] == page.text("//h1")
    page.assert_breadcrumb_is_the_nav()
    assert [name for name, _ in page.breadcrumb()] == [
        "wovepaper",
        "Papers",
        "High Energy Physics - Experiment",
    ]
    ids = {(i["propertyID"], i["value"]) for i in article["identifier"]}
    shown_dois = page.tree.xpath(
        "//dt[starts-with(., 'DOI') or . = 'arXiv DOI']/following-sibling::dd[1]/a/text()"
    )
    assert ids == {("arXiv", "0704.0629")} | {("DOI", doi) for doi in shown_dois}
    assert ("DOI", "10.1103/PhysRevLett.99.071802") in ids and ("DOI", "10.48550/arXiv.0704.0629") in ids
    assert page.text("//p[@class='eyebrow']").startswith("arXiv:0704.0629")
    assert "creativeWorkStatus" not in article
    page.assert_site_search_is_the_form()


def test_withdrawn_paper_says_so_in_its_json_ld_as_on_the_page(site_sample, client):
    paper = Paper.objects.get(arxiv_id="0801.4566")
    Paper.objects.filter(pk=paper.pk).update(withdrawn=True)
    page = Page(client, paper.get_absolute_url())
    assert "withdrawn" in page.text("//p[@role='note']")
    assert page.node("ScholarlyArticle")["creativeWorkStatus"] == "Withdrawn"
    page.assert_breadcrumb_is_the_nav()


def test_researcher_page_name_trail_and_orcid(site_sample, client):
    strominger = site_sample["strominger"]
    strominger.orcid = "0000-0002-1825-0097"  # ORCID's documented example iD (valid check digit)
    strominger.save(update_fields=["orcid"])
    page = Page(client, strominger.get_absolute_url())
    person = page.node("Person")
    assert person["name"] == page.text("//h1") == "Andrew Strominger"
    page.assert_breadcrumb_is_the_nav()
    link = page.tree.xpath("//a[starts-with(@href, 'https://orcid.org/')]")[0]
    assert person["identifier"] == {
        "@type": "PropertyValue",
        "propertyID": "ORCID",
        "value": "0000-0002-1825-0097",
    }
    assert (
        person["sameAs"] == [link.get("href")] and link.text_content().strip() == "ORCID 0000-0002-1825-0097"
    )


def test_institution_page_name_trail_and_ror_id(site_sample, client):
    tokyo = site_sample["tokyo"]
    page = Page(client, tokyo.get_absolute_url())
    organization = _institution(page)
    assert organization["name"] == page.text("//h1") == "The University of Tokyo"
    page.assert_breadcrumb_is_the_nav()
    shown = page.text("//dt[. = 'ROR ID']/following-sibling::dd[1]")
    assert organization["identifier"]["value"] == organization["@id"] == shown == "https://ror.org/057zh3y96"


def _institution(page: Page) -> dict:
    """The institution's own ``Organization`` (the site graph sends wovepaper's too)."""
    found = [n for n in page.nodes if n.get("@type") == "Organization" and n.get("identifier")]
    assert len(found) == 1
    return found[0]


def test_collaboration_page_name_and_trail(site_sample, client):
    collaboration = Collaboration.objects.get(name="CLEO Collaboration")
    page = Page(client, collaboration.get_absolute_url())
    organization = [
        n
        for n in page.nodes
        if n.get("@type") == "Organization" and n.get("@id", "").endswith(collaboration.get_absolute_url())
    ]
    assert len(organization) == 1 and organization[0]["name"] == page.text("//h1") == "CLEO Collaboration"
    page.assert_breadcrumb_is_the_nav()


def test_pith_page_sends_the_trail_it_shows(site_sample, client):
    paper = Paper.objects.get(arxiv_id="0801.4566")
    records_sign(paper_ids=[paper.pk])
    record = Record.objects.filter(paper=paper).latest("source_version")
    page = Page(client, f"/pith/{record.pith_body}")
    page.assert_breadcrumb_is_the_nav()
    assert page.breadcrumb() == [
        ("wovepaper", settings.SITE_URL + "/"),
        ("arXiv:0801.4566", settings.SITE_URL + paper.get_absolute_url()),
        ("Provenance", None),
    ]


@pytest.mark.parametrize(
    ("arxiv_id", "name"),
    [
        ("0704.0283", "On the Markov trace for Temperley–Lieb algebras of type E_n"),
        (
            "0705.0230",
            "Comment on “Collapse of Coherent Quasiparticle States in θ-(BEDT-TTF)_2I_3 Observed by "
            "Optical Spectroscopy”",
        ),
        (
            "0705.0101",
            "χ_c0,2 decay into light meson pairs and its implication of the scalar meson structures",
        ),
        # The heading closed the root after "R" and glued "and" to the stray brace's script.
        (
            "0705.0889",
            "Consistency of f(R)=√(R^2-R_0^2) Gravity with the Cosmological Observations in "
            "Palatini Formalism",
        ),
        # The title's "sqrt{s}" (no backslash) read "sqrts".
        (
            "0801.4375",
            "Measurement of Ratios of Fragmentation Fractions for Bottom Hadrons in p-pbar "
            "Collisions at √(s)=1.96 TeV",
        ),
        (
            "0801.3763",
            "EPR and magnetization studies on single crystals of a heterometallic (Cu^II and "
            "Cr^III) complex: zero-field splitting determination",
        ),
    ],
)
def test_paper_names_with_tex_read_as_the_heading_shows_them(site_sample, client, arxiv_id, name):
    # The heading showed "--" and ``...'' where the JSON-LD read "–" and “...” (no other TeX
    # in the text around the math); both now read TeX's ligatures. The heading's math is
    # MathML: read by its alttext, which must be there and be the name's own reading.
    page = Page(client, Paper.objects.get(arxiv_id=arxiv_id).get_absolute_url())
    assert page.node("ScholarlyArticle")["name"] == page.text("//h1") == name


def test_the_heading_sets_its_root_as_mathml_read_by_its_alttext(site_sample, client):
    # 0705.0889: MathML's <msqrt> holds the whole radicand, its scripts inside.
    page = Page(client, Paper.objects.get(arxiv_id="0705.0889").get_absolute_url())
    [math] = page.tree.xpath("//h1//math")
    assert math.get("alttext") == "f(R)=√(R^2-R_0^2)"
    assert [radicand.tag for radicand in math.xpath(".//msqrt/mrow/*")] == ["msup", "mo", "msubsup"]
    # MathML's own text drops the root sign and the scripts' marks: alttext is the reading.
    assert " ".join(math.text_content().split()) == "f(R)=R2−R02"
