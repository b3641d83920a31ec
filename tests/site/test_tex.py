"""TeX in titles and abstracts as escaped HTML, and search-match highlighting."""

from __future__ import annotations

from papers.templatetags.wove import highlight, readable_text, texhtml


def test_inline_math_gets_scripts_and_symbols():
    assert str(texhtml(r"The $N=4$ SYM and $\alpha_{s}(M_Z^2)$")) == (
        'The <span class="math">N=4</span> SYM and '
        '<span class="math">α<sub>s</sub>(M<sub>Z</sub><sup>2</sup>)</span>'
    )


def test_bare_scripts_in_abstracts_and_the_space_after_macros():
    html = str(texhtml(r"constant -1/\ell^2 with 1/\mu is studied in AdS_3, file_name stays"))
    assert html == (
        'constant -1/ℓ<span class="math"><sup>2</sup></span> with 1/μ is studied in '
        'AdS<span class="math"><sub>3</sub></span>, file_name stays'
    )


def test_everything_is_escaped_and_broken_tex_falls_back_to_text():
    html = str(texhtml('</script><b>x</b> & "q" $x^{<i>}$'))
    assert html == (
        "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; "
        '<span class="math">x<sup>&lt;i&gt;</sup></span>'
    )
    assert "<" not in str(texhtml("broken $x^{$ end")).replace('<span class="math">', "").replace(
        "</span>", ""
    )
    assert readable_text(r"Q\&A & more: M{\"u}ller") == "Q&A & more: Müller"


def test_highlight_marks_only_after_escaping():
    marked = "\ue000Dark\ue001 <b>matter</b> in $H_0$"
    assert str(highlight(marked)) == (
        '<mark>Dark</mark> &lt;b&gt;matter&lt;/b&gt; in <span class="math">H<sub>0</sub></span>'
    )


def test_an_authors_own_macro_stays_as_its_source_and_latex_switches_vanish():
    # The sentence: "$\D$ is a quaternion algebra" read "and is a quaternion algebra".
    assert readable_text(r"and $\D$ is a quaternion algebra") == r"and \D is a quaternion algebra"
    assert str(texhtml(r"and $\D$ is")) == r'and <span class="math">\D</span> is'
    # LaTeX's own switches and operator names are not an author's macros.
    assert readable_text(r"{\rm Tr} and $\dim V \ne 0$ in {\it et al.}") == "Tr and dim V ≠ 0 in et al."
    # Its braced arguments keep their braces (0705.0096's "\ion{C}{IV}" read "\ionCIV").
    assert readable_text(r"the \ion{C}{IV} line") == r"the \ion{C}{IV} line"


def test_tex_dashes_and_quotes_read_the_same_with_or_without_math_in_the_title():
    # 0704.0283 "Temperley--Lieb algebras of type $E_n$": the page showed "--" (its text
    # piece held no other TeX) where the title tag and JSON-LD read "–".
    assert readable_text("Temperley--Lieb algebras") == "Temperley–Lieb algebras"
    assert str(texhtml("Temperley--Lieb of type $E_n$")) == (
        'Temperley–Lieb of type <span class="math">E<sub>n</sub></span>'
    )
    assert readable_text("Comment on ``Collapse''") == "Comment on “Collapse”"


def test_a_root_holds_its_whole_radicand_with_its_scripts():
    # 0705.0889's title: the root closed after "R", its scripts and the rest outside it
    # ("√(R)²-R₀²").
    title = r"Consistency of $f(R)=\sqrt{R^{2}-R_{0}^2}$ Gravity with the Cosmological Observations"
    assert str(texhtml(title)) == (
        'Consistency of <span class="math">f(R)=√(R<sup>2</sup>-R<sub>0</sub><sup>2</sup>)</span> '
        "Gravity with the Cosmological Observations"
    )
    # 0705.0842: the collision energy per nucleon pair, √(s_NN), read "√(s)_NN".
    assert str(texhtml(r"collisions at $\sqrt{s_{NN}}=200$ GeV.")) == (
        'collisions at <span class="math">√(s<sub>NN</sub>)=200</span> GeV.'
    )
    # 0801.4310, outside $...$: "\sqrt{\log_2 n}" read "√(log)₂ n"; a root without scripts
    # stays text, as before.
    assert str(texhtml(r"by a factor of Theta(\sqrt{\log_2 n}) and 1/T_1 follows a \sqrt{T}-like")) == (
        'by a factor of Theta(<span class="math">√(log<sub>2</sub>n)</span>) and '
        '1/T<span class="math"><sub>1</sub></span> follows a √(T)-like'
    )


