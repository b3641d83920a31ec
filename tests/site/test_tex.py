"""TeX in titles and abstracts as escaped HTML with MathML, and search-match highlighting."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from papers.mathml import tex_to_mathml
from papers.oai import parse_oai_response
from papers.templatetags.wove import _math_html, highlight, readable_text, texhtml
from tests.conftest import SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW


def math(alttext: str, body: str) -> str:
    """The ``<math>`` element texhtml writes: inline, its plain reading as alttext."""
    return f'<math display="inline" alttext="{alttext}"><mrow>{body}</mrow></math>'


def test_inline_math_is_mathml_with_its_plain_reading_as_alttext():
    assert str(texhtml(r"The $N=4$ SYM and $\alpha_{s}(M_Z^2)$")) == (
        "The "
        + math("N=4", "<mi>N</mi><mo>=</mo><mn>4</mn>")
        + " SYM and "
        + math(
            "α_s(M_Z^2)",
            '<msub><mi>α</mi><mrow><mi>s</mi></mrow></msub><mo stretchy="false">(</mo>'
            '<msubsup><mi>M</mi><mi>Z</mi><mn>2</mn></msubsup><mo stretchy="false">)</mo>',
        )
    )
    # The plain reading, for feeds, JSON-LD and <title>, is unchanged.
    assert readable_text(r"The $N=4$ SYM and $\alpha_{s}(M_Z^2)$") == "The N=4 SYM and α_s(M_Z^2)"


def test_bare_scripts_in_abstracts_and_the_space_after_macros():
    html = str(texhtml(r"constant -1/\ell^2 with 1/\mu is studied in AdS_3, file_name stays"))
    assert html == "constant -1/ℓ<sup>2</sup> with 1/μ is studied in AdS<sub>3</sub>, file_name stays"


def test_everything_is_escaped_and_broken_tex_falls_back_to_text():
    html = str(texhtml('</script><b>x</b> & "q" $x^{<i>}$'))
    assert html == (
        "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; "
        + math("x^&lt;i&gt;", "<msup><mi>x</mi><mrow><mo>&lt;</mo><mi>i</mi><mo>&gt;</mo></mrow></msup>")
    )
    # latex2mathml cannot read "x^{": the plain reading, escaped, and no <math>.
    assert str(texhtml("broken $x^{$ <end>")) == "broken x^ &lt;end&gt;"
    assert readable_text(r"Q\&A & more: M{\"u}ller") == "Q&A & more: Müller"


# User TeX that would be markup if latex2mathml's own string output were sent: its text,
# its \href and \color attributes, a quote closing the alttext.
INJECTIONS = [
    r"$\text{<script>alert(1)</script>}$",
    r'$\mbox{"><img src=x onerror=alert(1)>}$',
    r"$\href{javascript:alert(1)}{x}$",
    r"$\color{red} x \mathrm{</math><script>}$",
    r'$x" onmouseover="alert(1)$',
    r"$\text{&lt;b&gt;}$ \(\textrm{<iframe>}\) \[\operatorname{<svg onload=alert(1)>}\]",
]
MATHML = {"math", "mrow", "mi", "mn", "mo", "mtext", "mstyle", "msup", "msub", "msubsup"}


@pytest.mark.parametrize("tex", INJECTIONS)
def test_user_tex_in_mathml_cannot_inject_markup(tex):
    html = str(texhtml(tex))
    tree = lxml_html.fragment_fromstring(html, create_parent="p")
    tags = {element.tag for element in tree.iter()} - {"p"}
    assert tags <= MATHML, (html, tags)
    attributes = {name for element in tree.iter() for name in element.attrib}
    assert attributes <= {"display", "alttext", "mathvariant", "stretchy", "displaystyle", "scriptlevel"}


def test_injected_text_shows_as_text():
    assert str(texhtml(r"$\text{<script>alert(1)</script>}$")) == math(
        "&lt;script&gt;alert(1)&lt;/script&gt;", "<mtext>&lt;script&gt;alert(1)&lt;/script&gt;</mtext>"
    )
    # \href's link is dropped, its text kept; a literal "&lt;" stays as written.
    assert str(texhtml(r"$\href{javascript:alert(1)}{x}$")) == math(
        "x", "<mrow><mrow><mi>x</mi></mrow></mrow>"
    )
    assert tex_to_mathml(r"\text{&lt;b&gt;}", alttext='"q"') == (
        '<math display="inline" alttext="&quot;q&quot;"><mrow><mtext>&amp;lt;b&amp;gt;</mtext></mrow></math>'
    )


def test_highlight_marks_only_after_escaping_and_reads_tex_as_plain_text():
    # Snippets are cut out of the abstract and may split math in two: the plain reading.
    marked = "\ue000Dark\ue001 <b>matter</b> in $H_0$"
    assert str(highlight(marked)) == "<mark>Dark</mark> &lt;b&gt;matter&lt;/b&gt; in H_0"


def test_an_authors_own_macro_shows_as_its_name_and_latex_switches_vanish():
    # The sentence: "$\D$ is a quaternion algebra" read "and is a quaternion algebra";
    # the rule (papers.macros): its name without the backslash, upright in MathML.
    assert readable_text(r"and $\D$ is a quaternion algebra") == "and D is a quaternion algebra"
    assert str(texhtml(r"and $\D$ is")) == "and " + math("D", '<mi mathvariant="normal">D</mi>') + " is"
    # LaTeX's own switches and operator names are not an author's macros.
    assert readable_text(r"{\rm Tr} and $\dim V \ne 0$ in {\it et al.}") == "Tr and dim V ≠ 0 in et al."
    # An unknown macro's braced arguments keep their braces, never glued ("\foo{C}{IV}").
    assert readable_text(r"the \foo{C}{IV} line") == "the foo{C}{IV} line"
    # aastex's \ion has a reading (0705.0096's "\ion{C}{IV}").
    assert readable_text(r"the \ion{C}{IV} line") == "the C IV line"
    # A stage given as a number is printed in Roman numerals, as AASTeX does (0801.4552's
    # "\ion{O}{7}", 0705.0096's "\ion{Fe}{1} 630.2 nm"): "O 7" read as oxygen seven.
    assert (
        readable_text(r"\ion{O}{7} and \ion{Mg}{10}, \ion{Fe}{1} 630.2 nm") == "O VII and Mg X, Fe I 630.2 nm"
    )
    # AAS's \farcs keeps its decimal point (0705.0096's "0\farcs32").
    assert readable_text(r"a resolution of 0\farcs32") == "a resolution of 0.″32"


def test_tex_dashes_and_quotes_read_the_same_with_or_without_math_in_the_title():
    # 0704.0283 "Temperley--Lieb algebras of type $E_n$": the page showed "--" (its text
    # piece held no other TeX) where the title tag and JSON-LD read "–".
    assert readable_text("Temperley--Lieb algebras") == "Temperley–Lieb algebras"
    assert str(texhtml("Temperley--Lieb of type $E_n$")) == (
        "Temperley–Lieb of type " + math("E_n", "<msub><mi>E</mi><mi>n</mi></msub>")
    )
    assert readable_text("Comment on ``Collapse''") == "Comment on “Collapse”"


def test_a_root_holds_its_whole_radicand_with_its_scripts():
    # 0705.0889's title: the hand-made root closed after "R" ("√(R)²-R₀²"); MathML's <msqrt>
    # holds the whole radicand.
    title = r"Consistency of $f(R)=\sqrt{R^{2}-R_{0}^2}$ Gravity with the Cosmological Observations"
    assert str(texhtml(title)) == (
        "Consistency of "
        + math(
            "f(R)=√(R^2-R_0^2)",
            '<mi>f</mi><mo stretchy="false">(</mo><mi>R</mi><mo stretchy="false">)</mo><mo>=</mo>'
            "<msqrt><mrow><msup><mi>R</mi><mrow><mn>2</mn></mrow></msup><mo>−</mo>"
            "<msubsup><mi>R</mi><mrow><mn>0</mn></mrow><mn>2</mn></msubsup></mrow></msqrt>",
        )
        + " Gravity with the Cosmological Observations"
    )
    # 0705.0842: the collision energy per nucleon pair, √(s_NN).
    assert str(texhtml(r"collisions at $\sqrt{s_{NN}}=200$ GeV.")) == (
        "collisions at "
        + math(
            "√(s_NN)=200",
            "<msqrt><mrow><msub><mi>s</mi><mrow><mi>N</mi><mi>N</mi></mrow></msub></mrow></msqrt>"
            "<mo>=</mo><mn>200</mn>",
        )
        + " GeV."
    )
    # 0801.4310, outside $...$: "\sqrt{\log_2 n}" read "√(log)₂ n"; every root outside math
    # is MathML now, and a bare script stays <sub>.
    assert str(texhtml(r"by a factor of Theta(\sqrt{\log_2 n}) and 1/T_1 follows a \sqrt{T}-like")) == (
        "by a factor of Theta("
        + math("√(log_2 n)", "<msqrt><mrow><msub><mi>log</mi><mn>2</mn></msub><mi>n</mi></mrow></msqrt>")
        + ") and 1/T<sub>1</sub> follows a "
        + math("√(T)", "<msqrt><mrow><mi>T</mi></mrow></msqrt>")
        + "-like"
    )


def test_an_indexed_root_edited_string_and_a_fraction_holding_scripts():
    # No recorded title or abstract has an indexed root: the smallest edited strings. The
    # plain reading keeps the index (pylatexenc's own dropped it: "√(x)" for ∛x).
    assert str(texhtml(r"$\sqrt[3]{x^2}$ and $\sqrt[n]{x}$")) == (
        math("∛(x^2)", "<mroot><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow><mn>3</mn></mroot>")
        + " and "
        + math("^n√(x)", "<mroot><mrow><mi>x</mi></mrow><mi>n</mi></mroot>")
    )
    # 0704.0501: a script inside \frac's argument ("%s/%sϵ²" once); a real fraction now.
    assert str(texhtml(r"$ i\epsilon \psi_t +\frac{\epsilon^2}2\psi_{xx}+ |\psi|^2 \psi =0$")) == math(
        "iϵψ_t +ϵ^2/2ψ_xx+ |ψ|^2 ψ =0",
        "<mi>i</mi><mi>ϵ</mi><msub><mi>ψ</mi><mi>t</mi></msub><mo>+</mo>"
        "<mfrac><mrow><msup><mi>ϵ</mi><mn>2</mn></msup></mrow><mn>2</mn></mfrac>"
        "<msub><mi>ψ</mi><mrow><mi>x</mi><mi>x</mi></mrow></msub><mo>+</mo>"
        '<mo stretchy="false">|</mo><mi>ψ</mi><msup><mo stretchy="false">|</mo><mn>2</mn></msup>'
        "<mi>ψ</mi><mo>=</mo><mn>0</mn>",
    )
    assert str(texhtml(r"$\frac{1}{\sqrt{2}}$")) == math(
        "1/√(2)", "<mfrac><mrow><mn>1</mn></mrow><mrow><msqrt><mrow><mn>2</mn></mrow></msqrt></mrow></mfrac>"
    )


def test_display_math_is_set_inline_like_inline_math():
    # 0801.4267: "\[ ... \]" was read as text, its scripts left as "^-1".
    abstract = r"the transfer function \[ \Theta(\lambda)=D+\lambda C(I-\lambda A)^{-1}B \] of a linear"
    html = str(texhtml(abstract))
    assert html.startswith('the transfer function <math display="inline" alttext="Θ(λ)=D+λ C(I-λ A)^-1B">')
    assert '<msup><mo stretchy="false">)</mo><mrow><mo>−</mo><mn>1</mn></mrow></msup><mi>B</mi>' in html
    assert html.endswith("</math> of a linear")
    # 0705.0456: the display holds a \frac with scripts in it, sized by \biggl( and \biggr).
    abstract = (
        r"we analyze the function \[\rho(\beta ,\gamma)(x)=1-\biggl(\frac{x^{\beta}}{1+x^{\beta}}"
        r"\biggr )^{\gamma},\qquad x\ge 0, \beta,\gamma>0,\] called the Dagum function"
    )
    html = str(texhtml(abstract))
    assert 'alttext="ρ(β ,γ)(x)=1-(x^β/1+x^β )^γ, x≥ 0, β,γ&gt;0,"' in html
    assert (
        "<mfrac><mrow><msup><mi>x</mi><mrow><mi>β</mi></mrow></msup></mrow>"
        "<mrow><mn>1</mn><mo>+</mo><msup><mi>x</mi><mrow><mi>β</mi></mrow></msup></mrow></mfrac>"
    ) in html
    assert html.endswith("</math> called the Dagum function")
    # 0801.4532's "$$ ... $$"; no recorded string uses \( ... \): an edited one.
    html = str(texhtml(r"in the form $$ dV / dt = F(V) / z (V) . $$ Here $V \in R^d$"))
    assert html.endswith(" Here " + math("V ∈ R^d", "<mi>V</mi><mo>∈</mo><msup><mi>R</mi><mi>d</mi></msup>"))
    assert str(texhtml(r"with \(x^2\) and \[y_1\] here")) == (
        "with "
        + math("x^2", "<msup><mi>x</mi><mn>2</mn></msup>")
        + " and "
        + math("y_1", "<msub><mi>y</mi><mn>1</mn></msub>")
        + " here"
    )
    # Edited: "\\[2pt]" is a line break with a length, not display math.
    assert str(texhtml(r"a line\\[2pt] break, a_1")) == "a line break, a<sub>1</sub>"


def test_a_brace_beside_math_or_a_script_keeps_the_space_behind_it():
    # 0801.3763's title has a stray "}": "(Cu^{II}} and" read "Cuᴵᴵand".
    title = (
        "EPR and magnetization studies on single crystals of a heterometallic "
        "(Cu^{II}} and Cr^{III}) complex: zero-field splitting determination"
    )
    assert str(texhtml(title)) == (
        "EPR and magnetization studies on single crystals of a heterometallic "
        "(Cu<sup>II</sup> and Cr<sup>III</sup>) complex: zero-field splitting determination"
    )
    # 0705.0651 groups its math in braces: "i.e. {$...$}, {$...$}" read "i.e.(√7×√7)…,(√3×√3)".
    abstract = r"i.e. {$(\sqrt{7}\times\sqrt{7}) R19.1^{\circ}$}, and {p(2$\times$2)}. The work"
    assert str(texhtml(abstract)) == (
        "i.e. "
        + math(
            "(√(7)×√(7)) R19.1^∘",
            '<mo stretchy="false">(</mo><msqrt><mrow><mn>7</mn></mrow></msqrt><mo>×</mo>'
            '<msqrt><mrow><mn>7</mn></mrow></msqrt><mo stretchy="false">)</mo><mi>R</mi>'
            "<msup><mn>19.1</mn><mrow><mo>∘</mo></mrow></msup>",
        )
        + ", and p(2"
        + math("×", "<mo>×</mo>")
        + "2). The work"
    )
    # 0704.0573's title has no space at its stray brace, and none is added.
    assert str(texhtml(r"Elativistic treatment in}$D$ - Dimensions")) == (
        "Elativistic treatment in" + math("D", "<mi>D</mi>") + " - Dimensions"
    )
    # Edited: an escaped brace prints, so the word stays against it.
    assert str(texhtml(r"the set $x$\} and")) == "the set " + math("x", "<mi>x</mi>") + "} and"


def test_roots_and_display_math_stay_escaped():
    html = str(texhtml(r"\[ \sqrt{<script>} \] </script> \(x^{<b>}\)"))
    assert html == (
        math(
            "√(&lt;script&gt;)",
            "<msqrt><mrow><mo>&lt;</mo><mi>s</mi><mi>c</mi><mi>r</mi><mi>i</mi><mi>p</mi><mi>t</mi>"
            "<mo>&gt;</mo></mrow></msqrt>",
        )
        + " &lt;/script&gt; "
        + math("x^&lt;b&gt;", "<msup><mi>x</mi><mrow><mo>&lt;</mo><mi>b</mi><mo>&gt;</mo></mrow></msup>")
    )
    assert str(texhtml(r"<i>\sqrt{a_1<b>}")) == "&lt;i&gt;" + math(
        "√(a_1&lt;b&gt;)",
        "<msqrt><mrow><msub><mi>a</mi><mn>1</mn></msub><mo>&lt;</mo><mi>b</mi><mo>&gt;</mo></mrow></msqrt>",
    )


@pytest.fixture(scope="module")
def sample_records() -> dict:
    """The bundled sample's OAI-PMH records by arXiv identifier, parsed as a harvest parses
    them (no database: these tests read strings)."""
    records = {}
    for path in (SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW):
        records |= {record.arxiv_id: record for record in parse_oai_response(path.read_bytes()).records}
    return records


def test_astronomers_units_and_relations_read_by_the_macro_table(sample_records):
    # 0705.0987's abstract showed "1750 \au" and "545 \GHz" (AAS macros).
    abstract = sample_records["0705.0987"].abstract
    assert r"1750 \au$" in abstract and r"545 \GHz$" in abstract
    plain = readable_text(abstract)
    assert "parameter of 1750 AU, as expected" in plain and "ν = 30, 353, 545 GHz" in plain
    assert "\\" not in plain
    page = str(texhtml(abstract))
    assert "\\" not in page
    assert "<mn>1750</mn><mtext>AU</mtext>" in page
    assert "<mn>545</mn><mtext>GHz</mtext>" in page
    # 0801.3889's "$\magcir 5 \times 10^{13} h^{-1} M_{\odot}$" (MNRAS's \magcir is ≳).
    abstract = sample_records["0801.3889"].abstract
    assert "≳ 5 × 10^13 h^-1 M_⊙" in readable_text(abstract)
    assert (
        '<math display="inline" alttext="≳ 5 × 10^13 h^-1 M_⊙"><mrow><mrow><mo>≳</mo></mrow><mn>5</mn>'
        in (str(texhtml(abstract)))
    )


def test_a_percent_sign_in_an_abstract_is_text_not_a_comment(sample_records):
    # 0705.0921 left "%\sout{...} can be %observed ...}" in its abstract; arXiv's page shows
    # the % as written. pylatexenc read it as a comment and dropped the rest of the line.
    abstract = sample_records["0705.0921"].abstract
    plain = readable_text(abstract)
    assert "density. %The possibility that a relic density producing t̃_1" in plain
    assert (
        "can be %observed at the current experiments at the Tevatron is wide open. The possibility" in plain
    )
    assert "can be %observed at the current" in str(texhtml(abstract))
    assert readable_text(r"a 50% rise and 5\% more") == "a 50% rise and 5% more"


def test_a_root_written_without_its_backslash_is_a_root(sample_records):
    # 0801.4375's title "p-pbar Collisions at sqrt{s}=1.96 TeV" read "sqrts=1.96 TeV".
    title = sample_records["0801.4375"].title
    assert title.endswith("p-pbar Collisions at sqrt{s}=1.96 TeV")
    assert readable_text(title).endswith("p-pbar Collisions at √(s)=1.96 TeV")
    assert str(texhtml(title)).endswith(
        "p-pbar Collisions at " + math("√(s)", "<msqrt><mrow><mi>s</mi></mrow></msqrt>") + "=1.96 TeV"
    )
    # Not inside a word.
    assert readable_text("isqrt{x} stays") == "isqrtx stays"


def test_the_macro_rule_known_readings_and_names():
    assert readable_text(r"$M \la 10 M_\sun$, $\Lsun \ga L$, \Msun, $\mincir$") == (
        "M ≲ 10 M_☉, L☉ ≳ L, M☉, ≲"
    )
    assert readable_text(r"$\lesssim$ and $\gtrsim$ at 3\arcsec and 2\kms") == "≲ and ≳ at 3″ and 2km s⁻¹"
    # In MathML, the table wins over latex2mathml's (\sun is wasysym's ☼ there, \sim "~").
    assert tex_to_mathml(r"M_\sun \sim 1", alttext="M_☉ ∼ 1") == (
        '<math display="inline" alttext="M_☉ ∼ 1"><mrow><msub><mi>M</mi><mrow><mi>☉</mi></mrow></msub>'
        "<mrow><mo>∼</mo></mrow><mn>1</mn></mrow></math>"
    )
    # An author's macro in math: its name, upright when one letter (as \mathrm{D}).
    assert tex_to_mathml(r"\PGL_2 \D", alttext="") == (
        '<math display="inline" alttext=""><mrow><msub><mi>PGL</mi><mn>2</mn></msub>'
        '<mi mathvariant="normal">D</mi></mrow></math>'
    )


def test_a_script_opening_math_with_no_base_joins_the_text_before_it():
    # 0705.0621's formula in pieces: MathML hung "1−x" on an empty base, apart from "La"
    # (seen in its screenshot); set in the text's own type as <sub>, as a bare script is.
    title = r"Transition in La$_{1-x}$Sr$_{x}$MnO$_{3}$"
    assert str(texhtml(title)) == "Transition in La<sub>1-x</sub>Sr<sub>x</sub>MnO<sub>3</sub>"
    assert readable_text(title) == "Transition in La_1-xSr_xMnO_3"
    # 0801.3978's "$^{234}U$": the prescript as <sup>, the rest still math.
    assert str(texhtml(r"fission of $^{234}U$")) == "fission of <sup>234</sup>" + math("U", "<mi>U</mi>")


def test_a_formula_met_again_is_not_converted_again():
    # Two titles sharing "$^{4}$He" and "$\alpha$": the second reads both from the memo.
    _math_html.cache_clear()
    first = texhtml(r"Bound states of $\alpha$ particles in $^{4}$He droplets")
    second = texhtml(r"Scattering $\alpha$ particles off $^{4}$He")
    assert _math_html.cache_info().hits == 1  # $\alpha$ ($^{4}$ is set as <sup>, no MathML)
    assert "<sup>4</sup>He" in first and "<sup>4</sup>He" in second
    alpha = first[first.index("<math") : first.index("</math>") + 7]
    assert alpha in second and 'alttext="α"' in alpha
