"""Properties of the author-string parser: it never raises, and a comma/``and``-separated
list of plain personal names comes back whole, in order."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from papers.authors import NAME_PARTICLES, parse_author_string, split_name

PROPERTY = settings(max_examples=100, deadline=None)

_upper = st.sampled_from("ABCDEFGHIJKLMNOPRSTVWZÅÉÖŁ")
_lower = st.text(alphabet="abcdefghijklmnoprstuvwyzäéöüçñ", min_size=2, max_size=9)
word = st.builds(lambda first, rest: first + rest, _upper, _lower).filter(
    lambda w: w.lower() not in {"and", "team", "group", "project", "survey", "others"}
)
initial = st.builds(lambda c: c + ".", _upper)
hyphenated = st.builds(lambda a, b: f"{a}-{b}", word, word)  # Anne-Christine
apostrophe = st.builds(lambda w: "O'" + w, word)  # O'Brien
particle = st.sampled_from(sorted(p for p in NAME_PARTICLES if p.isalpha() and len(p) > 1))


@st.composite
def person(draw) -> str:
    """``First Last``, ``F. Last``, ``First M. Last``, ``First van der Last`` or ``F.-G. Last``."""
    given_names = draw(st.lists(word | initial | hyphenated, min_size=1, max_size=3))
    particles = draw(st.lists(particle, max_size=2))
    return " ".join([*given_names, *particles, draw(word | hyphenated | apostrophe)])


def _join(names: list[str], last_and: bool) -> str:
    if last_and and len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return ", ".join(names)


@PROPERTY
@given(st.text(max_size=300))
@example("(")
@example(")(")
@example("A (1) ((1")
@example("Collaboration:")
@example("\\")
@example("A. Smith (\\'")
@example("$\\frac{")
def test_never_raises(raw):
    slots = parse_author_string(raw)
    for slot in slots:
        assert slot.name == slot.name.strip()
        assert slot.name


@PROPERTY
@given(st.lists(person(), min_size=1, max_size=12), st.booleans())
@example(["A. Smith", "B. Jones"], True)
def test_no_name_lost_in_a_separated_list(names, last_and):
    slots = parse_author_string(_join(names, last_and))
    assert [s.name for s in slots] == names
    assert not any(s.is_collaboration for s in slots)
    # "et al" at the end is dropped, nothing else; ";" separates like ",".
    assert [s.name for s in parse_author_string(_join(names, last_and) + ", et al")] == names
    slots = parse_author_string("; ".join(names))
    assert [s.name for s in slots] == names
    assert not any(s.is_collaboration for s in slots)


@PROPERTY
@given(
    st.lists(
        st.tuples(
            person(), st.lists(st.sampled_from(["MIT", "Caltech", "CERN", "DAMTP, Cambridge"]), max_size=2)
        ),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_affiliations_in_parentheses_stay_with_their_author(entries, last_and):
    text = _join([name + "".join(f" ({a})" for a in affs) for name, affs in entries], last_and)
    slots = parse_author_string(text)
    assert [(s.name, s.affiliations) for s in slots] == [(n, a) for n, a in entries]


@PROPERTY
@given(person())
def test_split_name_keeps_every_word(name):
    keyname, forenames, suffix = split_name(name)
    assert " ".join(p for p in (forenames, keyname, suffix) if p) == name
    assert keyname == name.split(" ")[-1] or keyname.split(" ")[0] in NAME_PARTICLES


@PROPERTY
@given(
    st.lists(person(), min_size=1, max_size=6),
    st.lists(
        st.sampled_from(["MIT", "Caltech", "CERN", "DAMTP Cambridge", "Inst. Phys."]),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    st.data(),
)
def test_numbered_affiliations_resolve_through_the_legend(names, institutions, data):
    marks = [data.draw(st.integers(1, len(institutions))) for _ in names]
    legend = ", ".join(f"({i}) {inst}" for i, inst in enumerate(institutions, start=1))
    text = ", ".join(f"{name} ({mark})" for name, mark in zip(names, marks, strict=True)) + f" ({legend})"
    slots = parse_author_string(text)
    assert [(s.name, s.affiliations) for s in slots] == [
        (name, [institutions[mark - 1]]) for name, mark in zip(names, marks, strict=True)
    ]


@PROPERTY
@given(
    st.lists(person(), min_size=1, max_size=5),
    st.sampled_from(["ATLAS", "CMS", "LIGO Scientific", "Fermi-LAT"]),
)
def test_collaboration_prefix_is_its_own_first_slot(names, collaboration):
    slots = parse_author_string(f"The {collaboration} Collaboration: " + ", ".join(names))
    assert [s.name for s in slots] == [f"The {collaboration} Collaboration", *names]
    assert [s.is_collaboration for s in slots] == [True] + [False] * len(names)
