"""TeX from arXiv metadata made to compile: math written outside ``$...$`` wrapped in it."""

from __future__ import annotations

import re

# Macros defined by LaTeX2e with amsmath and amssymb that are valid in math mode: checked with
# \ifdefined and by setting each in ``$...$`` with pdflatex (TeX Live 2022). A macro outside
# this set is an author's own (``\PGL``, ``\Bz``): it is set as its name in upright type.
_MATH_MACROS_NAMES = """
    Bbb Big Bigg Bigl Bigr Bumpeq Cap Cup Delta Downarrow Gamma Im Lambda Leftarrow
    Leftrightarrow Lleftarrow Longleftarrow Longleftrightarrow Longrightarrow Lsh Omega Phi
    Pi Pr Psi Re Rightarrow Rrightarrow Rsh Sigma Subset Supset Theta Uparrow Updownarrow
    Upsilon Vdash Vert Vvdash Xi acute aleph alpha amalg angle approx approxeq arccos arcsin
    arctan arg ast asymp backepsilon backprime backsim backsimeq backslash bar barwedge
    because beta beth between bf big bigcap bigcirc bigcup bigg biggl biggr bigl bigoplus
    bigotimes bigr bigtriangledown bigtriangleup bigvee bigwedge binom blacklozenge
    blacksquare blacktriangle blacktriangledown blacktriangleleft blacktriangleright bmod
    boldsymbol bowtie boxdot boxminus boxplus boxtimes breve bullet bumpeq cal cap cdot
    cdots check chi choose circ circeq circlearrowleft circlearrowright circledS circledast
    circledcirc circleddash colon complement cong coprod cos cosh cot coth csc cup
    curlyeqprec curlyeqsucc curlyvee curlywedge curvearrowleft curvearrowright dag dagger
    daleth dashv ddddot dddot ddot ddots deg delta det dfrac diagup diamond digamma dim
    displaystyle div divideontimes dot doteq doteqdot dotplus dots dotsb dotsc dotsi dotsm
    dotso downarrow downdownarrows downharpoonleft downharpoonright ell em emph emptyset
    enskip ensuremath epsilon eqcirc eqslantgtr eqslantless equiv eta exists exp
    fallingdotseq flat forall frac frown gamma gcd ge geq geqq geqslant gets gg gimel
    gnapprox gneq gneqq gnsim grave gtrapprox gtrdot gtreqless gtreqqless gtrless gtrsim hat
    hbar hbox hom hookleftarrow hookrightarrow hslash iff iiint iint imath implies in inf
    infty int intercal iota it jmath kappa ker lVert lambda langle lbrace lbrack lceil ldots
    le leadsto left leftarrow leftarrowtail leftharpoondown leftharpoonup leftleftarrows
    leftrightarrow leftrightarrows leftrightharpoons leftrightsquigarrow leftthreetimes leq
    leqq leqslant lessapprox lessdot lesseqgtr lesseqqgtr lessgtr lesssim lfloor lg lim
    liminf limits limsup ll llcorner lmoustache ln lnapprox lneq lneqq lnot lnsim log
    longleftarrow longleftrightarrow longmapsto longrightarrow looparrowleft looparrowright
    lozenge lrcorner ltimes lvert mapsto mathbb mathbf mathcal mathfrak mathit mathring
    mathrm mathsf mathtt max mbox measuredangle mho mid min mp mu multimap nLeftarrow
    nLeftrightarrow nRightarrow nVDash nVdash nabla natural ne nearrow neq nexists ngeq ngtr
    ni nleftarrow nleftrightarrow nleq nless nmid nolimits not notin nparallel nprec
    nrightarrow nsubseteq nsucc nsupseteq ntriangleleft ntrianglelefteq ntriangleright
    ntrianglerighteq nu nvDash nvdash nwarrow odot oint omega ominus operatorname oplus
    oslash otimes over overbrace overleftarrow overleftrightarrow overline overrightarrow
    overset parallel partial perp phi pi pitchfork pm pmod prec precapprox preccurlyeq
    preceq precnapprox precneqq precsim prime prod propto psi qquad quad rVert rangle rbrace
    rbrack rceil rfloor rho right rightarrow rightarrowtail rightharpoondown rightharpoonup
    rightleftarrows rightleftharpoons rightrightarrows rightsquigarrow rightthreetimes
    risingdotseq rm rmoustache rtimes rvert scriptscriptstyle scriptstyle searrow sec
    setminus sf sharp sigma sim simeq sin sinh smallsetminus smile sphericalangle sqcap
    sqcup sqrt sqsubset sqsubseteq sqsupset sqsupseteq square stackrel star subset subseteq
    subseteqq subsetneq subsetneqq succ succapprox succcurlyeq succeq succnapprox succneqq
    succnsim succsim sum sup supset supseteq supseteqq supsetneq supsetneqq surd swarrow tan
    tanh tau text textbf textit textmd textrm textsc textsf textsl textstyle texttt textup
    tfrac therefore theta tilde times to top triangledown triangleleft trianglelefteq
    triangleq triangleright trianglerighteq twoheadleftarrow twoheadrightarrow ulcorner
    underbrace underleftarrow underleftrightarrow underline underrightarrow underset uparrow
    updownarrow upharpoonleft upharpoonright uplus upsilon upuparrows urcorner varDelta
    varGamma varLambda varOmega varPhi varPi varSigma varTheta varUpsilon varXi varepsilon
    varinjlim varkappa varnothing varphi varpi varrho varsigma vartheta vartriangle
    vartriangleleft vartriangleright vdash vdots vec vee veebar vert wedge widehat widetilde
    wp wr xi xleftarrow xrightarrow zeta
"""
MATH_MACROS = frozenset(_MATH_MACROS_NAMES.split())
# Text-mode macros arXiv titles use (accents, special letters, font switches): left as text.
_TEXT_MACROS_NAMES = """
    u v H c d b t r k i j o O l L ss ae AE oe OE aa AA S P dag ddag copyright pounds
    it bf em rm sc sf tt sl up md normalfont textit textbf emph textrm texttt textsc textsf
    textsl textup textmd underline mbox hbox ldots dots LaTeX TeX textendash textemdash
    textquoteleft textquoteright textbackslash textasciitilde textasciicircum
"""
TEXT_MACROS = frozenset(_TEXT_MACROS_NAMES.split())
_SIZES_AND_STYLES = """
    left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr limits nolimits displaystyle
    textstyle scriptstyle scriptscriptstyle cal over choose em
"""
# Macros whose arguments belong to them: without braces the next token is the argument.
_ONE_ARGUMENT_NAMES = """
    bar hat tilde vec dot ddot check breve acute grave widehat widetilde overline underline
    overrightarrow overleftarrow sqrt mathbb mathbf mathcal mathrm mathit mathsf mathtt mathfrak
    boldsymbol operatorname text textrm textit textbf mbox hbox mathring not
"""
_ONE_ARGUMENT = frozenset(_ONE_ARGUMENT_NAMES.split())
_TWO_ARGUMENTS = frozenset({"frac", "dfrac", "tfrac", "binom", "stackrel", "overset", "underset"})
# Control words that cannot stand alone as a script's argument (x^\it, x^\bar): switches,
# sizes and macros that need arguments of their own.
_NOT_A_SCRIPT = TEXT_MACROS | _ONE_ARGUMENT | _TWO_ARGUMENTS | frozenset(_SIZES_AND_STYLES.split())

