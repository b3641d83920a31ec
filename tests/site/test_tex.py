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
