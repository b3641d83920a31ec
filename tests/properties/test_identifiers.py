"""Properties of the arXiv identifier parser: round trips for every well-formed id, and only
:class:`InvalidArxivId` (never another exception) for anything else."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from papers.identifiers import ArxivId, InvalidArxivId, parse_arxiv_id, try_parse_arxiv_id

PROPERTY = settings(max_examples=200, deadline=None)

# Archives with old-style identifiers (a sample of arXiv's list, hyphenated ones included).
ARCHIVES = ["hep-th", "hep-ph", "cond-mat", "astro-ph", "math", "cs", "quant-ph", "gr-qc", "nlin", "q-bio"]
KEY = re.compile(r"^(?:[0-9]{4}\.[0-9]{4,5}|[a-z]+(?:-[a-z]+)?/[0-9]{7})$")
versions = st.none() | st.integers(min_value=1, max_value=999)


@st.composite
def new_style(draw) -> ArxivId:
    """``YYMM.NNNN`` from 0704 to 1412, ``YYMM.NNNNN`` from 1501."""
    year = draw(st.integers(min_value=7, max_value=99))
    month = draw(st.integers(min_value=4 if year == 7 else 1, max_value=12))
    digits = 4 if year < 15 else 5
    number = draw(st.integers(min_value=0, max_value=10**digits - 1))
    return ArxivId(f"{year:02d}{month:02d}.{number:0{digits}d}", draw(versions))


@st.composite
def old_style(draw) -> ArxivId:
    """``archive/YYMMNNN`` from 9108 to 0703."""
    year = draw(st.sampled_from([*range(91, 100), *range(0, 8)]))
    month = draw(st.integers(min_value=1, max_value=3 if year == 7 else 12))
    number = draw(st.integers(min_value=0, max_value=999))
    return ArxivId(f"{draw(st.sampled_from(ARCHIVES))}/{year:02d}{month:02d}{number:03d}", draw(versions))


any_id = new_style() | old_style()
forms = st.sampled_from(
    [
        "{}",
        "arXiv:{}",
        "arxiv:{}",
        "https://arxiv.org/abs/{}",
        "http://export.arxiv.org/abs/{}",
        "https://arxiv.org/pdf/{}.pdf",
        "oai:arXiv.org:{}",
        "  {} ",
    ]
)


@PROPERTY
@given(any_id, forms)
def test_parse_of_format_gives_the_id_back(parsed, form):
    assert parse_arxiv_id(form.format(parsed.versioned)) == parsed


@PROPERTY
@given(old_style(), st.sampled_from(["GT", "AG", "stat-mech", "CO"]))
def test_old_style_subject_class_is_not_identity(parsed, subject):
    archive, number = parsed.id.split("/")
    assert parse_arxiv_id(f"{archive}.{subject}/{number}").id == parsed.id


@PROPERTY
@given(st.text(max_size=60) | st.from_regex(r"\A[0-9.v/a-z:-]{0,20}\Z"))
@example("٠٧٠٤.٠٠٠١")  # Arabic-Indic digits: re's \d matches them, arXiv ids are ASCII
@example("０７０４.０００１")  # full-width digits
@example("0704.0001v" + "9" * 150)  # a version no database column can hold
@example("hep-th/9504118v0")
def test_anything_else_raises_only_invalid_arxiv_id(raw):
    try:
        parsed = parse_arxiv_id(raw)
    except InvalidArxivId:
        assert try_parse_arxiv_id(raw) is None
        return
    # Whatever is accepted is an ASCII key that parses to itself.
    assert KEY.match(parsed.id), parsed
    assert parsed.version is None or 1 <= parsed.version <= 32767
    assert parse_arxiv_id(parsed.versioned) == parsed
