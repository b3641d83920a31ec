"""TeX in exports and pages, on the real sample: the whole sample's BibTeX read by
bibtexparser and set by bibtex + pdflatex, authors' own macros kept visible, RIS spacing,
the pith page's title (issue 21)."""

from __future__ import annotations

import shutil
import subprocess

import bibtexparser
import pytest
from lxml import etree, html

from papers.export import bibtex_for, bibtex_value
from papers.latex import compilable_tex
from papers.models import Paper
from provenance.models import Record
from provenance.services import records_sign
from researchers.models import Authorship, Researcher
from tests.site.conftest import read_as_plain_text

pytestmark = pytest.mark.django_db

# What a reader's document loads: the exported TeX is promised to compile with these.
_BIBLIOGRAPHY = r"""\nocite{*}
\bibliographystyle{plain}
\bibliography{sample}"""
_DOCUMENT = rf"""\documentclass{{article}}
\usepackage{{amsmath,amssymb}}
\begin{{document}}
{_BIBLIOGRAPHY}
\end{{document}}
"""


@pytest.fixture(scope="module")
def sample_bib(site_sample, django_db_blocker) -> str:
    """BibTeX of every paper in the sample, as the researcher export writes a list."""
    with django_db_blocker.unblock():
        return bibtex_for(Paper.objects.order_by("arxiv_id"))


def test_math_outside_dollars_is_wrapped_as_arxiv_writes_it():
    # The three titles that stopped pdflatex, and the shapes around them.
    assert compilable_tex(r"A \mu-ordinary Hasse invariant") == r"A $\mu$-ordinary Hasse invariant"
    assert compilable_tex(r"Representations of SL_2(C)") == r"Representations of SL$_2$(C)"
    assert compilable_tex(r"\chi_{c0,2} decay") == r"$\chi_{c0,2}$ decay"
    assert compilable_tex(r"J/\psi \to \gamma \phi \phi") == r"J/$\psi \to \gamma \phi \phi$"
    assert compilable_tex(r"sqrt(s_NN) = 200 and 10^19 eV") == r"sqrt(s$_{NN}$) = 200 and 10$^{19}$ eV"
    assert compilable_tex(r"LiHo_xY_{1-x}F_4") == r"LiHo$_x$Y$_{1-x}$F$_4$"
    # Text-mode TeX stays text; delimited math stays; an author's macro becomes its name.
    assert (
        compilable_tex(r"{\it tritronqu\'ee} and Schr\"odinger") == r"{\it tritronqu\'ee} and Schr\"odinger"
    )
    assert compilable_tex(r"sous $\PGL_n$ and $N=4$") == r"sous ${\mathrm{PGL}}_n$ and $N=4$"
    # A dollar without a partner is a dollar sign (0705.0459's "4\Lambda$-Terms").
    assert compilable_tex(r"4\Lambda$-Terms") == r"4$\Lambda$\$-Terms"


def test_the_whole_sample_parses_with_every_entry_and_its_fields(sample_bib):
    library = bibtexparser.parse_string(sample_bib)
    assert library.failed_blocks == []
    assert len(library.entries) == Paper.objects.count() == 2800
    assert len({entry.key for entry in library.entries}) == 2800
    by_id = {entry["eprint"]: entry for entry in library.entries}
    # Checked by hand against the sample's records (data/arxiv/).
    chi = by_id["0705.0101"]
    assert (
        chi["title"]
        == r"{$\chi_{c0,2}$ decay into light meson pairs and its implication of the scalar meson structures}"
    )
    assert chi["year"] == "2007" and chi["archivePrefix"] == "arXiv" and chi["primaryClass"] == "hep-ph"
    assert by_id["0801.4609"]["title"] == (
        r"{Un scindage de l'application de Frobenius sur toute l'alg\`ebre des distributions de SL$_2$}"
    )
    assert by_id["0801.3885"]["title"] == r"{Partial wave analysis of J/$\psi \to \gamma \phi \phi$}"
    assert by_id["0801.3811"]["title"] == r"{Vari\'et\'es homog\`enes sous ${\mathrm{PGL}}_n$}"
    assert by_id["0801.4566"]["url"] == "https://arxiv.org/abs/0801.4566"