def test_an_indexed_root_edited_string_and_a_fraction_holding_scripts():
    # No recorded title or abstract has an indexed root: the smallest edited strings.
    assert str(texhtml(r"$\sqrt[3]{x^2}$ and $\sqrt[n]{x}$")) == (
        '<span class="math">∛(x<sup>2</sup>)</span> and <span class="math"><sup>n</sup>√(x)</span>'
    )
    # 0704.0501: a script inside \frac's argument gave pylatexenc "\frac{\epsilon" alone ("%s/%sϵ²").
    assert str(texhtml(r"$ i\epsilon \psi_t +\frac{\epsilon^2}2\psi_{xx}+ |\psi|^2 \psi =0$")) == (
        '<span class="math">iϵψ<sub>t</sub>+ϵ<sup>2</sup>/2ψ<sub>xx</sub>+ |ψ|<sup>2</sup>ψ=0</span>'
    )
    # A root inside another macro's argument is left to pylatexenc, which reads it whole.
    assert str(texhtml(r"$\frac{1}{\sqrt{2}}$")) == '<span class="math">1/√(2)</span>'


def test_display_math_is_math_like_inline_math():
    # 0801.4267: "\[ ... \]" was read as text, its scripts left as "^-1".
    abstract = r"the transfer function \[ \Theta(\lambda)=D+\lambda C(I-\lambda A)^{-1}B \] of a linear"
    assert str(texhtml(abstract)) == (
        'the transfer function <span class="math">Θ(λ)=D+λC(I-λA)<sup>-1</sup>B</span> of a linear'
    )
    # 0705.0456: the display holds a \frac with scripts in it.
    abstract = (
        r"we analyze the function \[\rho(\beta ,\gamma)(x)=1-\biggl(\frac{x^{\beta}}{1+x^{\beta}}"
        r"\biggr )^{\gamma},\qquad x\ge 0, \beta,\gamma>0,\] called the Dagum function"
    )
    assert str(texhtml(abstract)) == (
        'we analyze the function <span class="math">ρ(β,γ)(x)=1-(x<sup>β</sup>/1+x<sup>β</sup>)'
        "<sup>γ</sup>, x≥0, β,γ&gt;0,</span> called the Dagum function"
    )
    # 0801.4532's "$$ ... $$"; no recorded string uses \( ... \): an edited one.
    assert str(texhtml(r"in the form $$ dV / dt = F(V) / z (V) . $$ Here $V \in R^d$")) == (
        'in the form <span class="math">dV / dt = F(V) / z (V) .</span> Here '
        '<span class="math">V ∈R<sup>d</sup></span>'
    )
    assert str(texhtml(r"with \(x^2\) and \[y_1\] here")) == (
        'with <span class="math">x<sup>2</sup></span> and <span class="math">y<sub>1</sub></span> here'
    )
    # Edited: "\\[2pt]" is a line break with a length, not display math.
    assert str(texhtml(r"a line\\[2pt] break, a_1")) == (
        'a line break, a<span class="math"><sub>1</sub></span>'
    )


def test_a_brace_beside_math_or_a_script_keeps_the_space_behind_it():
    # 0801.3763's title has a stray "}": "(Cu^{II}} and" read "Cuᴵᴵand".
    title = (
        "EPR and magnetization studies on single crystals of a heterometallic "
        "(Cu^{II}} and Cr^{III}) complex: zero-field splitting determination"
    )
    assert str(texhtml(title)) == (
        "EPR and magnetization studies on single crystals of a heterometallic "
        '(Cu<span class="math"><sup>II</sup></span> and Cr<span class="math"><sup>III</sup></span>) '
        "complex: zero-field splitting determination"
    )
    # 0705.0651 groups its math in braces: "i.e. {$...$}, {$...$}" read "i.e.(√7×√7)…,(√3×√3)".
    abstract = (
        r"i.e. {$(\sqrt{7}\times\sqrt{7}) R19.1^{\circ}$}, {$(\sqrt{3}\times\sqrt{3}) R30^{\circ}$}, "
        r"and {p(2$\times$2)}. The work"
    )
    assert str(texhtml(abstract)) == (
        'i.e. <span class="math">(√(7)×√(7)) R19.1<sup>∘</sup></span>, '
        '<span class="math">(√(3)×√(3)) R30<sup>∘</sup></span>, and p(2<span class="math">×</span>2). '
        "The work"
    )
    # 0704.0573's title has no space at its stray brace, and none is added.
    assert str(texhtml(r"Elativistic treatment in}$D$ - Dimensions")) == (
        'Elativistic treatment in<span class="math">D</span> - Dimensions'
    )
    # Edited: an escaped brace prints, so the word stays against it.
    assert str(texhtml(r"the set $x$\} and")) == 'the set <span class="math">x</span>} and'


def test_roots_and_display_math_stay_escaped():
    html = str(texhtml(r"\[ \sqrt{<script>} \] </script> \(x^{<b>}\) $$\frac{<i>}{2}$$"))
    assert html == (
        '<span class="math">√(&lt;script&gt;)</span> &lt;/script&gt; '
        '<span class="math">x<sup>&lt;b&gt;</sup></span> <span class="math">&lt;i&gt;/2</span>'
    )
    assert str(texhtml(r"<i>\sqrt{a_1<b>}")) == (
        '&lt;i&gt;<span class="math">√(a<sub>1</sub>&lt;b&gt;)</span>'
    )
