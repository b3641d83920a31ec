"""Withdrawals in each of arXiv's phrasings (issue 18).

Each case is the real record 0705.0134 of the bundled OAI page (its comments read "40 pages,
1 figure, This paper has been withdrawn by the author due to a gap in the proof of the
dispersive estimates") with its comments or abstract edited to one phrasing. Before, the
rule knew only "has/have been withdrawn", "withdrawn by", "paper withdrawn", "is withdrawn"
and a leading "withdrawn": "had been withdrawn" and the others below were not flagged.
"""

from __future__ import annotations

import dataclasses

import pytest

from papers.oai import parse_oai_response
from tests.conftest import SAMPLE_OAI_ARXIV

REAL_COMMENTS = "40 pages, 1 figure"


@pytest.fixture(scope="module")
def record():
    page = parse_oai_response(str(SAMPLE_OAI_ARXIV))
    found = next(r for r in page.records if r.arxiv_id == "0705.0134")
    # Without its notice the real record is not a withdrawal (its one version has source).
    plain = dataclasses.replace(found, comments=REAL_COMMENTS)
    assert not plain.withdrawn
    return plain


@pytest.mark.parametrize(
    "comments",
    [
        "40 pages, 1 figure, this article had been withdrawn on Feb 06, 2013",
        "40 pages, 1 figure. The paper was withdrawn because of a gap in the proof",
        "Results were withdrawn: a gap in the proof of the dispersive estimates",
        "40 pages, 1 figure, This paper has been withdrawn by the author due to a gap",
        "This paper is withdrawn by the authors",
        "Withdrawn by the author(s) due to a gap in the proof",
        "Paper withdrawn due to a gap in the proof of the dispersive estimates",
        "This submission has been withdrawn by arXiv administrators",
        "withdrawn",
        "arXiv admin note: this version has been withdrawn by arXiv administrators",
        "arXiv admin note: submission withdrawn due to a dispute over authorship",
    ],
)
def test_withdrawal_phrasings_in_comments(record, comments):
    assert dataclasses.replace(record, comments=comments).withdrawn


@pytest.mark.parametrize(
    "abstract",
    [
        "This paper has been withdrawn by the author due to a gap in the proof.",
        "This article had been withdrawn on Feb 06, 2013.",
        "This submission has been withdrawn by arXiv administrators because it is a duplicate.",
        "Withdrawn: the proof of the dispersive estimates has a gap.",
        "arXiv admin note: this submission has been withdrawn by arXiv administrators.",
    ],
)
def test_withdrawal_phrasings_opening_the_abstract(record, abstract):
    assert dataclasses.replace(record, abstract=abstract).withdrawn


@pytest.mark.parametrize(
    ("comments", "abstract"),
    [
        (REAL_COMMENTS, "We study how heat is withdrawn from a reservoir and how the estimates change."),
        ("40 pages; the withdrawal of the earlier claim is discussed in section 2", None),
    ],
)
def test_a_mention_of_withdrawal_is_not_a_withdrawal(record, comments, abstract):
    edited = dataclasses.replace(record, comments=comments, abstract=abstract or record.abstract)
    assert not edited.withdrawn