# Math already delimited: $$...$$, $...$, \(...\), \[...\] (a dollar escaped as \$ is text);
# the inside holds no unescaped dollar.
_INSIDE = r"((?:\\.|[^$\\])+?)"
_MATH_SPAN = re.compile(
    rf"(?<!\\)\$\${_INSIDE}\$\$|(?<!\\)\${_INSIDE}\$|\\\({_INSIDE}\\\)|\\\[{_INSIDE}\\\]", re.DOTALL
)
_MACRO = re.compile(r"\\([A-Za-z]+)")
# What may start math in running text: a control word, or ^/_ not escaped as \^ or \_.
_MATH_START = re.compile(r"\\([A-Za-z]+)|(?<!\\)[\^_]")
# A script's argument without braces: a run of digits, of lower-case or of upper-case
# letters (``s_NN``, ``z_abs``, ``Na_4Ir_3O_8``), or one other visible character (``D^+``).
_SCRIPT_RUN = re.compile(r"[0-9]+|[a-z]+|[A-Z]+|[^\s{}$\\^_~']")
_BARE_RUN = re.compile(r"(?<!\\)([\^_])([0-9]{2,}|[a-z]{2,}|[A-Z]{2,})")
_TEXT_ACCENT = re.compile(r"\\['\"`^~=.]")
_STRAY_ACCENT = re.compile(r"\\['\"`^~=.](?![A-Za-z{]|\\[ij](?![A-Za-z]))")
_ADJACENT_DOLLARS = re.compile(r"(?<!\\)\$(?=\$)")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|.", re.DOTALL)
_CHARACTER = re.compile(r"[^\s{}$\\^_~']")
# Control symbols LaTeX defines; any other backslash before a non-letter (``\1``) is a typo.
_UNDEFINED_SYMBOL = re.compile(r"\\(?=[^A-Za-z'\"`^~=.&%#_${}\s,;:!\-/@()\[\]|])")


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0


