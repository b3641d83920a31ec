"""TeX read island by island (papers.text.tex_to_unicode_by_parts, issue 28): only the runs
of words holding TeX go through pylatexenc, and the output is the whole text's reading, for
every title, abstract and byline of the real sample and for snippet-like windows cut out of
its abstracts (cut inside formulas, as search snippets are), but for the spacing of a few
formulas."""

from __future__ import annotations

import random
import re

import pytest

from papers.models import Paper
from papers.templatetags.wove import _AMPERSAND, _SPACE_AFTER_MACRO
from papers.text import _tex_islands, byline, tex_to_unicode, tex_to_unicode_by_parts


def _unspaced(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _as_read(value: str) -> str:
    # What papers.templatetags.wove.readable_text hands to the reader.
    return _AMPERSAND.sub(r"\\&", _SPACE_AFTER_MACRO.sub(r"\1{} ", value))


@pytest.mark.django_db
def test_every_sample_string_reads_as_the_whole_text_did(sample_papers):
    rows = list(Paper.objects.order_by("pk").values_list("title", "abstract", "authors_text"))
    assert len(rows) == 2800
    rng = random.Random(28)
    strings = []
    for title, abstract, authors in rows:
        words = abstract.split()
        start = rng.randrange(max(1, len(words) - 25))
        strings += [title, abstract, byline(authors), " ".join(words[start : start + 25])]
    strings = [_as_read(s) for s in strings]
    with_tex = [s for s in strings if "$" in s or "\\" in s]
    assert len(with_tex) == 1415
    readings = [(tex_to_unicode_by_parts(s), tex_to_unicode(s, keep_unknown=True)) for s in strings]
    # Every reading has the same characters; 5 of the 11,200 (long abstracts dense with
    # formulas) space a formula differently: pylatexenc keeps or drops the space after a
    # macro inside math ("|Γ (v)|" or "|Γ(v)|") by what it read before.
    assert [i for i, (new, old) in enumerate(readings) if _unspaced(new) != _unspaced(old)] == []
    assert sum(new != old for new, old in readings) == 5


def test_islands_and_readings_checked_by_hand():
    text = r"Weak $L^{2}$ bounds -- and \'etale points"
    # "$L^{2}$", "--", "\'etale": three islands; the plain words between are kept as they are.
    assert _tex_islands(text) == [(5, 12), (20, 22), (27, 34)]
    assert tex_to_unicode_by_parts(text) == "Weak L^2 bounds – and étale points"
    # A control word or a group takes the next word, which may be its argument.
    assert (
        tex_to_unicode_by_parts(r"of \sqrt 2 and \frac{\min\mathcal{S}} an end") == "of √(2) and min𝒮/an end"
    )
    # A snippet cut inside a formula: from its stray $ on, read as the whole text was.
    text = "cut G_n$ presence the $x$ concept"
    assert _tex_islands(text) == [(4, 33)]
    assert (
        tex_to_unicode_by_parts(text)
        == tex_to_unicode(text, keep_unknown=True)
        == "cut G_npresence thexconcept"
    )