_NEEDS_TEX = pytest.mark.skipif(
    not (shutil.which("pdflatex") and shutil.which("bibtex")),
    reason="needs pdflatex and bibtex (Debian's texlive-latex-base, which .ci/run installs)",
)

# Titles as arXiv writes them, and worse (found by fuzzing the function with pdflatex).
_AWKWARD = [
    r"A \mu-ordinary Hasse invariant",
    r"Representations of SL_2(C)",
    r"\chi_{c0,2} decay into light meson pairs",
    r"Measurement of B(D_S^+ --> ell^+ nu) and the Decay Constant f_D_{S^+}",
    r"Variable G and 4\Lambda$-Terms",
    r"$\Bz\to\pip\pim\piz$ Time Dependent Dalitz analysis",
    r"x^2^3 and $x^2^3$ and $\left( x$ and \right) y and \(z\) \bar",
    r"$\'e$ and $é$ and \"$x$ and \1 and a\\b and $x$\mu and $$ and $$$",
    r"c^\it and $x^\bar$ and \mathrm_\mu and x^~ and 100% & #1 and Wqt(sl_N^)",
]


def test_awkward_titles_compile(tmp_path):
    if not shutil.which("pdflatex"):
        pytest.skip("needs pdflatex (Debian's texlive-latex-base, which .ci/run installs)")
    body = "\n".join(rf"\noindent{{{compilable_tex(bibtex_value(t))}}}.\par" for t in _AWKWARD)
    (tmp_path / "awkward.tex").write_text(_DOCUMENT.replace(_BIBLIOGRAPHY, body), encoding="utf-8")
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "awkward.tex"]
    result = subprocess.run(latex, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout[-3000:]


@_NEEDS_TEX
def test_the_whole_sample_compiles_with_bibtex_and_pdflatex(sample_bib, tmp_path):
    (tmp_path / "sample.bib").write_text(sample_bib, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(_DOCUMENT, encoding="utf-8")
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"]

    def run(command: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)

    assert run(latex).returncode == 0
    bibtex = run(["bibtex", "paper"])
    log = (tmp_path / "paper.blg").read_text(encoding="utf-8", errors="replace")
    assert "error message" not in log, log[-3000:]
    assert bibtex.returncode in (0, 1), bibtex.stdout[-3000:]  # 1: warnings only
    assert (tmp_path / "paper.bbl").read_text(encoding="utf-8").count(r"\bibitem") == 2800
    final = run(latex)
    errors = [line for line in final.stdout.splitlines() if line.startswith("!")]
    assert final.returncode == 0 and not errors, final.stdout[-3000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 0


def _text(page: bytes, xpath: str) -> str:
    """The text of the first element ``xpath`` finds in an HTML page, its math read by its
    alttext (:func:`tests.site.conftest.read_as_plain_text`)."""
    return read_as_plain_text(html.fromstring(page).xpath(xpath)[0])


def _ris(client, arxiv_id: str) -> dict[str, list[str]]:
    lines = client.get(f"/papers/{arxiv_id}/export.ris").content.decode().split("\r\n")
    tags: dict[str, list[str]] = {}
    for line in lines:
        if line[2:6] == "  - ":
            tags.setdefault(line[:2], []).append(line[6:])
    return tags


def test_an_authors_own_macros_are_read_on_the_page_in_feeds_and_ris(site_sample, client):
    # 0704.0571's title is "$\Bz\to\pip\pim\piz$ Time Dependent Dalitz analysis at BaBar":
    # \Bz, \pip, \pim, \piz are BaBar's own macros; they read "→ Time Dependent ..." once,
    # then "\Bz→\pip\pim\piz"; papers.macros has their readings now.
    paper = Paper.objects.get(arxiv_id="0704.0571")
    shown = "B⁰→π⁺π⁻π⁰ Time Dependent Dalitz analysis at BaBar"
    page = client.get(paper.get_absolute_url())
    assert _text(page.content, "//h1") == shown
    assert _ris(client, "0704.0571")["TI"] == [shown]
    researcher = Researcher.objects.create(display_name="B. Aubert", paper_count=1)
    slot = paper.authors.order_by("position").first()
    Authorship.objects.create(
        slot=slot, paper=paper, researcher=researcher, method="editor", confidence=1.0, block="b aubert"
    )
    feed = etree.fromstring(client.get(f"/rss/researchers/{researcher.pk}.xml").content)
    assert feed.xpath("//item/title/text()") == [shown]
    # In an abstract (0801.4655): "\D U_t = ... \D t + \D X_t", its author's differential,
    # has no known reading: its name, never dropped (papers.macros, rule 3).
    abstract = _ris(client, "0801.4655")["AB"][0]
    assert "D U_t" in abstract and "D t + D X_t" in abstract and "\\" not in abstract


def test_ris_keeps_the_space_after_math_and_macros(site_sample, client):
    # 0704.0039: "precise determinations of \pi\pi scattering" read "ππscattering" in RIS.
    assert "determinations of ππ scattering" in _ris(client, "0704.0039")["AB"][0]
    # 0704.0253: "24, 70, and 160\micron observed" (\micron is aastex's micrometre).
    assert "24, 70, and 160μm observed" in _ris(client, "0704.0253")["AB"][0]


def test_the_pith_page_reads_the_title_as_the_paper_page_does(site_sample, client):
    # 0705.0654: "The magnetic groundstate of an experimental $S=1/2$ kagom\'{e} antiferromagnet".
    paper = Paper.objects.get(arxiv_id="0705.0654")
    records_sign(paper_ids=[paper.pk])
    record = Record.objects.filter(paper=paper).latest("source_version")
    pith = client.get(f"/pith/{record.pith_body}").content
    title = _text(pith, f"//article//p/a[@href='{paper.get_absolute_url()}']")
    assert title == "The magnetic groundstate of an experimental S=1/2 kagomé antiferromagnet"
    assert title == _text(client.get(paper.get_absolute_url()).content, "//h1")


def test_the_sample_abstracts_and_snippets_show_no_raw_tex(site_sample, client):
    # 0705.0987's abstract showed "1750 \au" and "545 \GHz" on its page.
    page = html.fromstring(client.get(Paper.objects.get(arxiv_id="0705.0987").get_absolute_url()).content)
    abstract = read_as_plain_text(page.xpath("//section[contains(@class, 'abstract')]")[0])
    assert "impact parameter of 1750 AU, as expected" in abstract and "ν = 30, 353, 545 GHz" in abstract
    assert "\\" not in abstract
    # A search snippet showed "\magcir 5 ×10…" (0801.3889): snippets are the plain reading.
    found = client.get("/search", {"q": "corresponding typical halo respectively", "mode": "keyword"})
    snippets = html.fromstring(found.content).xpath("//p[contains(@class, 'paper-item-abstract')]")
    texts = [" ".join(snippet.text_content().split()) for snippet in snippets]
    assert any("≳ 5 × 10^13 h^-1 M_⊙" in text for text in texts), texts
    assert not any("magcir" in text for text in texts)
    # 0705.0921's "can be %observed": the % is text, as on arXiv's page, and the rest stays.
    found = client.get("/search", {"q": "relic density producing", "mode": "keyword"})
    texts = [" ".join(p.text_content().split()) for p in html.fromstring(found.content).xpath("//p")]
    assert any("%The possibility that a relic density producing t̃_1" in text for text in texts), texts


def test_a_tilde_outside_math_is_kept_as_written(client, sample_papers):
    # Issue 32: TeX's tie read ~ as a space: "(N_H10^22" glued, a URL broken, "z 2.56",
    # "( 35%)". arXiv shows ~ as written; in math it stays TeX's space.
    from papers.templatetags.wove import readable_text

    cases = {
        "0705.0234": "(N<sub>H</sub>~10^22 cm<sup>-2</sup>",
        "0705.0114": "http://staff.science.uva.nl/~claw/thesis_claw.pdf",
        "0704.0133": 'class="paper-title">PAH emission and star formation in the host of the z~2.56',
        "0801.4173": "strong (~35%) flat-topped",
    }
    for arxiv_id, shown in cases.items():
        html = " ".join(client.get(f"/papers/{arxiv_id}", follow=True).content.decode().split())
        assert shown in html, arxiv_id
    assert readable_text(r"Fig.~1 and $a~b$") == "Fig.~1 and a b"