def _group_end(text: str, start: int) -> int:
    """End of the braced group opening at ``text[start]`` (``-1`` when it never closes)."""
    depth = 0
    for index in range(start, len(text)):
        depth += (text[index] == "{") - (text[index] == "}")
        if depth == 0:
            return index + 1
    return -1


def _argument_end(text: str, start: int, *, script: bool = False) -> int:
    """End of one argument at ``text[start:]`` (spaces before it skipped unless ``script``):
    a braced group, a control word or one character (a run, for scripts); ``-1`` if none."""
    index = start
    while not script and index < len(text) and text[index] == " ":
        index += 1
    if index >= len(text):
        return -1
    if text[index] == "{":
        return _group_end(text, index)
    macro = _MACRO.match(text, index)
    if macro:
        return macro.end()
    run = (_SCRIPT_RUN if script else _CHARACTER).match(text, index)
    return run.end() if run else -1


def _atom_end(text: str, match: re.Match) -> int:
    """End of the math atom ``match`` starts (a macro with its arguments, or a script with its
    argument), followed by any scripts written directly after it; ``-1`` if it cannot be read."""
    end = match.end()
    name = match.group(1)
    if name is None:  # a bare ^ or _
        end = _argument_end(text, end, script=True)
    else:
        for _ in range(2 if name in _TWO_ARGUMENTS else 1 if name in _ONE_ARGUMENT else 0):
            end = _argument_end(text, end)
            if end < 0:
                return -1
    while end > 0 and end < len(text) and text[end] in "^_":
        end = _argument_end(text, end + 1, script=True)
    return end


def _math(source: str) -> str:
    """Math-mode TeX that compiles without the author's preamble: each author-defined macro
    set as its name (``\\PGL`` gives ``\\mathrm{PGL}``), a macro missing its arguments
    likewise, a script without argument dropped, text accents (``\\'``) dropped, a
    non-ASCII character set as text (``\\text{é}``), and
    ``\\left``/``\\right`` dropped (they only size the delimiters they stand before)."""
    source = _TEXT_ACCENT.sub("", re.sub(r"\\([()\[\]])", r"\1", source))
    # \left and \right only size their delimiters; unpaired or misordered they stop TeX.
    source = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", source)
    source = _NON_ASCII.sub(lambda m: r"{\text{" + m.group(0) + "}}", source)
    out: list[str] = []
    pos = 0
    for match in _MATH_START.finditer(source):
        if match.start() < pos:
            continue
        out.append(source[pos : match.start()])
        name = match.group(1)
        if name is None:  # ^ or _: kept only with an argument it can take
            end = _argument_end(source, match.end())
            argument = _MACRO.match(source, match.end())
            taken = end > 0 and not (argument and argument.group(1) in _NOT_A_SCRIPT)
            out.append(match.group(0) if taken else "")
            pos = match.end()
            continue
        arguments = 2 if name in _TWO_ARGUMENTS else 1 if name in _ONE_ARGUMENT else 0
        end = match.end()
        for _ in range(arguments):
            end = _argument_end(source, end) if end > 0 else -1
        readable = name in MATH_MACROS and end > 0
        out.append(match.group(0) if readable else r"{\mathrm{" + name + "}}")
        pos = match.end()
    out.append(source[pos:])
    return "".join(out)


