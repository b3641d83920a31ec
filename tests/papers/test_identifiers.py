"""arXiv identifier parsing: every accepted input form gives one key (arXiv's scheme)."""

import pytest

from papers.identifiers import InvalidArxivId, parse_arxiv_id


@pytest.mark.parametrize(
    ("raw", "key", "version"),
    [
        ("2401.10241", "2401.10241", None),
        ("2401.10241v2", "2401.10241", 2),
        ("arXiv:2401.10241", "2401.10241", None),
        ("arxiv:2401.10241v1", "2401.10241", 1),
        ("https://arxiv.org/abs/2401.10241v3", "2401.10241", 3),
        ("http://arxiv.org/pdf/2401.10241v1.pdf", "2401.10241", 1),
        ("oai:arXiv.org:0704.4001", "0704.4001", None),
        ("0704.0001", "0704.0001", None),
        ("hep-th/9504118", "hep-th/9504118", None),
        ("hep-th/9504118v2", "hep-th/9504118", 2),
        ("math.GT/0309136", "math/0309136", None),
        ("cond-mat/9906145", "cond-mat/9906145", None),
        ("arXiv:astro-ph/0601001", "astro-ph/0601001", None),
        ("  1501.00001 ", "1501.00001", None),
    ],
)
def test_accepted_forms_normalise_to_one_key(raw, key, version):
    parsed = parse_arxiv_id(raw)
    assert (parsed.id, parsed.version) == (key, version)


def test_archive_is_part_of_old_style_identity():
    # cs/9808001 and cmp-lg/9808001 are different papers; a subject class is not identity.
    assert parse_arxiv_id("cs/9808001").id != parse_arxiv_id("cmp-lg/9808001").id
    assert parse_arxiv_id("math.GT/0309136").id == parse_arxiv_id("math/0309136").id


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "hello",
        "2413.00001",  # month 13
        "0703.1234",  # new style began in 0704
        "1412.12345",  # five digits before 1501
        "1501.1234",  # four digits from 1501
        "2401.10241v0",
        "hep-th/950411",  # six digits
        "hep-th/0801001",  # old style ended in March 2007
        "x" * 500,
    ],
)
def test_impossible_identifiers_are_refused(raw):
    with pytest.raises(InvalidArxivId):
        parse_arxiv_id(raw)


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Zero Bubble Pipeline Parallelism", "zero-bubble-pipeline-parallelism"),
        ("Warping and Supersymmetry Breaking", "warping-and-supersymmetry-breaking"),
        (
            "A Study of Structure Formation in the D3/D7 Brane Model",
            "a-study-of-structure-formation-in-the-d3-d7-brane-model",
        ),
        (r"A Gr\"obner basis proof", "a-grobner-basis-proof"),
        ("Swift heavy ion irradiation of SrTiO_3", "swift-heavy-ion-irradiation-of-srtio-3"),
        ("Schrödinger's cat", "schrodingers-cat"),
        ("$\\alpha$-decay", "a-decay"),  # unidecode transliterates α as a
        ("???", "paper"),
        ("Спектр", "spektr"),
    ],
)
def test_slug_rules(title, slug):
    from papers.text import make_slug

    assert make_slug(title) == slug


def test_slug_is_at_most_80_characters_and_cut_at_a_word():
    from papers.text import make_slug

    slug = make_slug("word " * 40)
    assert len(slug) <= 80
    assert not slug.endswith("-") and slug.endswith("word")
