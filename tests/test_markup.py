"""wove.markup: Django's conditional_escape and intcomma, as the list tags use them."""

from __future__ import annotations

import pytest
from django.contrib.humanize.templatetags.humanize import intcomma
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from wove.markup import escaped, grouped

# arXiv 0704.0001's authors and title as recorded (data/arxiv/kaggle), an affiliation with an
# apostrophe (ROR's affiliation-matching set, ../shared/data/ror), and, made up, a title with
# math, markup and quotes, and a hostile name.
TEXTS = [
    "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
    "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
    '$B^0 \\to K^{*0} \\mu^+ \\mu^-$ & the <LHCb> "Collaboration"',
    "King's College London",
    '<script>alert("x")</script>',
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_escaped_is_conditional_escape(text):
    assert escaped(text) == str(conditional_escape(text))


def test_escaped_keeps_safe_strings_and_reads_lazy_ones():
    assert escaped(mark_safe("<mark>dark</mark> matter")) == "<mark>dark</mark> matter"
    assert escaped(gettext_lazy("A & B")) == "A &amp; B"
    assert escaped(12) == "12"
    assert escaped('"it\'s"') == "&quot;it&#x27;s&quot;"


@pytest.mark.parametrize("n", [0, 7, 999, 1000, 12345, 1234567, -4321, 2_500_000])
def test_grouped_is_intcomma_for_integers(n):
    assert grouped(n) == intcomma(n)