def _single_scripts(run: str) -> str:
    """``run`` with ``{}`` put between two subscripts (or superscripts) of one base, which TeX
    refuses ("Double subscript"): ``f_D_{S^+}`` gives ``f_D{}_{S^+}``."""
    out: list[str] = []
    frames: list[list] = [[set(), False]]  # per brace level: scripts seen, argument pending
    for piece in _TOKEN.findall(run):
        frame = frames[-1]
        if piece in ("^", "_"):
            if piece in frame[0]:
                out.append("{}")
                frame[0].clear()
            frame[0].add(piece)
            frame[1] = True
        elif piece == "{":
            frames.append([set(), False])
        elif piece == "}":
            if len(frames) > 1:
                frames.pop()
                frames[-1][1] = False
        elif not piece.isspace():
            if frame[1]:
                frame[1] = False
            else:
                frame[0].clear()
        out.append(piece)
    return "".join(out)


def _wrapped(run: str) -> str:
    """A math run found in running text, in ``$...$``; a script's run of several characters
    braced, as its author meant (``s_NN`` is ``s_{NN}``, ``10^19`` is ``10^{19}``)."""
    return "$" + _math(_single_scripts(_BARE_RUN.sub(r"\1{\2}", run))) + "$"


def _text(text: str) -> str:
    """Running text with its math runs wrapped in ``$...$``; runs separated only by spaces
    are one run (``J/\\psi \\to \\gamma`` gives ``J/$\\psi \\to \\gamma$``)."""
    out: list[str] = []
    pos = 0
    run_start = run_end = -1
    for match in _MATH_START.finditer(text):
        if match.start() < max(pos, run_end):
            continue  # inside an atom already taken
        if match.group(1) in TEXT_MACROS:
            continue
        end = _atom_end(text, match)
        if end < 0:  # unreadable: ^ and _ as characters, a macro without its argument as its name
            if run_start >= 0:
                out.append(_wrapped(text[run_start:run_end]))
                run_start = -1
            out.append(text[pos : match.start()])
            out.append(
                {"^": r"\textasciicircum{}", "_": r"\_"}.get(match.group(0), "{" + str(match.group(1)) + "}")
            )
            pos = run_end = match.end()
            continue
        if run_start >= 0 and text[run_end : match.start()].strip(" ") == "":
            run_end = pos = end
            continue
        if run_start >= 0:
            out.append(_wrapped(text[run_start:run_end]))
        out.append(text[pos : match.start()])
        run_start, run_end = match.start(), end
        pos = end
    if run_start >= 0:
        out.append(_wrapped(text[run_start:run_end]))
    out.append(text[pos:])
    return "".join(out)


def compilable_tex(text: str) -> str:
    """arXiv TeX (a title, a journal reference) as LaTeX that pdflatex sets without errors in a
    document loading amsmath and amssymb: math written without delimiters, as arXiv titles
    often are (``A \\mu-ordinary``, ``SL_2(C)``, ``\\chi_{c0,2} decay``), wrapped in ``$...$``
    (``A $\\mu$-ordinary``, ``SL$_2$(C)``); author-defined macros set as their names; a
    ``$`` without a partner escaped. ``text`` must have balanced braces (see
    :func:`papers.export.bibtex_value`). Never raises."""
    # A TeX line break (\\) means nothing in a reference and TeX refuses it at a paragraph's
    # start; as a space, every backslash left starts a control sequence.
    text = _UNDEFINED_SYMBOL.sub("", text.replace("\\\\", " "))
    out: list[str] = []
    pos = 0
    for match in _MATH_SPAN.finditer(text):
        inner = next(group for group in match.groups() if group is not None)
        if not _balanced(inner):
            continue
        out.append(_loose(text[pos : match.start()]))
        out.append("$" + _math(_single_scripts(inner)) + "$")
        pos = match.end()
    out.append(_loose(text[pos:]))
    # Math ending where the next begins would read as "$$", display math: part them.
    return _ADJACENT_DOLLARS.sub("${}", "".join(out))


def _loose(text: str) -> str:
    """Text outside any math span: its own math wrapped, stray dollars escaped, a stray
    ``\\(``, ``\\)``, ``\\[`` or ``\\]`` read as the bracket it shows, an accent with
    no letter to sit on (``\\"`` before a brace, a dollar or a macro) dropped."""
    text = re.sub(r"\\([()\[\]])", r"\1", text)
    text = _STRAY_ACCENT.sub("", text)
    return _text(re.sub(r"(?<!\\)\$", r"\\$", text))
