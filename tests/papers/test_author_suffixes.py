"""Name suffixes (Jr., III) stay with their person in every input format (BUGS.md AUTH-01)."""

import pytest

from papers import harvest
from papers.arxiv_api import parse_feed
from papers.authors import parse_author_string
from papers.kaggle import iter_kaggle
from papers.models import PaperAuthor
from papers.oai import parse_oai_response
from tests.conftest import FIXTURES, SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

SUFFIX_RAW = FIXTURES / "arxiv" / "oai" / "edited_arXivRaw_suffix_authors.xml"
SUFFIX_KAGGLE = FIXTURES / "arxiv" / "kaggle" / "edited_kaggle_suffix_authors.json"

# (name, keyname, forenames, suffix) in author order, for BUGS.md AUTH-01's two strings.
ALEXANDERSON = [
    ("Jiandong Wu", "Wu", "Jiandong", ""),
    ("Yolanda Brandt", "Brandt", "Yolanda", ""),
    ("Mette Egeland", "Egeland", "Mette", ""),
    ("Fernando Alexanderson Jr.", "Alexanderson", "Fernando", "Jr."),
]
HALE = [
    ("Marcus T. Hale Jr.", "Hale", "Marcus T.", "Jr."),
    ("Ana Ruiz", "Ruiz", "Ana", ""),
    ("Jr-Hung Tsao", "Tsao", "Jr-Hung", ""),
]


def stored(arxiv_id: str) -> list[tuple[str, str, str, str]]:
    return list(
        PaperAuthor.objects.filter(paper__arxiv_id=arxiv_id)
        .order_by("position")
        .values_list("name", "keyname", "forenames", "suffix")
    )


@pytest.mark.django_db
def test_auth01_suffix_after_comma_stays_with_its_person_in_arxivraw():
    """BUGS.md AUTH-01: the two author strings in real arXivRaw records (0801.3675 and
    0801.3676, authors replaced), harvested: ", Jr." is a suffix, not an author named "Jr.",
    and "and" splits only as a whole word ("Jr-Hung" and "Alexanderson" keep theirs)."""
    harvest.harvest_files(paths=[SUFFIX_RAW])
    assert stored("0801.3675") == ALEXANDERSON
    assert stored("0801.3676") == HALE
    assert not PaperAuthor.objects.filter(keyname__in=["Jr.", "Jr"]).exists()


@pytest.mark.django_db
def test_auth01_suffix_in_kaggle_string_and_authors_parsed():
    """BUGS.md AUTH-01 through the Kaggle dump (two real lines, authors edited): the string
    path, and an ``authors_parsed`` that lists ``["Jr.", "", ""]`` as an author of its own."""
    harvest.harvest_kaggle(path=SUFFIX_KAGGLE)
    assert stored("0704.0305") == ALEXANDERSON
    assert stored("0704.0304") == HALE


def test_auth01_and_splits_only_between_spaces():
    """BUGS.md AUTH-01: "and" inside a name (Alexanderson, Brandt, Sandoval) never splits it."""
    slots = parse_author_string("A. Sandoval, B. Anderson and C. Brandt, Jr. (MIT)")
    assert [(s.name, s.suffix, s.affiliations) for s in slots] == [
        ("A. Sandoval", "", []),
        ("B. Anderson", "", []),
        ("C. Brandt Jr.", "Jr.", ["MIT"]),
    ]


def test_sample_keeps_suffixes_with_persons():
    """The bundled sample: T. W. Murphy's ``<suffix>Jr.</suffix>`` (arXiv format, 0705.0513)
    and "Isaac Chappell II and S. James Gates Jr" (arXivRaw, 0801.3687) keep their suffixes,
    and no slot of the sample is a suffix alone."""
    records = []
    for path in (SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW):
        with open(path, "rb") as stream:
            records += parse_oai_response(stream).records
    with open(SAMPLE_KAGGLE, "rb") as stream:
        records += [r for r in iter_kaggle(stream) if not isinstance(r, Exception)]
    by_id = {r.arxiv_id: r for r in records}
    murphy = by_id["0705.0513"].authors[0]
    assert (murphy.name, murphy.keyname, murphy.forenames, murphy.suffix) == (
        "T. W. Murphy Jr.",
        "Murphy",
        "T. W.",
        "Jr.",
    )
    assert [(a.keyname, a.forenames, a.suffix) for a in by_id["0801.3687"].authors] == [
        ("Chappell", "Isaac", "II"),
        ("Gates", "S. James", "Jr"),
    ]
    bare = [
        (r.arxiv_id, a.name)
        for r in records
        for a in r.authors
        if a.name.strip(" .,").lower() in {"jr", "sr", "ii", "iii", "iv"}
    ]
    assert bare == []


def test_auth01_suffix_after_comma_in_an_api_author_name():
    """BUGS.md AUTH-01 through the arXiv API (a real Atom entry, names edited): one
    ``<name>`` per author, ``Marcus T. Hale, Jr.`` is Hale with suffix Jr., not a keyname
    ``Marcus T. Hale`` with forenames ``Jr.``."""
    [record] = parse_feed((FIXTURES / "arxiv_api" / "edited_1111.2011v2_suffix_authors.xml").read_bytes())
    assert [(a.keyname, a.forenames, a.suffix) for a in record.authors] == [
        ("Hale", "Marcus T.", "Jr."),
        ("Ruiz", "Ana", ""),
        ("Tsao", "Jr-Hung", ""),
    ]
